/**
 * Ports of the media library in settings (lib/use-cases/settings/media-library.ts): the media
 * bucket as the browser uploads to it and the service inspects it (lib/store/s3-media-uploads.ts),
 * and the library's records with a per-user list (lib/store/dynamodb-media-library.ts).
 */
import type { PageKey } from '../../domain/cursor.js';
import type { IdempotencyCompletion } from '../../domain/idempotency-record.js';
import type { MediaItem, MediaStatus } from '../../domain/model.js';

/** What a checked file becomes when it is ready (complete, import). */
export interface ReadyFile {
  url: string;
  objectKey: string;
  contentType: string;
  sizeBytes: number;
  durationSeconds: number | null;
  pageCount: number | null;
  width: number | null;
  height: number | null;
  updatedAt: string;
}

export interface MediaPage {
  items: MediaItem[];
  /** Set only when more items may follow. */
  nextKey: PageKey | null;
}

/** A presigned POST: the browser posts `fields` and then the file to `url`, as multipart/form-data. */
export interface PresignedUpload {
  url: string;
  fields: Record<string, string>;
  expiresAt: string;
}

/** A presigned PUT (the API's uploads): the client PUTs the bytes to `url` with exactly `headers`. */
export interface PresignedPutUpload {
  url: string;
  method: 'PUT';
  headers: Record<string, string>;
  expiresAt: string;
}

export interface MediaUploadStorage {
  /** The signature binds the key, the content type and the exact size; S3 refuses any other PUT. */
  presignPut(input: { objectKey: string; contentType: string; sizeBytes: number; expiresSeconds: number }): Promise<PresignedPutUpload>;
  /** The POST policy pins the key and content type and bounds the size; S3 refuses anything else. */
  presignUpload(input: { objectKey: string; contentType: string; maxBytes: number; expiresSeconds: number; successRedirect?: string }): Promise<PresignedUpload>;
  /** Size and content type S3 holds for the object; null when there is none. */
  head(objectKey: string): Promise<{ sizeBytes: number; contentType: string } | null>;
  /** Bytes [start, end) of the object. */
  read(objectKey: string, start: number, end: number): Promise<Uint8Array>;
  /** The object moves to `to` (copied, then deleted at `from`). */
  move(from: string, to: string): Promise<void>;
  /** Deleting an object that is gone succeeds. */
  remove(objectKey: string): Promise<void>;
}

export interface MediaLibraryStore {
  /**
   * The item, and its bytes added to what the owner stores (the profile's count), in one write
   * conditioned on the total staying within `quotaBytes`. 'exists' when the item exists already
   * (registering an upload twice keeps the first record), 'over_quota' when it would not fit.
   */
  add(item: MediaItem, quotaBytes: number): Promise<'added' | 'exists' | 'over_quota'>;
  /** Bytes the user's library holds (registered files counted since the quota began). */
  storedBytes(userId: string): Promise<number>;
  get(mediaId: string): Promise<MediaItem | null>;
  /** The user's files, newest first: one Query on the byOwner index. */
  list(userId: string, limit: number): Promise<MediaItem[]>;
  remove(item: MediaItem): Promise<void>;
  /** A new item not yet ready, with the request's idempotency record completed in the same write. */
  addPending(item: MediaItem, remember: IdempotencyCompletion | null): Promise<void>;
  /** Ready, its bytes counted, in one write conditioned on it being pending or processing and on the quota. */
  markReady(item: Pick<MediaItem, 'id' | 'userId'>, file: ReadyFile, quotaBytes: number, remember: IdempotencyCompletion | null): Promise<'ready' | 'not_pending' | 'over_quota'>;
  /** Failed with why, when it is still pending or processing; false otherwise. */
  markFailed(item: Pick<MediaItem, 'id' | 'userId'>, failure: { code: string; message: string }, at: string): Promise<boolean>;
  setAltText(userId: string, mediaId: string, altText: string | null, at: string): Promise<MediaItem | null>;
  /** An import taken on by a worker (dynamodb-media-library.ts says when it may be); false when another worker holds it. */
  claimImport(item: Pick<MediaItem, 'id' | 'dueAt'>, now: Date, leaseUntil: Date): Promise<boolean>;
  /** Ids of media not settled yet whose due time has come, oldest first (the sweeper's). */
  dueMedia(now: Date, limit: number): Promise<string[]>;
  /** Newest first; `status` filters. Throws an error with code 'invalid_page_key' for a key not of this list. */
  listPage(userId: string, query: { limit: number; startKey: PageKey | null; status: MediaStatus | null }): Promise<MediaPage>;
}

/**
 * Ports of the media library in settings (lib/use-cases/settings/media-library.ts): the media
 * bucket as the browser uploads to it and the service inspects it (lib/store/s3-media-uploads.ts),
 * and the library's records with a per-user list (lib/store/dynamodb-media-library.ts).
 */
import type { MediaItem } from '../../domain/model.js';

/** A presigned POST: the browser posts `fields` and then the file to `url`, as multipart/form-data. */
export interface PresignedUpload {
  url: string;
  fields: Record<string, string>;
  expiresAt: string;
}

export interface MediaUploadStorage {
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
}

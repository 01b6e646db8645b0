/**
 * Media through the API (beyond-v2.md "Media through the API"): the caller's media library, the
 * same records as settings' and the admin CLI's (lib/store/dynamodb-media-library.ts), under the
 * same rules (lib/domain/media-upload-rules.ts, inspectStoredFile).
 *
 * create    checks what the caller declares (name, type, exact size, alt text) against the
 *           library's rules and what is left of the storage quota, writes the item `pending`
 *           (counted nowhere yet) with the request's idempotency record, and answers a presigned
 *           PUT to `incoming/<userId>/<mediaId>/<name>` that binds the type and the exact size
 *           (S3 refuses any other PUT). The incoming prefix is never served and expires.
 * complete  checks the object S3 holds with ranged reads only (inspectStoredFile), moves it to its
 *           served key and makes the item `ready` with its bytes counted, in one write
 *           conditioned on it still being pending and on the quota. A file that breaks a rule
 *           makes the item `failed` with the code and is deleted. Raced by a second complete: both
 *           answer the ready item; by a delete: the loser of the conditional write finds the item
 *           gone and removes the copy it made.
 * list, get, update (alt text), remove (refused while a draft or scheduled post uses the file).
 *
 * Tenancy: an item of another customer is not found, exactly like a missing one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Caller } from '../domain/caller.js';
import { decodeCursor, encodeCursor, type CursorScope } from '../domain/cursor.js';
import { ApiError, type ErrorCode } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { checkSourceUrl, fileNameFromUrl, IMPORT_LEASE_SECONDS, UPLOAD_ABANDONED_AFTER_SECONDS } from '../domain/media-import.js';
import { incomingObjectKey, INCOMING_PREFIX, MEDIA_STORAGE_QUOTA_BYTES, mediaUrl, servedObjectKey } from '../domain/media-library.js';
import { uploadRule } from '../domain/media-upload-rules.js';
import { MEDIA_STATUSES, mediaStatus, type MediaItem, type MediaStatus, type Post } from '../domain/model.js';
import { checkQueryParameters } from '../domain/query-parameters.js';
import { mediaView, type MediaView } from '../domain/views/media-view.js';
import { logger } from '../observability.js';
import { idempotentRequest, type IdempotentOutcome } from './idempotent-request.js';
import type { Clock } from './ports/clock.js';
import type { IdempotencyStore } from './ports/idempotency-store.js';
import type { MediaImportQueue } from './ports/media-import.js';
import type { MediaLibraryStore, MediaUploadStorage, PresignedPutUpload, ReadyFile } from './ports/media-upload.js';
import type { IdempotencyCompletion } from '../domain/idempotency-record.js';
import type { PostStore } from './ports/post-store.js';
import { ACCEPTED_IN_WORDS, inspectStoredFile, limitInWords, MediaLibraryError, type InspectedFile } from './settings/media-library.js';

/** The client PUTs the bytes within this time (beyond-v2.md: 1 hour). */
export const API_UPLOAD_EXPIRES_SECONDS = 3600;
export const MAX_ALT_TEXT = 1000;
export const MAX_FILE_NAME_LENGTH = 300;
export const DEFAULT_MEDIA_PAGE_SIZE = 25;
export const MAX_MEDIA_PAGE_SIZE = 100;
/** Posts of one status read at most to find the ones using a file (pages of 100): the check stays bounded. */
const MAX_IN_USE_PAGES = 50;
const MEDIA_ID = /^med_[0-9A-Za-z]{20}$/;
const CURSOR_LIST = 'media';
/** Reads of the item while another complete finishes (50 ms doubling, at most 1 s apart: about 6 s in all). */
const RACE_WAITS = 9;

export { mediaView, type MediaView };

export interface MediaUploadAnswer extends MediaView {
  /** Where to PUT the bytes; null when the media is no longer waiting for them (a replayed create). */
  upload: PresignedPutUpload | null;
}

export interface MediaList {
  object: 'list';
  media: MediaView[];
  nextCursor: string | null;
}

export interface MediaDeleted {
  object: 'media_deleted';
  id: string;
}

function notFound(): ApiError {
  return new ApiError('media_not_found', 'No media with this id.', { param: 'id' });
}

function invalid(message: string, param: string): ApiError {
  return new ApiError('invalid_media_request', message, { param });
}

function checkBody(raw: unknown, allowed: readonly string[], what: string): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ApiError('invalid_media_request', 'The body must be a JSON object.');
  const body = raw as Record<string, unknown>;
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) throw invalid(`${what} accepts ${allowed.join(', ')}; "${key.slice(0, 60)}" is not one of them.`, key.slice(0, 60));
  }
  return body;
}

function checkAltText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid('altText must be a string or null.', 'altText');
  if ([...value].length > MAX_ALT_TEXT) throw invalid(`altText is at most ${MAX_ALT_TEXT} characters.`, 'altText');
  return value === '' ? null : value;
}

/** A library refusal as the API's error: the same code, except an empty file, which is a request of the wrong shape. */
function apiErrorOf(error: MediaLibraryError): ApiError {
  const code: ErrorCode = error.code === 'media_empty' ? 'invalid_media_request' : error.code === 'upload_not_found' ? 'media_upload_missing' : error.code;
  return new ApiError(code, error.message, error.code === 'media_empty' ? { param: 'size' } : {});
}

/** Room for `size` more bytes in the user's library, or media_storage_full (an upload's create and complete, an import). */
export async function roomFor(library: Pick<MediaLibraryStore, 'storedBytes'>, userId: string, size: number): Promise<void> {
  const used = await library.storedBytes(userId);
  if (used + size > MEDIA_STORAGE_QUOTA_BYTES) {
    const gb = (bytes: number) => `${(bytes / 1e9).toFixed(2)} GB`;
    throw new ApiError('media_storage_full', `Your media library holds ${gb(used)} of ${gb(MEDIA_STORAGE_QUOTA_BYTES)}; this file does not fit. Delete files you no longer need.`);
  }
}

/**
 * The last step of a complete and of an import, once the file is checked and at its served key:
 * the media made ready, counted against the quota in the same write (with the request's
 * idempotency record when it holds one). Over the quota by then (another file took the room): it
 * fails media_storage_full and the served copy is removed. Settled meanwhile (another complete made
 * it ready, or it was deleted): `settled` with the media as it is now, and a deleted media's copy
 * is removed with it.
 */
export async function settleStoredFile(
  deps: { library: Pick<MediaLibraryStore, 'markReady' | 'markFailed' | 'get'>; storage: Pick<MediaUploadStorage, 'remove'>; clock: Clock },
  item: MediaItem,
  file: ReadyFile,
  remember: IdempotencyCompletion | null,
  fullMessage: string,
): Promise<{ outcome: 'ready' } | { outcome: 'over_quota'; error: ApiError } | { outcome: 'settled'; current: MediaItem | null }> {
  const outcome = await deps.library.markReady(item, file, MEDIA_STORAGE_QUOTA_BYTES, remember);
  if (outcome === 'ready') return { outcome };
  if (outcome === 'over_quota') {
    const error = new ApiError('media_storage_full', fullMessage);
    await failMedia(deps, item, error, [file.objectKey]);
    return { outcome, error };
  }
  const current = await deps.library.get(item.id);
  if (!current) await deps.storage.remove(file.objectKey);
  return { outcome: 'settled', current };
}

/**
 * The media fails with why (a complete's or an import's refusal), and whatever failed the checks is
 * removed from the bucket rather than left for the lifecycle rule.
 */
export async function failMedia(
  deps: { library: Pick<MediaLibraryStore, 'markFailed'>; storage: Pick<MediaUploadStorage, 'remove'>; clock: Clock },
  item: Pick<MediaItem, 'id' | 'userId'>,
  error: { code: string; message: string },
  objectKeys: readonly string[],
): Promise<void> {
  await deps.library.markFailed(item, { code: error.code, message: error.message }, deps.clock.now().toISOString());
  for (const key of objectKeys) await deps.storage.remove(key);
}

export interface ListMediaQuery {
  limit: number;
  cursor: string | null;
  status: MediaStatus | null;
}

export function parseListMediaQuery(query: Record<string, string>): ListMediaQuery {
  checkQueryParameters(query, ['limit', 'cursor', 'status'], 'GET /media accepts limit, cursor and status.');
  let limit = DEFAULT_MEDIA_PAGE_SIZE;
  if (query.limit !== undefined) {
    limit = /^[0-9]{1,3}$/.test(query.limit) ? Number(query.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_MEDIA_PAGE_SIZE)) throw new ApiError('invalid_limit', `limit must be a whole number from 1 to ${MAX_MEDIA_PAGE_SIZE}.`, { param: 'limit' });
  }
  let status: MediaStatus | null = null;
  if (query.status !== undefined) {
    if (!(MEDIA_STATUSES as readonly string[]).includes(query.status)) throw new ApiError('invalid_status', `status must be one of ${MEDIA_STATUSES.join(', ')}.`, { param: 'status' });
    status = query.status as MediaStatus;
  }
  return { limit, cursor: query.cursor ?? null, status };
}

export interface MediaFilesDeps {
  library: MediaLibraryStore;
  storage: MediaUploadStorage;
  idempotency: IdempotencyStore;
  /** The draft and scheduled posts that may use a file (remove's media_in_use). */
  posts: Pick<PostStore, 'listPosts'>;
  mediaBaseUrl: () => string;
  cursorSigningKey: () => Promise<string>;
  /** Where an import goes to be fetched (POST /media with sourceUrl). */
  importQueue: MediaImportQueue;
  /** Local stack only: an import may fetch http://127.0.0.1 (lib/domain/media-import.ts). */
  allowLoopbackImports: boolean;
  clock: Clock;
}

export class MediaFiles {
  constructor(private readonly deps: MediaFilesDeps) {}

  private async owned(caller: Caller, mediaId: string): Promise<MediaItem> {
    if (!MEDIA_ID.test(mediaId)) throw notFound();
    const item = await this.deps.library.get(mediaId);
    if (!item || item.userId !== caller.userId) throw notFound();
    return item;
  }

  /** POST /media with {fileName, contentType, size, altText?}: the pending item and where to PUT the bytes. */
  async create(caller: Caller, raw: unknown, request: { idempotencyKey?: string | undefined } = {}): Promise<IdempotentOutcome<MediaUploadAnswer | MediaView>> {
    const now = this.deps.clock.now();
    return idempotentRequest<MediaUploadAnswer | MediaView>(
      this.deps.idempotency,
      caller,
      { method: 'POST', path: '/media', body: raw, idempotencyKey: request.idempotencyKey, now },
      async (lock, progress) => {
        const body = checkBody(raw, ['fileName', 'contentType', 'size', 'altText', 'sourceUrl'], 'POST /media');
        if (body.sourceUrl !== undefined) return this.startImport(caller, body, lock, progress);
        if (typeof body.fileName !== 'string' || body.fileName.trim() === '' || body.fileName.length > MAX_FILE_NAME_LENGTH) {
          throw invalid(`fileName is required: the file's name, 1 to ${MAX_FILE_NAME_LENGTH} characters.`, 'fileName');
        }
        if (typeof body.contentType !== 'string' || body.contentType === '') throw invalid('contentType is required: the file\'s MIME type, such as "image/png".', 'contentType');
        const rule = uploadRule(body.contentType);
        if (!rule) throw new ApiError('unsupported_media_type', `${body.contentType.slice(0, 100)} cannot be posted. Accepted: ${ACCEPTED_IN_WORDS}.`, { param: 'contentType' });
        const size = body.size;
        if (typeof size !== 'number' || !Number.isInteger(size) || size < 1) throw invalid('size is required: the file\'s exact size in bytes, a whole number of at least 1.', 'size');
        if (size > rule.maxBytes) throw new ApiError('media_too_large', `The file is too large: ${limitInWords(rule.contentType)} is accepted.`, { param: 'size' });
        const altText = checkAltText(body.altText);
        await this.checkRoom(caller.userId, size);
        const at = this.deps.clock.now().toISOString();
        const id = newId('med');
        const item: MediaItem = {
          id,
          userId: caller.userId,
          url: '',
          contentType: rule.contentType,
          sizeBytes: size,
          durationSeconds: null,
          objectKey: incomingObjectKey(caller.userId, id, body.fileName),
          createdAt: at,
          status: 'pending',
          fileName: body.fileName,
          altText,
          updatedAt: at,
        };
        const view = mediaView(item);
        const upload = await this.uploadFor(item);
        // Due for the sweeper once the upload URL has long expired: never completed, it fails then.
        item.dueAt = new Date(now.getTime() + UPLOAD_ABANDONED_AFTER_SECONDS * 1000).toISOString();
        await this.deps.library.addPending(item, lock ? { lock, response: { status: 201, body: view } } : null);
        progress.remembered = lock !== null;
        return { status: 201, body: { ...view, upload } };
      },
      // A replayed create answers the media as it is now, with a fresh upload while it still waits
      // for the bytes (an import has no upload).
      async (remembered) => {
        const item = await this.deps.library.get((remembered as MediaView).id);
        if (!item) return 'upload' in (remembered as object) ? { ...(remembered as MediaView), upload: null } : (remembered as MediaView);
        if (item.sourceUrl !== undefined) return mediaView(item);
        return { ...mediaView(item), upload: mediaStatus(item) === 'pending' ? await this.uploadFor(item) : null };
      },
    );
  }

  /**
   * POST /media with {sourceUrl, fileName?, altText?}: the item `processing`, due for the sweeper
   * when a worker's lease would end (so a lost message is sent again), written with the request's
   * idempotency record; then the import is queued. A send that fails leaves the item to the
   * sweeper: the answer is still 202, the import only later.
   */
  private async startImport(
    caller: Caller,
    body: Record<string, unknown>,
    lock: { userId: string; key: string; lockToken: string } | null,
    progress: { remembered: boolean },
  ): Promise<IdempotentOutcome<MediaView>> {
    for (const field of ['contentType', 'size'] as const) {
      if (body[field] !== undefined) throw invalid(`An import reads ${field === 'size' ? 'the size' : 'the type'} from the file itself; send sourceUrl without ${field}.`, field);
    }
    const source = checkSourceUrl(body.sourceUrl, { allowLoopback: this.deps.allowLoopbackImports });
    if ('problem' in source) throw invalid(source.problem, 'sourceUrl');
    if (body.fileName !== undefined && (typeof body.fileName !== 'string' || body.fileName.trim() === '' || body.fileName.length > MAX_FILE_NAME_LENGTH)) {
      throw invalid(`fileName, when given, is the file's name, 1 to ${MAX_FILE_NAME_LENGTH} characters.`, 'fileName');
    }
    const altText = checkAltText(body.altText);
    const fileName = typeof body.fileName === 'string' ? body.fileName : fileNameFromUrl(source);
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const id = newId('med');
    const item: MediaItem = {
      id,
      userId: caller.userId,
      url: '',
      // Read from the file's own bytes once it arrives.
      contentType: 'application/octet-stream',
      sizeBytes: 0,
      durationSeconds: null,
      objectKey: incomingObjectKey(caller.userId, id, fileName),
      createdAt: at,
      status: 'processing',
      fileName,
      altText,
      updatedAt: at,
      sourceUrl: source.href,
      dueAt: new Date(now.getTime() + IMPORT_LEASE_SECONDS * 1000).toISOString(),
      importClaims: 0,
    };
    const view = mediaView(item);
    await this.deps.library.addPending(item, lock ? { lock, response: { status: 202, body: view } } : null);
    progress.remembered = lock !== null;
    try {
      await this.deps.importQueue.send({ mediaId: id });
    } catch (error) {
      logger.warn('Media import not queued; the sweeper will queue it', { mediaId: id, error });
    }
    return { status: 202, body: view };
  }

  private uploadFor(item: MediaItem): Promise<PresignedPutUpload> {
    return this.deps.storage.presignPut({ objectKey: item.objectKey, contentType: item.contentType, sizeBytes: item.sizeBytes, expiresSeconds: API_UPLOAD_EXPIRES_SECONDS });
  }

  private checkRoom(userId: string, size: number): Promise<void> {
    return roomFor(this.deps.library, userId, size);
  }

  /** POST /media/{id}/complete: the stored bytes checked; ready, or failed with the rule they break. */
  async complete(caller: Caller, mediaId: string, request: { idempotencyKey?: string | undefined } = {}): Promise<IdempotentOutcome<MediaView>> {
    const now = this.deps.clock.now();
    return idempotentRequest<MediaView>(
      this.deps.idempotency,
      caller,
      { method: 'POST', path: `/media/${mediaId}/complete`, body: null, idempotencyKey: request.idempotencyKey, now },
      async (lock, progress) => {
        const item = await this.owned(caller, mediaId);
        const status = mediaStatus(item);
        if (status === 'ready') return this.answerAsIs(lock, item);
        if (status === 'failed') throw new ApiError((item.error?.code ?? 'media_unreadable') as ErrorCode, item.error?.message ?? 'The file was refused.');
        if (status === 'processing') throw invalid('This media is being imported from a URL; it becomes ready by itself.', 'id');
        const uploadKey = item.objectKey;
        const servedKey = servedObjectKey(uploadKey);
        const head = await this.deps.storage.head(uploadKey);
        if (!head) return this.afterTheBytesLeft(caller, mediaId, lock, servedKey, null);
        let inspected: InspectedFile;
        try {
          if (head.contentType !== item.contentType) throw new MediaLibraryError('media_type_mismatch', `The file was stored as ${head.contentType.slice(0, 100)}, not the declared ${item.contentType}.`);
          if (head.sizeBytes !== item.sizeBytes) throw new MediaLibraryError('media_type_mismatch', `The file stored is ${head.sizeBytes} bytes, not the declared ${item.sizeBytes}.`);
          inspected = await inspectStoredFile(this.deps.storage, uploadKey, head);
          await this.checkRoom(caller.userId, head.sizeBytes);
        } catch (error) {
          const apiError = error instanceof MediaLibraryError ? apiErrorOf(error) : error instanceof ApiError ? error : null;
          // A read that failed because the bytes left meanwhile (moved by another complete, deleted).
          if (!apiError) return this.afterTheBytesLeft(caller, mediaId, lock, servedKey, error);
          await this.fail(item, apiError, [uploadKey]);
          throw apiError;
        }
        try {
          await this.deps.storage.move(uploadKey, servedKey);
        } catch (error) {
          // A complete running at the same time moved it first: the served object is the same file.
          const moved = await this.deps.storage.head(servedKey);
          if (!moved || moved.sizeBytes !== head.sizeBytes) return this.afterTheBytesLeft(caller, mediaId, lock, servedKey, error);
        }
        const at = this.deps.clock.now().toISOString();
        const file = { ...inspected, url: mediaUrl(this.deps.mediaBaseUrl(), servedKey), objectKey: servedKey, sizeBytes: head.sizeBytes, updatedAt: at };
        const ready: MediaItem = { ...item, ...file, status: 'ready', error: null };
        const view = mediaView(ready);
        const settled = await settleStoredFile(
          this.deps,
          item,
          file,
          lock ? { lock, response: { status: 200, body: view } } : null,
          'Your media library became full while this file was checked; delete files you no longer need.',
        );
        if (settled.outcome === 'ready') {
          progress.remembered = lock !== null;
          return { status: 200, body: view };
        }
        if (settled.outcome === 'over_quota') throw settled.error;
        // Not pending any more: another complete made it ready (the same served object), or it was deleted.
        const after = settled.current;
        if (after && after.userId === caller.userId && mediaStatus(after) === 'ready') return this.answerAsIs(lock, after);
        throw notFound();
      },
    );
  }

  /**
   * The upload is not (or no longer) where it was put: never sent, moved by a complete running at
   * the same time, or deleted with its media. The other complete's outcome is waited for (a few
   * seconds: its remaining work is two writes); a deleted media is not found, and any copy this
   * request made is removed with it. `cause`: the failure that led here, thrown again when the
   * bytes are in fact still there (a real storage failure, a 500).
   */
  private async afterTheBytesLeft(
    caller: Caller,
    mediaId: string,
    lock: { userId: string; key: string; lockToken: string } | null,
    servedKey: string,
    cause: unknown,
  ): Promise<IdempotentOutcome<MediaView>> {
    for (let attempt = 0; ; attempt++) {
      const item = await this.deps.library.get(mediaId);
      if (!item || item.userId !== caller.userId) {
        if (cause !== null) await this.deps.storage.remove(servedKey);
        throw notFound();
      }
      const status = mediaStatus(item);
      if (status === 'ready') return this.answerAsIs(lock, item);
      if (status === 'failed') throw new ApiError((item.error?.code ?? 'media_unreadable') as ErrorCode, item.error?.message ?? 'The file was refused.');
      if (cause !== null && (await this.deps.storage.head(item.objectKey))) throw cause;
      const moving = (await this.deps.storage.head(servedKey)) !== null;
      if (!moving || attempt >= RACE_WAITS) {
        throw new ApiError('media_upload_missing', 'No bytes have arrived for this media yet: PUT the file to its upload URL first, then complete it.');
      }
      await sleep(Math.min(1000, 50 * 2 ** attempt));
    }
  }

  /** The item as it is, answered without a write of its own: the key is let go, so the same request again answers the same. */
  private async answerAsIs(lock: { userId: string; key: string; lockToken: string } | null, item: MediaItem): Promise<IdempotentOutcome<MediaView>> {
    if (lock) await this.deps.idempotency.release(lock);
    return { status: 200, body: mediaView(item) };
  }

  private fail(item: MediaItem, error: ApiError, objectKeys: string[]): Promise<void> {
    return failMedia(this.deps, item, error, objectKeys);
  }

  async list(caller: Caller, query: ListMediaQuery): Promise<MediaList> {
    const scope: CursorScope = { userId: caller.userId, status: `${CURSOR_LIST}:${query.status ?? '*'}` };
    const signingKey = await this.deps.cursorSigningKey();
    const startKey = query.cursor === null ? null : decodeCursor(query.cursor, scope, signingKey);
    try {
      const page = await this.deps.library.listPage(caller.userId, { limit: query.limit, startKey, status: query.status });
      return {
        object: 'list',
        media: page.items.filter((item) => item.userId === caller.userId).map(mediaView),
        nextCursor: page.nextKey === null ? null : encodeCursor(scope, page.nextKey, signingKey),
      };
    } catch (error) {
      if (error instanceof Error && (error as { code?: unknown }).code === 'invalid_page_key') {
        throw new ApiError('invalid_cursor', 'cursor is not a nextCursor returned by this API for this list.', { param: 'cursor', cause: error });
      }
      throw error;
    }
  }

  async get(caller: Caller, mediaId: string): Promise<MediaView> {
    return mediaView(await this.owned(caller, mediaId));
  }

  /** PATCH /media/{id}: altText (a string up to 1,000 characters, or null to remove it). */
  async update(caller: Caller, mediaId: string, raw: unknown): Promise<MediaView> {
    const body = checkBody(raw, ['altText'], 'PATCH /media/{id}');
    if (!('altText' in body)) throw invalid('PATCH /media/{id} changes altText; the body names nothing to change.', 'altText');
    const altText = checkAltText(body.altText);
    await this.owned(caller, mediaId);
    const updated = await this.deps.library.setAltText(caller.userId, mediaId, altText, this.deps.clock.now().toISOString());
    if (!updated) throw notFound();
    return mediaView(updated);
  }

  /** DELETE /media/{id}: refused while a draft or scheduled post uses the file; then its objects and item. */
  async remove(caller: Caller, mediaId: string): Promise<MediaDeleted> {
    const item = await this.owned(caller, mediaId);
    const users = await this.postsUsing(caller.userId, mediaId);
    if (users > 0) {
      throw new ApiError('media_in_use', `${users} ${users === 1 ? 'post' : 'posts'} (draft or scheduled) ${users === 1 ? 'uses' : 'use'} this file; delete them or change their media first.`, { param: 'id' });
    }
    // Both keys: a complete running now may be moving the upload to its served key.
    const served = servedObjectKey(item.objectKey);
    await this.deps.storage.remove(`${INCOMING_PREFIX}${served}`);
    await this.deps.storage.remove(served);
    await this.deps.library.remove(item);
    return { object: 'media_deleted', id: mediaId };
  }

  private async postsUsing(userId: string, mediaId: string): Promise<number> {
    const uses = (post: Post) => post.mediaIds.includes(mediaId) || post.threadParts.some((part) => part.mediaIds.includes(mediaId));
    let count = 0;
    for (const status of ['draft', 'scheduled'] as const) {
      let startKey = null;
      for (let page = 0; page < MAX_IN_USE_PAGES; page++) {
        const result = await this.deps.posts.listPosts({ userId, status, limit: 100, startKey });
        count += result.posts.filter(uses).length;
        if (result.nextKey === null) break;
        startKey = result.nextKey;
      }
    }
    return count;
  }
}

/**
 * The media library through the API (`client.media.*`, docs/media.md): upload a file in one call
 * (create, PUT to storage, complete), import one from a URL and wait for it, list, read, change alt
 * text, delete. Types are those generated from openapi.yaml.
 */
import { MediaWaitError } from './errors.js';
import type { components } from './generated/openapi.js';
import { sleep, type HttpClient, type Operation, type QueryParams, type RequestBody, type RequestOptions } from './http.js';
import { PagedList } from './pagination.js';

export type Media = components['schemas']['Media'];
export type MediaUpload = components['schemas']['MediaUpload'];
export type MediaList = components['schemas']['MediaList'];
export type MediaDeleted = components['schemas']['MediaDeleted'];
export type MediaStatus = Media['status'];
export type ListMediaParams = QueryParams<Operation<'/media', 'get'>>;
export type UpdateMediaParams = RequestBody<Operation<'/media/{id}', 'patch'>>;
type CreateMediaBody = RequestBody<Operation<'/media', 'post'>>;

/** What `upload` takes: the bytes, whole or as a stream. */
export type MediaFile = Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array>;

export interface UploadMediaOptions extends Omit<RequestOptions, 'idempotencyKey'> {
  fileName: string;
  /** One the library takes: image/jpeg, image/png, image/webp, image/gif, video/mp4, application/pdf. */
  contentType: string;
  altText?: string | null;
  /**
   * The create's `Idempotency-Key` (one is made when absent): the complete's is derived from it, so
   * an upload repeated with the same key after a lost answer ends in the same media.
   */
  idempotencyKey?: string;
}

export interface ImportMediaOptions extends Omit<RequestOptions, 'idempotencyKey'> {
  fileName?: string;
  altText?: string | null;
  idempotencyKey?: string;
  /** Wait until the import is `ready` or `failed` (default); `false` answers the `processing` media at once. */
  wait?: boolean | { timeoutMs?: number; intervalMs?: number };
}

/**
 * The largest file the library takes (an MP4 of 500 MB): a stream is read up to this and no further,
 * since its upload URL is signed for an exact size that must be known before it is sent.
 */
export const MAX_MEDIA_BYTES = 500_000_000;

/** A stream read whole (its size must be known to sign its upload), refusing one past MAX_MEDIA_BYTES. */
async function bytesOf(file: MediaFile): Promise<Uint8Array | Blob> {
  if (file instanceof Uint8Array || file instanceof Blob) return file;
  if (file instanceof ArrayBuffer) return new Uint8Array(file);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = file.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_MEDIA_BYTES) {
      await reader.cancel();
      throw new RangeError(`The stream is longer than ${MAX_MEDIA_BYTES} bytes, more than the media library takes.`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

export class MediaResource {
  constructor(private readonly http: HttpClient) {}

  /**
   * Puts a file in the media library and answers it `ready` with its `url` (put that in a post's
   * `media`): the create, the PUT of the bytes straight to storage, then the complete, each retried
   * where repeating is safe. A file the library refuses throws InvalidRequestError with its code
   * (`media_type_mismatch`, `media_too_large`, `media_unreadable`, `media_storage_full`, ...).
   */
  async upload(file: MediaFile, options: UploadMediaOptions): Promise<Media> {
    const { fileName, contentType, altText, idempotencyKey, ...request } = options;
    const bytes = await bytesOf(file);
    const size = bytes instanceof Blob ? bytes.size : bytes.byteLength;
    const key = idempotencyKey ?? crypto.randomUUID();
    const body = { fileName, contentType, size, ...(altText === undefined ? {} : { altText }) } as CreateMediaBody;
    const created = (await this.http.request('post', '/media', { body, repeat: 'idempotency-key' }, { ...request, idempotencyKey: key })) as MediaUpload;
    // A repeat of a create whose media is already past waiting for bytes (completed before) has no upload.
    if (created.upload) await this.http.putBytes(created.upload.url, created.upload.headers, bytes, request);
    if (created.status === 'ready') return created;
    return (await this.http.request('post', '/media/{id}/complete', { path: { id: created.id }, repeat: 'idempotency-key' }, { ...request, idempotencyKey: `${key}:complete` })) as Media;
  }

  /**
   * Imports the file at a public https URL into the library: answered `processing`, then (unless
   * `wait: false`) read until it is `ready` or `failed`, and answered then. A failed import is an
   * answer, not an exception: read `status` and `error` (`media_fetch_failed` says why).
   */
  async import(sourceUrl: string, options: ImportMediaOptions = {}): Promise<Media> {
    const { fileName, altText, idempotencyKey, wait, ...request } = options;
    const body = { sourceUrl, ...(fileName === undefined ? {} : { fileName }), ...(altText === undefined ? {} : { altText }) } as CreateMediaBody;
    const started = (await this.http.request('post', '/media', { body, repeat: 'idempotency-key' }, { ...request, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) })) as Media;
    if (wait === false) return started;
    return this.waitUntilSettled(started.id, { ...(typeof wait === 'object' ? wait : {}), ...(request.signal ? { signal: request.signal } : {}) });
  }

  /**
   * Reads the media until it is `ready` or `failed` and answers it. A `pending` upload never
   * settles by itself (it waits for its bytes): MediaWaitError `media_is_pending`.
   */
  async waitUntilSettled(id: string, options: { timeoutMs?: number; intervalMs?: number; signal?: AbortSignal } = {}): Promise<Media> {
    const timeoutMs = options.timeoutMs ?? 120_000;
    const intervalMs = Math.max(100, options.intervalMs ?? 1_000);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const media = await this.get(id, options.signal ? { signal: options.signal } : {});
      if (media.status === 'ready' || media.status === 'failed') return media;
      if (media.status === 'pending') throw new MediaWaitError('media_is_pending', `Media ${id} is waiting for its bytes: PUT them and complete it.`, media);
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new MediaWaitError('wait_timeout', `Media ${id} was still ${media.status} after ${timeoutMs} ms.`, media);
      await sleep(Math.min(remaining, intervalMs), options.signal);
    }
  }

  get(id: string, options?: RequestOptions): Promise<Media> {
    return this.http.request('get', '/media/{id}', { path: { id } }, options);
  }

  /** `await` it for one page, or `for await (const media of client.media.list({ status: 'ready' }))` for every file, newest first. */
  list(params: ListMediaParams = {}, options?: RequestOptions): PagedList<MediaList, Media> {
    const { cursor, ...query } = params;
    return new PagedList(
      (next) => this.http.request('get', '/media', { query: { ...query, ...(next === undefined ? {} : { cursor: next }) } }, options),
      (page) => page.media,
      (page) => page.nextCursor,
      cursor,
    );
  }

  /** `altText` (at most 1,000 characters, or null to remove it). Sent once (a PATCH here takes no key). */
  update(id: string, params: UpdateMediaParams, options?: RequestOptions): Promise<Media> {
    return this.http.request('patch', '/media/{id}', { path: { id }, body: params }, options);
  }

  /** Removes the file; while a draft or scheduled post uses it, InvalidRequestError `media_in_use` (409). */
  delete(id: string, options?: RequestOptions): Promise<MediaDeleted> {
    return this.http.request('delete', '/media/{id}', { path: { id } }, options);
  }
}

/**
 * The media library in settings: upload straight to the media bucket, register, list, delete.
 *
 * prepare   checks the type and size the browser declares against UPLOAD_RULES and the customer's
 *           storage quota, and returns a presigned POST for one new object
 *           `incoming/<userId>/<mediaId>/<safe name>` (10 minutes; the policy pins the key and
 *           content type and bounds the size by the type's limit and what is left of the quota,
 *           so S3 itself refuses anything else). The incoming prefix is never served and expires
 *           (lib/domain/media-library.ts INCOMING_PREFIX).
 * register  after the browser's POST: the key must be under the caller's own incoming prefix, and
 *           the object S3 holds is checked there (size, declared type, first bytes of that type;
 *           an MP4's duration read from its moov box; a PDF's page count read from a window at
 *           each end of the file, lib/domain/pdf-pages.ts), moved to its served key
 *           `<userId>/<mediaId>/<name>`, and the library item written with its bytes added to the
 *           customer's total, conditioned on the quota. The item's URL is exactly what
 *           POST /api/v1/posts accepts in `media` (lib/domain/media-library.ts). Registering the
 *           same upload twice returns the first item. A file that fails a check (or the quota) is
 *           deleted, so nothing unchecked is ever served.
 * list      the caller's files, newest first.
 * remove    the caller's file: object, then item (its bytes given back). A scheduled post that
 *           uses it fails when due (the publish worker reports media missing).
 */
import { MAX_VIDEO_SECONDS, SNIFF_BYTES, describeLimit, readMoovBox, uploadRule, UPLOAD_RULES } from '../../domain/media-upload-rules.js';
import { incomingObjectKey, INCOMING_PREFIX, MEDIA_STORAGE_QUOTA_BYTES, mediaUrl, safeFileName } from '../../domain/media-library.js';
import type { MediaItem } from '../../domain/model.js';
import { mp4DurationSeconds } from '../../domain/mp4-duration.js';
import { imageDimensions } from '../../domain/image-dimensions.js';
import { MAX_DOCUMENT_PAGES, PDF_WINDOW_BYTES, pdfPageCount } from '../../domain/pdf-pages.js';
import { newId } from '../../domain/ids.js';
import type { MediaLibraryStore, MediaUploadStorage, PresignedUpload } from '../ports/media-upload.js';
import { systemClock, type Clock } from '../ports/clock.js';

export const UPLOAD_EXPIRES_SECONDS = 600;
/** The library page shows this many newest files. */
export const MEDIA_LIST_LIMIT = 200;

/**
 * The library's refusals, named as the API names them (beyond-v2.md "Media through the API"), so a
 * file is refused for the same reason with the same code in settings and through the API.
 */
export type MediaLibraryErrorCode =
  | 'unsupported_media_type'
  | 'media_too_large'
  | 'media_empty'
  | 'media_storage_full'
  | 'upload_not_found'
  /** The bytes are not of the declared type (their magic numbers). */
  | 'media_type_mismatch'
  /** Of the type, but its duration, pages or size cannot be read, or are past the limits. */
  | 'media_unreadable'
  | 'media_not_found';

function quotaExceeded(usedBytes: number): MediaLibraryError {
  const gb = (bytes: number) => `${(bytes / 1e9).toFixed(bytes % 1e9 === 0 ? 0 : 2)} GB`;
  return new MediaLibraryError(
    'media_storage_full',
    `Your media library is full: it holds ${gb(usedBytes)} of ${gb(MEDIA_STORAGE_QUOTA_BYTES)}. Delete files you no longer need to upload more.`,
  );
}

export class MediaLibraryError extends Error {
  constructor(
    readonly code: MediaLibraryErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'MediaLibraryError';
  }
}

export interface MediaLibraryDeps {
  storage: MediaUploadStorage;
  library: MediaLibraryStore;
  /** MEDIA_BASE_URL: the public base of media URLs. */
  mediaBaseUrl: () => string;
  clock?: Clock;
}

const MEDIA_ID = /^med_[0-9A-Za-z]{20}$/;

/** Each accepted type in a person's words: errors name kinds of files, never MIME types. */
export const UPLOAD_TYPE_WORDS: Readonly<Record<string, string>> = {
  'image/jpeg': 'a JPEG image',
  'image/png': 'a PNG image',
  'image/webp': 'a WebP image',
  'image/gif': 'a GIF image',
  'video/mp4': 'an MP4 video',
  'application/pdf': 'a PDF document',
};

function wordsFor(contentType: string): string {
  return UPLOAD_TYPE_WORDS[contentType] ?? 'this kind of file';
}

/** "a JPEG image up to 5 MB": describeLimit's size with the type in words. */
export function limitInWords(contentType: string): string {
  const rule = uploadRule(contentType);
  return rule ? `${wordsFor(rule.contentType)} up to ${describeLimit(rule).replace(`${rule.contentType} up to `, '')}` : wordsFor(contentType);
}

export const ACCEPTED_IN_WORDS = `${UPLOAD_RULES.map((rule) => limitInWords(rule.contentType)).slice(0, -1).join(', ')} or ${limitInWords(UPLOAD_RULES[UPLOAD_RULES.length - 1]?.contentType ?? '')}`;
const ACCEPTED = ACCEPTED_IN_WORDS;

export class MediaLibrary {
  private readonly clock: Clock;

  constructor(private readonly deps: MediaLibraryDeps) {
    this.clock = deps.clock ?? systemClock;
  }

  /**
   * A presigned POST for one file of this type. The file name and size are known only when a
   * script read them from the file picker; a plain form names the type alone, and the policy
   * bounds the size by the type's limit.
   */
  async prepare(
    userId: string,
    input: { contentType: string; fileName?: string; sizeBytes?: number; successRedirect?: string },
  ): Promise<{ mediaId: string; objectKey: string; upload: PresignedUpload }> {
    const rule = uploadRule(input.contentType);
    if (!rule) throw new MediaLibraryError('unsupported_media_type', `This kind of file cannot be posted. You can upload ${ACCEPTED}.`);
    if (input.sizeBytes !== undefined) {
      if (!Number.isInteger(input.sizeBytes) || input.sizeBytes <= 0) throw new MediaLibraryError('media_empty', 'The file is empty.');
      if (input.sizeBytes > rule.maxBytes) throw new MediaLibraryError('media_too_large', `The file is too large: ${limitInWords(rule.contentType)} is accepted.`);
    }
    // What is left of the quota bounds the upload (the POST policy), besides the type's limit.
    const used = await this.deps.library.storedBytes(userId);
    const room = MEDIA_STORAGE_QUOTA_BYTES - used;
    if (room <= 0 || (input.sizeBytes !== undefined && input.sizeBytes > room)) throw quotaExceeded(used);
    const mediaId = newId('med');
    const fileName = input.fileName?.trim() ? input.fileName.slice(0, 300) : `${rule.kind}.${rule.contentType.split('/')[1] === 'jpeg' ? 'jpg' : rule.contentType.split('/')[1]}`;
    const objectKey = incomingObjectKey(userId, mediaId, fileName);
    const upload = await this.deps.storage.presignUpload({
      objectKey,
      contentType: rule.contentType,
      maxBytes: Math.min(rule.maxBytes, room),
      expiresSeconds: UPLOAD_EXPIRES_SECONDS,
      ...(input.successRedirect !== undefined ? { successRedirect: input.successRedirect } : {}),
    });
    return { mediaId, objectKey, upload };
  }

  /** `uploadKey`: the incoming key the upload was posted to (prepare's objectKey). */
  async register(userId: string, uploadKey: string): Promise<MediaItem> {
    const notYours = () => new MediaLibraryError('upload_not_found', 'That upload is not one of yours. Upload the file again.');
    if (!uploadKey.startsWith(INCOMING_PREFIX)) throw notYours();
    const objectKey = uploadKey.slice(INCOMING_PREFIX.length);
    const parts = objectKey.split('/');
    const [owner, mediaId, name] = parts;
    if (parts.length !== 3 || owner !== userId || !mediaId || !MEDIA_ID.test(mediaId) || !name || safeFileName(name) !== name) throw notYours();
    const existing = await this.deps.library.get(mediaId);
    if (existing) {
      if (existing.userId !== userId) throw notYours();
      return existing;
    }
    const head = await this.deps.storage.head(uploadKey);
    if (!head) throw new MediaLibraryError('upload_not_found', 'The upload did not arrive (it may have been refused as too large or of the wrong type). Upload the file again.');
    const item = await inspectStoredFile(this.deps.storage, uploadKey, head)
      .then(async (checked) => {
        // Checked before the move, so no copy is made of a file that would not fit; the add below is the atomic check.
        const used = await this.deps.library.storedBytes(userId);
        if (used + head.sizeBytes > MEDIA_STORAGE_QUOTA_BYTES) throw quotaExceeded(used);
        return checked;
      })
      .catch(async (error: unknown) => {
        // Whatever failed the checks must not stay in the bucket (nor wait for the lifecycle rule).
        await this.deps.storage.remove(uploadKey);
        throw error;
      });
    // Served only from here on: the checked file moves out of the incoming prefix.
    await this.deps.storage.move(uploadKey, objectKey);
    const record: MediaItem = {
      id: mediaId,
      userId,
      url: mediaUrl(this.deps.mediaBaseUrl(), objectKey),
      contentType: item.contentType,
      sizeBytes: head.sizeBytes,
      durationSeconds: item.durationSeconds,
      ...(item.pageCount !== null ? { pageCount: item.pageCount } : {}),
      objectKey,
      createdAt: this.clock.now().toISOString(),
      status: 'ready',
      fileName: name,
      ...(item.width !== null && item.height !== null ? { width: item.width, height: item.height } : {}),
    };
    const added = await this.deps.library.add(record, MEDIA_STORAGE_QUOTA_BYTES);
    if (added === 'over_quota') {
      // A concurrent registration took the room meanwhile.
      await this.deps.storage.remove(objectKey);
      throw quotaExceeded(await this.deps.library.storedBytes(userId));
    }
    if (added === 'exists') {
      const raced = await this.deps.library.get(mediaId);
      if (raced && raced.userId === userId) return raced;
    }
    return record;
  }

  async list(userId: string): Promise<MediaItem[]> {
    return this.deps.library.list(userId, MEDIA_LIST_LIMIT);
  }

  async remove(userId: string, mediaId: string): Promise<MediaItem> {
    const item = MEDIA_ID.test(mediaId) ? await this.deps.library.get(mediaId) : null;
    // Another user's file looks exactly like a missing one.
    if (!item || item.userId !== userId) throw new MediaLibraryError('media_not_found', 'That file is not in your library.');
    await this.deps.storage.remove(item.objectKey);
    await this.deps.library.remove(item);
    return item;
  }
}

/** What inspecting a stored file found: the type it really is and what the platforms' rules need. */
export interface InspectedFile {
  contentType: string;
  durationSeconds: number | null;
  pageCount: number | null;
  width: number | null;
  height: number | null;
}

/**
 * The library's checks of a stored file, with ranged reads only (the settings upload's register,
 * the API's complete, an import): the type S3 holds is an accepted one, the size within its
 * limit, the first bytes of that type, an image's width and height from its header, an MP4's
 * duration from its moov box, a PDF's pages from a window at each end.
 */
export async function inspectStoredFile(
  storage: Pick<MediaUploadStorage, 'read'>,
  objectKey: string,
  head: { sizeBytes: number; contentType: string },
): Promise<InspectedFile> {
  const read = (start: number, end: number) => storage.read(objectKey, start, end);
  const rule = uploadRule(head.contentType);
  if (!rule) throw new MediaLibraryError('unsupported_media_type', `This kind of file cannot be posted. You can upload ${ACCEPTED}.`);
  if (head.sizeBytes <= 0) throw new MediaLibraryError('media_empty', 'The file is empty.');
  if (head.sizeBytes > rule.maxBytes) throw new MediaLibraryError('media_too_large', `The file is too large: ${limitInWords(rule.contentType)} is accepted.`);
  const first = await read(0, Math.min(SNIFF_BYTES, head.sizeBytes));
  if (!rule.matches(first)) throw new MediaLibraryError('media_type_mismatch', `The file is not really ${wordsFor(rule.contentType)}: its contents are of another kind. Export it again, or choose another file.`);
  const none = { contentType: rule.contentType, durationSeconds: null, pageCount: null, width: null, height: null };
  if (rule.kind === 'document') return { ...none, pageCount: await pageCount(read, head.sizeBytes) };
  if (rule.kind === 'image') {
    const size = await imageDimensions(read, head.sizeBytes, rule.contentType);
    if (!size) throw new MediaLibraryError('media_unreadable', `The image’s width and height cannot be read; export it again as ${wordsFor(rule.contentType).replace(/^an? /, '')}.`);
    return { ...none, ...size };
  }
  const moov = await readMoovBox(read, head.sizeBytes);
  const duration = moov ? mp4DurationSeconds(moov) : null;
  if (duration === null || duration <= 0) throw new MediaLibraryError('media_unreadable', 'The video’s length cannot be read; export it again as MP4.');
  if (duration > MAX_VIDEO_SECONDS) throw new MediaLibraryError('media_unreadable', `The video is longer than ${MAX_VIDEO_SECONDS / 60} minutes, more than any platform takes.`);
  return { ...none, durationSeconds: duration };
}

/**
 * Two ranged reads of at most PDF_WINDOW_BYTES (the start and the end of the file, or the whole
 * of a small one), never the whole 100 MB. A count that cannot be read there is unknown, not a
 * refusal; a known one must be what LinkedIn takes.
 */
async function pageCount(read: (start: number, end: number) => Promise<Uint8Array>, sizeBytes: number): Promise<number | null> {
  const windows = [await read(0, Math.min(PDF_WINDOW_BYTES, sizeBytes))];
  if (sizeBytes > PDF_WINDOW_BYTES) windows.push(await read(Math.max(PDF_WINDOW_BYTES, sizeBytes - PDF_WINDOW_BYTES), sizeBytes));
  const pages = pdfPageCount(windows);
  if (pages === 0) throw new MediaLibraryError('media_unreadable', 'The PDF has no pages. Export it again, or choose another file.');
  if (pages !== null && pages > MAX_DOCUMENT_PAGES) {
    throw new MediaLibraryError('media_unreadable', `The PDF has ${pages} pages; LinkedIn takes documents of at most ${MAX_DOCUMENT_PAGES} pages.`);
  }
  return pages;
}

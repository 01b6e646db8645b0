/**
 * The media library in settings: upload straight to the media bucket, register, list, delete.
 *
 * prepare   checks the type and size the browser declares against UPLOAD_RULES and returns a
 *           presigned POST for one new object `<userId>/<mediaId>/<safe name>` (10 minutes; the
 *           policy pins the key and content type and bounds the size, so S3 itself refuses
 *           anything else).
 * register  after the browser's POST: the key must be under the caller's own prefix, and the
 *           object S3 holds is checked again (size, declared type, first bytes of that type; an
 *           MP4's duration read from its moov box), then the library item is written. The item's
 *           URL is exactly what POST /api/v1/posts accepts in `media` (lib/domain/media-library.ts).
 *           Registering the same upload twice returns the first item. A file that fails a check
 *           is deleted, so nothing unchecked stays in the bucket.
 * list      the caller's files, newest first.
 * remove    the caller's file: object, then item. A scheduled post that uses it fails when due
 *           (the publish worker reports media missing).
 */
import { MAX_VIDEO_SECONDS, SNIFF_BYTES, describeLimit, readMoovBox, uploadRule, UPLOAD_RULES } from '../../domain/media-upload-rules.js';
import { mediaObjectKey, mediaUrl, safeFileName } from '../../domain/media-library.js';
import type { MediaItem } from '../../domain/model.js';
import { mp4DurationSeconds } from '../../domain/mp4-duration.js';
import { newId } from '../../domain/ids.js';
import type { MediaLibraryStore, MediaUploadStorage, PresignedUpload } from '../ports/media-upload.js';
import { systemClock, type Clock } from '../ports/clock.js';

export const UPLOAD_EXPIRES_SECONDS = 600;
/** The library page shows this many newest files. */
export const MEDIA_LIST_LIMIT = 200;

export type MediaLibraryErrorCode = 'media_type_unsupported' | 'media_too_large' | 'media_empty' | 'upload_not_found' | 'upload_invalid' | 'media_not_found';

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
    if (!rule) throw new MediaLibraryError('media_type_unsupported', `This kind of file cannot be posted. You can upload ${ACCEPTED}.`);
    if (input.sizeBytes !== undefined) {
      if (!Number.isInteger(input.sizeBytes) || input.sizeBytes <= 0) throw new MediaLibraryError('media_empty', 'The file is empty.');
      if (input.sizeBytes > rule.maxBytes) throw new MediaLibraryError('media_too_large', `The file is too large: ${limitInWords(rule.contentType)} is accepted.`);
    }
    const mediaId = newId('med');
    const fileName = input.fileName?.trim() ? input.fileName.slice(0, 300) : `${rule.kind}.${rule.contentType.split('/')[1] === 'jpeg' ? 'jpg' : rule.contentType.split('/')[1]}`;
    const objectKey = mediaObjectKey(userId, mediaId, fileName);
    const upload = await this.deps.storage.presignUpload({
      objectKey,
      contentType: rule.contentType,
      maxBytes: rule.maxBytes,
      expiresSeconds: UPLOAD_EXPIRES_SECONDS,
      ...(input.successRedirect !== undefined ? { successRedirect: input.successRedirect } : {}),
    });
    return { mediaId, objectKey, upload };
  }

  async register(userId: string, objectKey: string): Promise<MediaItem> {
    const parts = objectKey.split('/');
    const [owner, mediaId, name] = parts;
    if (parts.length !== 3 || owner !== userId || !mediaId || !MEDIA_ID.test(mediaId) || !name || safeFileName(name) !== name) {
      throw new MediaLibraryError('upload_not_found', 'That upload is not one of yours. Upload the file again.');
    }
    const existing = await this.deps.library.get(mediaId);
    if (existing) {
      if (existing.userId !== userId) throw new MediaLibraryError('upload_not_found', 'That upload is not one of yours. Upload the file again.');
      return existing;
    }
    const head = await this.deps.storage.head(objectKey);
    if (!head) throw new MediaLibraryError('upload_not_found', 'The upload did not arrive (it may have been refused as too large or of the wrong type). Upload the file again.');
    const item = await this.check(objectKey, head).catch(async (error: unknown) => {
      // Whatever failed the checks must not stay in the bucket under a guessable name.
      await this.deps.storage.remove(objectKey);
      throw error;
    });
    const record: MediaItem = {
      id: mediaId,
      userId,
      url: mediaUrl(this.deps.mediaBaseUrl(), objectKey),
      contentType: item.contentType,
      sizeBytes: head.sizeBytes,
      durationSeconds: item.durationSeconds,
      objectKey,
      createdAt: this.clock.now().toISOString(),
    };
    if (!(await this.deps.library.add(record))) {
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

  private async check(objectKey: string, head: { sizeBytes: number; contentType: string }): Promise<{ contentType: string; durationSeconds: number | null }> {
    const rule = uploadRule(head.contentType);
    if (!rule) throw new MediaLibraryError('media_type_unsupported', `This kind of file cannot be posted. You can upload ${ACCEPTED}.`);
    if (head.sizeBytes <= 0) throw new MediaLibraryError('media_empty', 'The file is empty.');
    if (head.sizeBytes > rule.maxBytes) throw new MediaLibraryError('media_too_large', `The file is too large: ${limitInWords(rule.contentType)} is accepted.`);
    const first = await this.deps.storage.read(objectKey, 0, Math.min(SNIFF_BYTES, head.sizeBytes));
    if (!rule.matches(first)) throw new MediaLibraryError('upload_invalid', `The file is not really ${wordsFor(rule.contentType)}: its contents are of another kind. Export it again, or choose another file.`);
    if (rule.kind !== 'video') return { contentType: rule.contentType, durationSeconds: null };
    const moov = await readMoovBox((start, end) => this.deps.storage.read(objectKey, start, end), head.sizeBytes);
    const duration = moov ? mp4DurationSeconds(moov) : null;
    if (duration === null || duration <= 0) throw new MediaLibraryError('upload_invalid', 'The video’s length cannot be read; export it again as MP4.');
    if (duration > MAX_VIDEO_SECONDS) throw new MediaLibraryError('upload_invalid', `The video is longer than ${MAX_VIDEO_SECONDS / 60} minutes, more than any platform takes.`);
    return { contentType: rule.contentType, durationSeconds: duration };
  }
}

/**
 * Naming of media library files. A file lives in the media bucket under
 * `<userId>/<mediaId>/<safe file name>` and is referred to by `<mediaBaseUrl>/<object key>`; the
 * media id can be read back from such a URL (then looked up with MediaReader to check the owner).
 */

const CONTENT_TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  svg: 'image/svg+xml',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  avi: 'video/x-msvideo',
  pdf: 'application/pdf',
  txt: 'text/plain',
};

const MIME_PATTERN = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;
const MAX_FILE_NAME = 100;

/** The content type for a file name's extension, or null when the extension is unknown. */
export function guessContentType(fileName: string): string | null {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) return null;
  return CONTENT_TYPES[fileName.slice(dot + 1).toLowerCase()] ?? null;
}

export function isContentType(value: string): boolean {
  return MIME_PATTERN.test(value);
}

/**
 * The base name reduced to `[A-Za-z0-9._-]`, so the object key and the URL need no escaping and
 * cannot climb out of their folder. The extension is kept; overlong names are cut from the stem.
 */
export function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  let safe = base.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '').replace(/-+/g, '-');
  if (safe.length > MAX_FILE_NAME) {
    const dot = safe.lastIndexOf('.');
    const extension = dot > 0 && safe.length - dot <= 10 ? safe.slice(dot) : '';
    safe = safe.slice(0, MAX_FILE_NAME - extension.length) + extension;
  }
  return safe === '' ? 'file' : safe;
}

export function mediaObjectKey(userId: string, mediaId: string, fileName: string): string {
  return `${userId}/${mediaId}/${safeFileName(fileName)}`;
}

/**
 * Where a browser upload lands: under this prefix, which is never served (the CDN's bucket policy
 * and the local /media route refuse it) and expires after INCOMING_EXPIRY_DAYS (an S3 lifecycle
 * rule). Registering the upload checks it there and moves it to its served key; an upload never
 * registered is never public and does not stay.
 */
export const INCOMING_PREFIX = 'incoming/';
export const INCOMING_EXPIRY_DAYS = 1;

export function incomingObjectKey(userId: string, mediaId: string, fileName: string): string {
  return `${INCOMING_PREFIX}${mediaObjectKey(userId, mediaId, fileName)}`;
}

/** Where a checked file is served from: its incoming key without the incoming prefix. */
export function servedObjectKey(objectKey: string): string {
  return objectKey.startsWith(INCOMING_PREFIX) ? objectKey.slice(INCOMING_PREFIX.length) : objectKey;
}

/**
 * Bytes of media one customer may keep in the library (registered files; an upload under way
 * counts once registered). Checked when an upload is signed (the POST policy's size bound is what
 * is left) and again, atomically, when it is registered. Two gigabytes: four of the largest videos.
 */
export const MEDIA_STORAGE_QUOTA_BYTES = 2 * 1000 * 1000 * 1000;

export function mediaUrl(baseUrl: string, objectKey: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${objectKey}`;
}

/** The media id in a URL made by mediaUrl, or null for any other URL (not hosted by this service). */
export function mediaIdFromUrl(url: string, baseUrl: string): string | null {
  const prefix = `${baseUrl.replace(/\/+$/, '')}/`;
  if (!url.startsWith(prefix)) return null;
  const parts = url.slice(prefix.length).split('/');
  if (parts.length !== 3 || parts.some((part) => part === '')) return null;
  return parts[1] ?? null;
}

/**
 * Headers of every media answer (the CDN's response headers policy on AWS, the local /media
 * route): a browser must not guess another type than the one stored (an "image" that is HTML),
 * and a file opened on its own runs nothing and reaches nothing (sandbox: no script, no
 * same-origin). Images and videos embedded elsewhere are unaffected.
 */
export const MEDIA_CONTENT_SECURITY_POLICY = "default-src 'none'; sandbox";
export const MEDIA_RESPONSE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': MEDIA_CONTENT_SECURITY_POLICY,
} as const;

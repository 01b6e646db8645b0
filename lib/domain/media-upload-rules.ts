/**
 * What the media library accepts from an upload (decisions.md's media rules; platforms.md's
 * limits): the file types at least one platform posts, each with the size the stricter platform
 * allows, so a library file fits every platform that takes its type. The same limits go into the
 * presigned POST's policy (S3 refuses a bigger or differently typed upload) and are checked again
 * when the upload is registered, against the object S3 actually holds and its first bytes, so a
 * file is never taken on the word of the browser.
 */
export interface UploadRule {
  contentType: string;
  kind: 'image' | 'video' | 'document';
  maxBytes: number;
  /** Does the file start like this type? (Magic numbers of the format.) */
  matches(head: Uint8Array): boolean;
}

const MiB = 1024 * 1024;
/** LinkedIn's longest video (decisions.md); X's 140 s is checked per target when posting. */
export const MAX_VIDEO_SECONDS = 30 * 60;
/** Bytes read from the start of an upload to check its type. */
export const SNIFF_BYTES = 16;

function startsWith(head: Uint8Array, bytes: readonly number[], offset = 0): boolean {
  return bytes.every((byte, index) => head[offset + index] === byte);
}

const ascii = (text: string): number[] => [...text].map((char) => char.charCodeAt(0));

export const UPLOAD_RULES: readonly UploadRule[] = [
  // X: images up to 5 MB (LinkedIn takes bigger ones; the library keeps what both take).
  { contentType: 'image/jpeg', kind: 'image', maxBytes: 5 * MiB, matches: (head) => startsWith(head, [0xff, 0xd8, 0xff]) },
  { contentType: 'image/png', kind: 'image', maxBytes: 5 * MiB, matches: (head) => startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { contentType: 'image/webp', kind: 'image', maxBytes: 5 * MiB, matches: (head) => startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8) },
  // X: a GIF up to 15 MB.
  { contentType: 'image/gif', kind: 'image', maxBytes: 15 * MiB, matches: (head) => startsWith(head, ascii('GIF87a')) || startsWith(head, ascii('GIF89a')) },
  // LinkedIn: video up to 500 MB (X allows 512 MB).
  { contentType: 'video/mp4', kind: 'video', maxBytes: 500 * 1000 * 1000, matches: (head) => startsWith(head, ascii('ftyp'), 4) },
  // LinkedIn's Documents API: up to 100 MB (and 300 pages, pdf-pages.ts); X takes no PDFs. Every PDF starts "%PDF-".
  { contentType: 'application/pdf', kind: 'document', maxBytes: 100 * 1000 * 1000, matches: (head) => startsWith(head, ascii('%PDF-')) },
];

export function uploadRule(contentType: string): UploadRule | undefined {
  return UPLOAD_RULES.find((rule) => rule.contentType === contentType.toLowerCase());
}

export const ACCEPTED_UPLOAD_TYPES = UPLOAD_RULES.map((rule) => rule.contentType);

export function describeLimit(rule: UploadRule): string {
  // Limits set in decimal megabytes (platforms' video and document limits) read as such; the rest are mebibytes.
  const mb = rule.maxBytes % 1_000_000 === 0 ? `${rule.maxBytes / 1_000_000} MB` : `${rule.maxBytes / MiB} MB`;
  return `${rule.contentType} up to ${mb}`;
}

/**
 * Walks an MP4's top-level boxes through ranged reads until `moov`, and returns that box's bytes
 * (at most maxMoovBytes), so a video's duration is read without fetching the whole file
 * (`moov` is at the start of a "fast start" file and at the end of many others).
 */
export async function readMoovBox(
  read: (start: number, end: number) => Promise<Uint8Array>,
  sizeBytes: number,
  maxMoovBytes = 64 * MiB,
): Promise<Uint8Array | null> {
  let offset = 0;
  for (let boxes = 0; offset + 8 <= sizeBytes && boxes < 10_000; boxes++) {
    const header = await read(offset, Math.min(offset + 16, sizeBytes));
    if (header.byteLength < 8) return null;
    const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
    let size = view.getUint32(0);
    const type = String.fromCharCode(header[4] ?? 0, header[5] ?? 0, header[6] ?? 0, header[7] ?? 0);
    if (size === 1) {
      if (header.byteLength < 16) return null;
      size = Number(view.getBigUint64(8));
    } else if (size === 0) {
      size = sizeBytes - offset;
    }
    if (size < 8 || offset + size > sizeBytes) return null;
    if (type === 'moov') return size > maxMoovBytes ? null : read(offset, offset + size);
    offset += size;
  }
  return null;
}

/**
 * An image's width and height read from its header with ranged reads, never the whole file: PNG's
 * IHDR, GIF's logical screen, WebP's VP8/VP8L/VP8X chunk (all in the first 30 bytes), and a JPEG's
 * start-of-frame segment, which follows the segments before it (EXIF, ICC profiles: up to 64 KB
 * each), so those are walked a window at a time. null when the header cannot be read (a file that
 * only starts like an image): the caller refuses it as unreadable.
 */

/** Bytes read per window: a JPEG's segments before its frame are mostly within the first one. */
export const IMAGE_WINDOW_BYTES = 64 * 1024;
/** Windows a JPEG's segments may take before the frame: a hostile file is not followed further. */
const MAX_JPEG_WINDOWS = 16;
/** Neither platform takes an image wider or taller than this; larger numbers are a broken header. */
const MAX_SIDE = 100_000;

export interface ImageDimensions {
  width: number;
  height: number;
}

type Read = (start: number, end: number) => Promise<Uint8Array>;

function sized(width: number, height: number): ImageDimensions | null {
  return width > 0 && height > 0 && width <= MAX_SIDE && height <= MAX_SIDE ? { width, height } : null;
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

/** From the first bytes of a PNG, GIF or WebP (at least 30 of them). */
export function headerDimensions(contentType: string, head: Uint8Array): ImageDimensions | null {
  const data = view(head);
  switch (contentType) {
    case 'image/png':
      if (head.byteLength < 24 || ascii(head, 12, 4) !== 'IHDR') return null;
      return sized(data.getUint32(16), data.getUint32(20));
    case 'image/gif':
      if (head.byteLength < 10) return null;
      return sized(data.getUint16(6, true), data.getUint16(8, true));
    case 'image/webp': {
      if (head.byteLength < 30) return null;
      const chunk = ascii(head, 12, 4);
      if (chunk === 'VP8 ') return sized(data.getUint16(26, true) & 0x3fff, data.getUint16(28, true) & 0x3fff);
      if (chunk === 'VP8L') {
        const [b0 = 0, b1 = 0, b2 = 0, b3 = 0] = head.subarray(21, 25);
        return sized(1 + (((b1 & 0x3f) << 8) | b0), 1 + (((b3 & 0x0f) << 10) | (b2 << 2) | ((b1 & 0xc0) >> 6)));
      }
      if (chunk === 'VP8X') {
        const u24 = (at: number) => (head[at] ?? 0) | ((head[at + 1] ?? 0) << 8) | ((head[at + 2] ?? 0) << 16);
        return sized(1 + u24(24), 1 + u24(27));
      }
      return null;
    }
    default:
      return null;
  }
}

/** SOF markers that carry the frame's size (C4 DHT, C8 JPG and CC DAC are not frames). */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** Walks a JPEG's segments from byte 2 to its start of frame, a window of IMAGE_WINDOW_BYTES at a time. */
async function jpegDimensions(read: Read, sizeBytes: number): Promise<ImageDimensions | null> {
  let offset = 2;
  let windowStart = 0;
  let window = await read(0, Math.min(IMAGE_WINDOW_BYTES, sizeBytes));
  for (let windows = 1; offset + 9 <= sizeBytes; ) {
    if (offset + 9 > windowStart + window.byteLength) {
      if (++windows > MAX_JPEG_WINDOWS) return null;
      windowStart = offset;
      window = await read(offset, Math.min(offset + IMAGE_WINDOW_BYTES, sizeBytes));
      if (window.byteLength < 9) return null;
    }
    const at = offset - windowStart;
    if (window[at] !== 0xff) return null;
    const marker = window[at + 1] ?? 0;
    // Fill bytes before a marker, and markers without a length (TEM, RSTn).
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2;
      continue;
    }
    // End of image or start of scan before any frame: there is no size to read.
    if (marker === 0xd9 || marker === 0xda) return null;
    const data = view(window.subarray(at, at + 9));
    if (isStartOfFrame(marker)) return sized(data.getUint16(7), data.getUint16(5));
    const length = data.getUint16(2);
    if (length < 2) return null;
    offset += 2 + length;
  }
  return null;
}

/** Width and height of a stored image of `contentType` (one of the library's image types), or null. */
export async function imageDimensions(read: Read, sizeBytes: number, contentType: string): Promise<ImageDimensions | null> {
  if (contentType === 'image/jpeg') return jpegDimensions(read, sizeBytes);
  return headerDimensions(contentType, await read(0, Math.min(30, sizeBytes)));
}

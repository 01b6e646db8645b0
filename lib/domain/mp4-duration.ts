/**
 * Reads a video's duration from its MP4/QuickTime `moov/mvhd` box, so `media add` can record the
 * duration that the per-platform `video_too_long` rule needs without the caller typing it.
 * Returns null when the file is not an MP4 or the box is missing (the caller then must say).
 */
export function mp4DurationSeconds(bytes: Uint8Array): number | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const moov = findBox(view, 0, view.byteLength, 'moov');
  if (!moov) return null;
  const mvhd = findBox(view, moov.contentStart, moov.end, 'mvhd');
  if (!mvhd) return null;
  const at = mvhd.contentStart;
  if (at + 4 > mvhd.end) return null;
  const version = view.getUint8(at);
  let timescale: number;
  let duration: number;
  if (version === 1) {
    if (at + 32 > mvhd.end) return null;
    timescale = view.getUint32(at + 20);
    duration = Number(view.getBigUint64(at + 24));
  } else {
    if (at + 20 > mvhd.end) return null;
    timescale = view.getUint32(at + 12);
    duration = view.getUint32(at + 16);
  }
  if (timescale === 0) return null;
  return Math.round((duration / timescale) * 1000) / 1000;
}

function findBox(view: DataView, start: number, end: number, type: string): { contentStart: number; end: number } | null {
  let offset = start;
  while (offset + 8 <= end) {
    let size = view.getUint32(offset);
    const boxType = String.fromCharCode(
      view.getUint8(offset + 4),
      view.getUint8(offset + 5),
      view.getUint8(offset + 6),
      view.getUint8(offset + 7),
    );
    let header = 8;
    if (size === 1) {
      if (offset + 16 > end) return null;
      size = Number(view.getBigUint64(offset + 8));
      header = 16;
    } else if (size === 0) {
      size = end - offset;
    }
    if (size < header || offset + size > end) return null;
    if (boxType === type) return { contentStart: offset + header, end: offset + size };
    offset += size;
  }
  return null;
}

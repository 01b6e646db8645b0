/**
 * A PDF's page count, read cheaply: from bounded windows at the start and the end of the file,
 * never the whole file (a library PDF may be 100 MB and a settings function has seconds and little
 * memory). The count is the `/Count` of the page tree's root, the `/Type /Pages` dictionary with
 * no `/Parent` (intermediate nodes have one and count only their subtree). Where that root is
 * depends on how the file was written: at the start of a linearized ("fast web view") file, at the
 * end of one saved incrementally, and most often near one end; in a file that keeps its objects in
 * compressed object streams (PDF 1.5+) it cannot be read without inflating them. Then the count is
 * unknown (null), which the library accepts: a PDF is checked by its magic bytes first, and the
 * count is shown and checked only when it is known.
 */

/** Bytes read at each end of the file. */
export const PDF_WINDOW_BYTES = 1024 * 1024;
/** LinkedIn's Documents API takes at most this many pages. */
export const MAX_DOCUMENT_PAGES = 300;

/** Bytes of one object read around a `/Type /Pages` (a page tree node is a short dictionary). */
const NODE_SPAN = 4096;
/**
 * Page tree nodes looked at per window. A real tree of 300 pages has a few dozen; a window stuffed
 * with `/Type /Pages` (a hostile file) is not worth reading at NODE_SPAN bytes each: unknown.
 */
const MAX_NODES = 1000;
const LATIN1 = new TextDecoder('latin1');
const PAGES_TYPE = /\/Type\s*\/Pages(?![A-Za-z0-9])/g;

/**
 * The page count from the windows given (the file's first bytes, and its last ones when the file is
 * larger than the first window), or null when no page tree root is in them. When several roots are
 * found (an incrementally updated file keeps its old revisions), the last one is the current one.
 * Each node is read within NODE_SPAN bytes of its `/Type`, so the work is bounded by
 * MAX_NODES * NODE_SPAN per window whatever the file holds.
 */
export function pdfPageCount(windows: readonly Uint8Array[]): number | null {
  let count: number | null = null;
  for (const window of windows) {
    // A single-byte decoding keeps one character per byte, so binary stream data cannot shift the text around it.
    const text = LATIN1.decode(window);
    let nodes = 0;
    for (const match of text.matchAll(PAGES_TYPE)) {
      if (++nodes > MAX_NODES) return null;
      const at = match.index;
      const from = Math.max(0, at - NODE_SPAN);
      const objectStart = text.slice(from, at).lastIndexOf('obj');
      const ahead = text.slice(at, at + NODE_SPAN);
      const objectEnd = ahead.indexOf('endobj');
      const node = text.slice(objectStart < 0 ? from : from + objectStart, objectEnd < 0 ? at + ahead.length : at + objectEnd);
      if (/\/Parent(?![A-Za-z0-9])/.test(node)) continue;
      const counted = /\/Count\s+(\d{1,7})(?![0-9])/.exec(node);
      if (counted?.[1] !== undefined) count = Number(counted[1]);
    }
  }
  return count;
}

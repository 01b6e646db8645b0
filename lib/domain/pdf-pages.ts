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
const LATIN1 = new TextDecoder('latin1');
const PAGES_TYPE = /\/Type\s*\/Pages(?![A-Za-z0-9])/g;

/**
 * The page count from the windows given (the file's first bytes, and its last ones when the file is
 * larger than the first window), or null when no page tree root is in them. When several roots are
 * found (an incrementally updated file keeps its old revisions), the last one is the current one.
 */
export function pdfPageCount(windows: readonly Uint8Array[]): number | null {
  let count: number | null = null;
  for (const window of windows) {
    // A single-byte decoding keeps one character per byte, so binary stream data cannot shift the text around it.
    const text = LATIN1.decode(window);
    for (const match of text.matchAll(PAGES_TYPE)) {
      const at = match.index;
      const start = Math.max(text.lastIndexOf('obj', at), at - NODE_SPAN, 0);
      const endAt = text.indexOf('endobj', at);
      const end = endAt < 0 ? Math.min(text.length, at + NODE_SPAN) : Math.min(endAt, at + NODE_SPAN);
      const node = text.slice(start, end);
      if (/\/Parent(?![A-Za-z0-9])/.test(node)) continue;
      const counted = /\/Count\s+(\d{1,7})(?![0-9])/.exec(node);
      if (counted?.[1] !== undefined) count = Number(counted[1]);
    }
  }
  return count;
}

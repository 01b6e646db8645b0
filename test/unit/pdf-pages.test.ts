/** A PDF's page count from bounded windows (lib/domain/pdf-pages.ts): the page tree root's /Count, or null. */
import { describe, expect, it } from 'vitest';
import { PDF_WINDOW_BYTES, pdfPageCount } from '../../lib/domain/pdf-pages.js';
import { pdf } from '../support/pdf.js';

describe('pdfPageCount', () => {
  it('reads the root /Count of a small PDF', () => {
    expect(pdfPageCount([pdf(1)])).toBe(1);
    expect(pdfPageCount([pdf(12)])).toBe(12);
  });

  it('takes the root (no /Parent), not an intermediate node', () => {
    const bytes = pdf(7, { intermediate: true });
    expect(bytes.toString('latin1')).toMatch(/\/Type \/Pages \/Parent/);
    expect(pdfPageCount([bytes])).toBe(7);
  });

  it('a page tree beyond the first window is found in the last one; between them it is unknown', () => {
    const bytes = pdf(4, { padding: PDF_WINDOW_BYTES + 1000 });
    expect(pdfPageCount([bytes.subarray(0, PDF_WINDOW_BYTES)])).toBeNull();
    expect(pdfPageCount([bytes.subarray(0, PDF_WINDOW_BYTES), bytes.subarray(bytes.length - PDF_WINDOW_BYTES)])).toBe(4);
  });

  it('an incrementally updated file: the last root is the current revision', () => {
    const updated = Buffer.concat([pdf(2), Buffer.from('9 0 obj\n<< /Type /Pages /Kids [] /Count 5 >>\nendobj\n%%EOF\n', 'latin1')]);
    expect(pdfPageCount([updated])).toBe(5);
  });

  it('no readable page tree (objects in compressed streams): null, never a guess', () => {
    const compressed = Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /ObjStm /N 3 /First 20 /Filter /FlateDecode /Length 4 >>\nstream\n\u0078\u009c\u0003\u0000\nendstream\nendobj\n%%EOF\n', 'latin1');
    expect(pdfPageCount([compressed])).toBeNull();
    // "/Type /Page" objects alone are not counted: they may be only some of them.
    expect(pdfPageCount([Buffer.from('%PDF-1.4\n4 0 obj << /Type /Page /Parent 3 0 R >> endobj', 'latin1')])).toBeNull();
  });

  it('a window stuffed with page tree nodes (a hostile file) is not read node by node: unknown', () => {
    const stuffed = Buffer.from(`%PDF-1.4\n${'1 0 obj << /Type /Pages /Count 3 >> endobj\n'.repeat(2000)}`, 'latin1');
    expect(pdfPageCount([stuffed])).toBeNull();
    // A handful of roots is still read.
    expect(pdfPageCount([Buffer.from(`%PDF-1.4\n${'1 0 obj << /Type /Pages /Count 3 >> endobj\n'.repeat(5)}`, 'latin1')])).toBe(3);
  });
});

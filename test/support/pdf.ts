/**
 * Small real PDFs for the tests: a catalog, a page tree and its pages, a cross-reference table
 * with true offsets and a trailer, so a PDF reader opens them. `padding` adds an uncompressed
 * stream of that many bytes before the page tree (a big file whose page tree sits at its end).
 * `intermediate` splits the pages under two intermediate /Pages nodes (each with a /Parent and
 * the count of its half only).
 */
export function pdf(pages: number, options: { padding?: number; intermediate?: boolean } = {}): Buffer {
  const objects: string[] = [];
  const add = (body: string): number => objects.push(body);
  add('<< /Type /Catalog /Pages 3 0 R >>');
  add(`<< /Length ${options.padding ?? 0} >>\nstream\n${'x'.repeat(options.padding ?? 0)}\nendstream`);
  const root = add('');
  const halves = options.intermediate ? [add(''), add('')] : [];
  const kids: number[] = [];
  for (let i = 0; i < pages; i++) {
    const parent = halves.length === 0 ? root : (halves[i < pages / 2 ? 0 : 1] as number);
    kids.push(add(`<< /Type /Page /Parent ${parent} 0 R /MediaBox [0 0 612 792] >>`));
  }
  const refs = (ids: number[]) => ids.map((id) => `${id} 0 R`).join(' ');
  if (halves.length === 2) {
    const first = kids.slice(0, Math.ceil(pages / 2));
    const second = kids.slice(first.length);
    objects[root - 1] = `<< /Type /Pages /Kids [${refs(halves)}] /Count ${pages} >>`;
    objects[(halves[0] as number) - 1] = `<< /Type /Pages /Parent ${root} 0 R /Kids [${refs(first)}] /Count ${first.length} >>`;
    objects[(halves[1] as number) - 1] = `<< /Type /Pages /Parent ${root} 0 R /Kids [${refs(second)}] /Count ${second.length} >>`;
  } else {
    objects[root - 1] = `<< /Type /Pages /Kids [${refs(kids)}] /Count ${pages} >>`;
  }
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

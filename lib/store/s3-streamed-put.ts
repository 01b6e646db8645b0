/**
 * One object written from a stream of unknown length, never held whole: the bytes are gathered
 * into parts of PART_BYTES and each part goes out as it fills (S3 multipart upload, signed plain
 * requests as every media request here, s3-signed-requests.ts), so at most one part is in memory
 * besides the chunk being read. The parts go with an unsigned payload (over TLS; the signature
 * still covers everything else), so no part is hashed in memory before it is sent. A stream that
 * ends within one part is one PutObject. An upload
 * that fails half way is aborted, so no parts are left to bill.
 *
 * A module of its own: only the media import worker writes a stream (lib/use-cases/media-import.ts).
 */
import { S3RequestError, UNSIGNED_PAYLOAD, type S3SignedRequests } from './s3-signed-requests.js';

/** S3's least part is 5 MiB (but for the last); the local S3 emulator takes at most 11 MiB in one request. */
export const PART_BYTES = 8 * 1024 * 1024;

function xmlValue(xml: string, tag: string): string | null {
  return new RegExp(`<${tag}>([^<]{1,1024})</${tag}>`).exec(xml)?.[1] ?? null;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * Gathers chunks into whole parts (the last may be shorter), copying each byte once, into two
 * buffers used in turn: at most two parts are ever out at once (the first two, read before the
 * upload starts), and a part is refilled only once the caller asked for the one after the next,
 * so after its send. A new buffer per part left every sent one for the collector: a 200 MB file
 * held a hundred megabytes of them at its peak (docs/performance.md, "Media imports").
 */
async function* parts(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const buffers = [new Uint8Array(PART_BYTES), new Uint8Array(PART_BYTES)];
  let turn = 0;
  let part = buffers[turn]!;
  let filled = 0;
  for await (const chunk of chunks) {
    let offset = 0;
    while (offset < chunk.byteLength) {
      const taken = Math.min(PART_BYTES - filled, chunk.byteLength - offset);
      part.set(chunk.subarray(offset, offset + taken), filled);
      filled += taken;
      offset += taken;
      if (filled === PART_BYTES) {
        yield part;
        turn = 1 - turn;
        part = buffers[turn]!;
        filled = 0;
      }
    }
  }
  if (filled > 0) yield part.subarray(0, filled);
}

export interface StreamedPutOptions {
  /**
   * Called after each part of a multipart write is sent. The import worker collects garbage there:
   * the chunks a part was gathered from are garbage once it is sent, and V8 otherwise collects them
   * only after tens of megabytes more of them (docs/performance.md, "Media imports").
   */
  afterPart?: () => void;
}

/** Writes the stream under `objectKey` with `contentType`; returns the bytes written. */
export async function putStreamedObject(
  s3: S3SignedRequests,
  objectKey: string,
  contentType: string,
  chunks: AsyncIterable<Uint8Array>,
  options: StreamedPutOptions = {},
): Promise<number> {
  const iterator = parts(chunks)[Symbol.asyncIterator]();
  const first = await iterator.next();
  const firstPart = first.done ? new Uint8Array(0) : first.value;
  const second = first.done ? first : await iterator.next();
  if (second.done) {
    await s3.send('PUT', objectKey, { headers: { 'content-type': contentType, 'x-amz-content-sha256': UNSIGNED_PAYLOAD }, body: firstPart, accept: [200] }, async (response) => {
      await response.body?.cancel();
    });
    return firstPart.byteLength;
  }
  const uploadId = await s3.send('POST', objectKey, { headers: { 'content-type': contentType }, query: { uploads: '' }, accept: [200] }, async (response) => {
    const id = xmlValue(await response.text(), 'UploadId');
    if (id === null) throw new S3RequestError(500, 'NoUploadId');
    return id;
  });
  const written: { number: number; etag: string }[] = [];
  let bytes = 0;
  try {
    const send = async (number: number, body: Uint8Array): Promise<void> => {
      const etag = await s3.send('PUT', objectKey, { headers: { 'x-amz-content-sha256': UNSIGNED_PAYLOAD }, query: { partNumber: String(number), uploadId }, body, accept: [200] }, async (response) => {
        await response.body?.cancel();
        return response.headers.get('etag') ?? '';
      });
      written.push({ number, etag });
      bytes += body.byteLength;
      options.afterPart?.();
    };
    await send(1, firstPart);
    await send(2, second.value);
    for (let next = await iterator.next(), number = 3; !next.done; next = await iterator.next(), number++) await send(number, next.value);
    const manifest = `<CompleteMultipartUpload>${written.map((part) => `<Part><PartNumber>${part.number}</PartNumber><ETag>${escapeXml(part.etag)}</ETag></Part>`).join('')}</CompleteMultipartUpload>`;
    await s3.send('POST', objectKey, { headers: { 'content-type': 'application/xml' }, query: { uploadId }, body: manifest, accept: [200] }, async (response) => {
      // S3 may answer 200 and still fail the completion (an <Error> in the body).
      const answer = await response.text();
      if (!answer.includes('CompleteMultipartUploadResult')) throw new S3RequestError(500, xmlValue(answer, 'Code') ?? 'CompleteFailed');
    });
    return bytes;
  } catch (error) {
    await s3.send('DELETE', objectKey, { query: { uploadId }, accept: [204, 200, 404] }, async (response) => response.body?.cancel()).catch(() => undefined);
    throw error;
  }
}

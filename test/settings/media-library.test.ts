/**
 * The settings media library against the local stack's media bucket (fauxqs S3), the local
 * browser-upload stand-in that checks presigned POST policies (local/s3-browser-upload.ts) and
 * DynamoDB Local: prepare -> the browser's multipart POST -> register -> list -> delete, and every
 * way an upload can be refused (by the policy, or when registering).
 */
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { ENV, requireEnv } from '../../lib/config.js';
import { MEDIA_STORAGE_QUOTA_BYTES, mediaIdFromUrl } from '../../lib/domain/media-library.js';
import { DynamoDbMediaLibraryStore } from '../../lib/store/dynamodb-media-library.js';
import { S3MediaUploads } from '../../lib/store/s3-media-uploads.js';
import { MediaLibrary } from '../../lib/use-cases/settings/media-library.js';
import { browserPost, PNG_1X1 } from '../support/connect.js';
import { pdf } from '../support/pdf.js';
import { PDF_WINDOW_BYTES } from '../../lib/domain/pdf-pages.js';
import { provisionUser } from '../support/provision.js';
import { startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let library: MediaLibrary;
let storage: S3MediaUploads;

beforeAll(async () => {
  stack = await startTestStack();
  storage = new S3MediaUploads();
  library = new MediaLibrary({ storage, library: new DynamoDbMediaLibraryStore(), mediaBaseUrl: () => requireEnv(ENV.mediaBaseUrl) });
});
afterAll(() => stack?.stop());

const PNG = PNG_1X1;

function box(type: string, content: Uint8Array): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + content.byteLength, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, content]);
}

/** A minimal MP4: ftyp, mdat, then moov/mvhd at the end (as many encoders write it), 12.5 s long. */
function mp4(seconds: number): Buffer {
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(1000, 12); // timescale
  mvhd.writeUInt32BE(Math.round(seconds * 1000), 16); // duration
  return Buffer.concat([box('ftyp', Buffer.from('isom\0\0\0\0isomavc1', 'latin1')), box('mdat', Buffer.alloc(5000, 7)), box('moov', box('mvhd', mvhd))]);
}

describe('uploading to the media library', () => {
  it('a presigned POST puts the image under the incoming prefix, never served; registering moves it out and makes the URL POST /posts takes', async () => {
    const user = await provisionUser();
    const prepared = await library.prepare(user.userId, { fileName: 'Holiday photo.PNG', contentType: 'image/png', sizeBytes: PNG.byteLength });
    expect(prepared.objectKey).toBe(`incoming/${user.userId}/${prepared.mediaId}/Holiday-photo.PNG`);
    expect(prepared.upload.fields.key).toBe(prepared.objectKey);
    expect(prepared.upload.fields['Content-Type']).toBe('image/png');
    const posted = await browserPost(prepared.upload, PNG);
    expect(posted.status).toBe(204);
    // Uploaded but not registered: not served (on AWS the bucket policy refuses it to the CDN).
    expect((await fetch(`${requireEnv(ENV.mediaBaseUrl)}/${prepared.objectKey}`)).status).toBe(404);

    const item = await library.register(user.userId, prepared.objectKey);
    expect(item).toMatchObject({ id: prepared.mediaId, userId: user.userId, contentType: 'image/png', sizeBytes: PNG.byteLength, durationSeconds: null });
    expect(item.objectKey).toBe(`${user.userId}/${prepared.mediaId}/Holiday-photo.PNG`);
    expect(item.url).toBe(`${requireEnv(ENV.mediaBaseUrl)}/${item.objectKey}`);
    // Moved, not copied: nothing is left under incoming/.
    expect(await storage.head(prepared.objectKey)).toBeNull();
    expect(mediaIdFromUrl(item.url, requireEnv(ENV.mediaBaseUrl))).toBe(item.id);
    // Registering again (a reload) keeps the one item.
    expect(await library.register(user.userId, prepared.objectKey)).toEqual(item);
    expect(await library.list(user.userId)).toEqual([item]);
    // The media URL serves the bytes (the thumbnail on the page).
    const served = await fetch(item.url);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
    // Never sniffed as another type, and inert when opened on its own (the CDN's headers on AWS).
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(served.headers.get('content-type')).toBe('image/png');
  });

  it('reads an MP4 duration from its moov box at the end of the file', async () => {
    const user = await provisionUser();
    const video = mp4(12.5);
    const prepared = await library.prepare(user.userId, { fileName: 'clip.mp4', contentType: 'video/mp4', sizeBytes: video.byteLength });
    expect((await browserPost(prepared.upload, video)).status).toBe(204);
    expect(await library.register(user.userId, prepared.objectKey)).toMatchObject({ contentType: 'video/mp4', durationSeconds: 12.5 });
  });

  it('the POST policy refuses a bigger file, another type, another key and a tampered policy', async () => {
    const user = await provisionUser();
    const prepared = await library.prepare(user.userId, { fileName: 'a.png', contentType: 'image/png', sizeBytes: PNG.byteLength });
    const tooBig = await browserPost(prepared.upload, Buffer.alloc(5 * 1024 * 1024 + 1, 1));
    expect(tooBig.status).toBe(400);
    expect(tooBig.text).toContain('EntityTooLarge');
    expect((await browserPost(prepared.upload, PNG, { 'Content-Type': 'text/html' })).status).toBe(403);
    expect((await browserPost(prepared.upload, PNG, { key: `${user.userId}/med_AAAAAAAAAAAAAAAAAAAA/x.png` })).status).toBe(403);
    const policy = JSON.parse(Buffer.from(prepared.upload.fields.Policy ?? '', 'base64').toString('utf8')) as { conditions: unknown[] };
    policy.conditions = policy.conditions.filter((condition) => !(Array.isArray(condition) && condition[0] === 'content-length-range'));
    const tampered = await browserPost(prepared.upload, PNG, { Policy: Buffer.from(JSON.stringify(policy)).toString('base64') });
    expect(tampered.status).toBe(403);
    expect(tampered.text).toContain('SignatureDoesNotMatch');
    expect((await browserPost(prepared.upload, PNG, { 'x-extra': 'field' })).status).toBe(403);
    await expect(library.register(user.userId, prepared.objectKey)).rejects.toMatchObject({ code: 'upload_not_found' });
  });

  it('refuses an unsupported or oversized declaration before presigning', async () => {
    const user = await provisionUser();
    // Each refusal in a person's words: kinds of files, never MIME types.
    await expect(library.prepare(user.userId, { fileName: 'a.svg', contentType: 'image/svg+xml', sizeBytes: 10 })).rejects.toMatchObject({
      code: 'unsupported_media_type',
      message: 'This kind of file cannot be posted. You can upload a JPEG image up to 5 MB, a PNG image up to 5 MB, a WebP image up to 5 MB, a GIF image up to 15 MB, an MP4 video up to 500 MB or a PDF document up to 100 MB.',
    });
    await expect(library.prepare(user.userId, { fileName: 'a.png', contentType: 'image/png', sizeBytes: 6 * 1024 * 1024 })).rejects.toMatchObject({
      code: 'media_too_large',
      message: 'The file is too large: a PNG image up to 5 MB is accepted.',
    });
    await expect(library.prepare(user.userId, { fileName: 'a.png', contentType: 'image/png', sizeBytes: 0 })).rejects.toMatchObject({ code: 'media_empty' });
  });

  it('registering checks the bytes: a file that is not what it claims is refused and deleted', async () => {
    const user = await provisionUser();
    const prepared = await library.prepare(user.userId, { fileName: 'fake.png', contentType: 'image/png', sizeBytes: 20 });
    expect((await browserPost(prepared.upload, Buffer.from('<script>alert(1)</script>'))).status).toBe(204);
    await expect(library.register(user.userId, prepared.objectKey)).rejects.toMatchObject({ code: 'media_type_mismatch', message: expect.stringMatching(/^The file is not really a PNG image: /) });
    expect(await storage.head(prepared.objectKey)).toBeNull();
    expect(await library.list(user.userId)).toEqual([]);
  });

  it('only the owner registers, lists and deletes; deleting removes the object and the item', async () => {
    const owner = await provisionUser();
    const other = await provisionUser();
    const prepared = await library.prepare(owner.userId, { fileName: 'a.png', contentType: 'image/png', sizeBytes: PNG.byteLength });
    await browserPost(prepared.upload, PNG);
    await expect(library.register(other.userId, prepared.objectKey)).rejects.toMatchObject({ code: 'upload_not_found' });
    await expect(library.register(owner.userId, `${owner.userId}/../${prepared.mediaId}/a.png`)).rejects.toMatchObject({ code: 'upload_not_found' });
    // Only an upload under incoming/ is registered, never a served key.
    await expect(library.register(owner.userId, prepared.objectKey.slice('incoming/'.length))).rejects.toMatchObject({ code: 'upload_not_found' });
    const item = await library.register(owner.userId, prepared.objectKey);
    expect(await library.list(other.userId)).toEqual([]);
    await expect(library.remove(other.userId, item.id)).rejects.toMatchObject({ code: 'media_not_found' });
    await library.remove(owner.userId, item.id);
    expect(await library.list(owner.userId)).toEqual([]);
    expect(await storage.head(item.objectKey)).toBeNull();
    expect((await fetch(item.url)).status).toBe(404);
  });
});

describe('PDFs (issue 22 item 5)', () => {
  async function upload(userId: string, fileName: string, bytes: Buffer) {
    const prepared = await library.prepare(userId, { fileName, contentType: 'application/pdf', sizeBytes: bytes.byteLength });
    expect((await browserPost(prepared.upload, bytes)).status).toBe(204);
    return prepared;
  }

  it('a real PDF goes through the presigned upload, is registered with its page count, listed and served', async () => {
    const user = await provisionUser();
    const bytes = pdf(3);
    const prepared = await upload(user.userId, 'Annual report.pdf', bytes);
    expect(prepared.objectKey).toBe(`incoming/${user.userId}/${prepared.mediaId}/Annual-report.pdf`);
    const item = await library.register(user.userId, prepared.objectKey);
    expect(item).toMatchObject({ contentType: 'application/pdf', sizeBytes: bytes.byteLength, durationSeconds: null, pageCount: 3 });
    expect(await library.list(user.userId)).toEqual([item]);
    const served = await fetch(item.url);
    expect(served.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(bytes);
  });

  it('a big PDF whose page tree is at its end: counted from the last window, without reading the middle', async () => {
    const user = await provisionUser();
    const bytes = pdf(5, { padding: 2 * PDF_WINDOW_BYTES });
    const item = await library.register(user.userId, (await upload(user.userId, 'big.pdf', bytes)).objectKey);
    expect(item.pageCount).toBe(5);
  });

  it('a PDF whose pages cannot be read cheaply is taken, its count unknown', async () => {
    const user = await provisionUser();
    const bytes = Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /ObjStm /N 3 /First 20 /Length 0 >>\nstream\n\nendstream\nendobj\n%%EOF\n', 'latin1');
    const item = await library.register(user.userId, (await upload(user.userId, 'compressed.pdf', bytes)).objectKey);
    expect(item.contentType).toBe('application/pdf');
    expect(item.pageCount).toBeUndefined();
    expect((await library.list(user.userId))[0]?.pageCount).toBeUndefined();
  });

  it('a file named .pdf that is not a PDF is refused and deleted', async () => {
    const user = await provisionUser();
    const prepared = await upload(user.userId, 'invoice.pdf', Buffer.from('<html><body>not a pdf</body></html>'));
    await expect(library.register(user.userId, prepared.objectKey)).rejects.toMatchObject({
      code: 'media_type_mismatch',
      message: expect.stringMatching(/^The file is not really a PDF document: /),
    });
    expect(await storage.head(prepared.objectKey)).toBeNull();
    expect(await library.list(user.userId)).toEqual([]);
  });

  it('over 300 pages (LinkedIn\'s limit) is refused when registering', async () => {
    const user = await provisionUser();
    const prepared = await upload(user.userId, 'long.pdf', pdf(301));
    await expect(library.register(user.userId, prepared.objectKey)).rejects.toMatchObject({ code: 'media_unreadable', message: expect.stringContaining('301 pages') });
    expect(await storage.head(prepared.objectKey)).toBeNull();
  });

  it('over 100 MB is refused from its declared size, before any byte is sent; the policy bounds it too', async () => {
    const user = await provisionUser();
    await expect(library.prepare(user.userId, { fileName: 'huge.pdf', contentType: 'application/pdf', sizeBytes: 100_000_001 })).rejects.toMatchObject({
      code: 'media_too_large',
      message: 'The file is too large: a PDF document up to 100 MB is accepted.',
    });
    const prepared = await library.prepare(user.userId, { fileName: 'exact.pdf', contentType: 'application/pdf', sizeBytes: 100_000_000 });
    const policy = JSON.parse(Buffer.from(prepared.upload.fields.Policy ?? prepared.upload.fields.policy ?? '', 'base64').toString('utf8')) as { conditions: unknown[] };
    expect(policy.conditions).toContainEqual(['content-length-range', 1, 100_000_000]);
  });
});

describe('uploading from a plain HTML form', () => {
  it('with no file name or size, the key is named by the type and S3 sends the browser back to settings', async () => {
    const user = await provisionUser();
    const back = 'http://127.0.0.1:9/settings/media/uploaded';
    const prepared = await library.prepare(user.userId, { contentType: 'image/jpeg', successRedirect: back });
    expect(prepared.objectKey).toBe(`incoming/${user.userId}/${prepared.mediaId}/image.jpg`);
    const form = new FormData();
    for (const [name, value] of Object.entries(prepared.upload.fields)) form.append(name, value);
    // A JPEG's start and its frame header (2 x 1 pixels): enough for the type and the size checks.
    const photo = Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x01, 0x00, 0x02, 0x01, 0x01, 0x11, 0x00, 0xff, 0xd9]);
    form.append('file', new Blob([photo]), 'photo.jpg');
    const answer = await fetch(prepared.upload.url, { method: 'POST', body: form, redirect: 'manual' });
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(back);
    expect(location.searchParams.get('key')).toBe(prepared.objectKey);
    expect(await library.register(user.userId, location.searchParams.get('key') ?? '')).toMatchObject({ contentType: 'image/jpeg', sizeBytes: photo.byteLength, width: 2, height: 1 });
  });
});

describe('the storage quota (issue 19 item 7)', () => {
  const directory = () => DynamoDBDocumentClient.from(dynamoDbClientFor(inject('localAws').dynamodbEndpoint, { retries: 'standard' }));
  async function setStoredBytes(userId: string, bytes: number): Promise<void> {
    await directory().send(
      new UpdateCommand({ TableName: stack.tables.directory, Key: { pk: `USER#${userId}`, sk: 'PROFILE' }, UpdateExpression: 'SET mediaBytes = :bytes', ExpressionAttributeValues: { ':bytes': bytes } }),
    );
  }

  it('counts registered bytes and gives them back on delete', async () => {
    const user = await provisionUser();
    const store = new DynamoDbMediaLibraryStore();
    const prepared = await library.prepare(user.userId, { fileName: 'a.png', contentType: 'image/png', sizeBytes: PNG.byteLength });
    await browserPost(prepared.upload, PNG);
    const item = await library.register(user.userId, prepared.objectKey);
    expect(await store.storedBytes(user.userId)).toBe(PNG.byteLength);
    await library.remove(user.userId, item.id);
    await library.remove(user.userId, item.id).catch(() => undefined);
    expect(await store.storedBytes(user.userId)).toBe(0);
  });

  it('is checked when signing: a declared size that does not fit is refused, and the policy bounds an undeclared one by what is left', async () => {
    const user = await provisionUser();
    await setStoredBytes(user.userId, MEDIA_STORAGE_QUOTA_BYTES - 10);
    await expect(library.prepare(user.userId, { fileName: 'a.png', contentType: 'image/png', sizeBytes: PNG.byteLength })).rejects.toMatchObject({ code: 'media_storage_full' });
    const prepared = await library.prepare(user.userId, { contentType: 'image/png' });
    expect((await browserPost(prepared.upload, PNG)).status).toBe(400);
    await setStoredBytes(user.userId, MEDIA_STORAGE_QUOTA_BYTES);
    await expect(library.prepare(user.userId, { contentType: 'image/png' })).rejects.toMatchObject({ code: 'media_storage_full' });
  });

  it('is checked again, atomically, when registering: of two uploads racing for the last room, one is registered, the other refused and deleted', async () => {
    const user = await provisionUser();
    const [first, second] = [
      await library.prepare(user.userId, { fileName: 'a.png', contentType: 'image/png', sizeBytes: PNG.byteLength }),
      await library.prepare(user.userId, { fileName: 'b.png', contentType: 'image/png', sizeBytes: PNG.byteLength }),
    ];
    await browserPost(first!.upload, PNG);
    await browserPost(second!.upload, PNG);
    // Room for one of them only, taken after both were signed.
    await setStoredBytes(user.userId, MEDIA_STORAGE_QUOTA_BYTES - PNG.byteLength);
    const results = await Promise.allSettled([library.register(user.userId, first!.objectKey), library.register(user.userId, second!.objectKey)]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((result) => result.status === 'rejected');
    expect(refused?.status === 'rejected' ? refused.reason : null).toMatchObject({ code: 'media_storage_full' });
    expect(await new DynamoDbMediaLibraryStore().storedBytes(user.userId)).toBe(MEDIA_STORAGE_QUOTA_BYTES);
    expect(await library.list(user.userId)).toHaveLength(1);
    for (const prepared of [first!, second!]) {
      expect(await storage.head(prepared.objectKey)).toBeNull();
    }
  });
});

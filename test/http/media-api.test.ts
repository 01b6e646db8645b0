/**
 * /api/v1/media through HTTP against the local stack (DynamoDB Local, the S3 emulator, and the
 * stand-in that checks presigned PUT signatures as S3 does), every answer checked against
 * openapi.yaml: an upload's create -> PUT -> complete for an image, a video and a PDF; a PUT that
 * lies about its size or type; bytes that are not what was declared; every error code; the quota;
 * the Idempotency-Key; scopes and tenant isolation both ways; a delete refused while a post uses
 * the file; a complete raced against a second complete and against a delete; one library with
 * settings.
 */
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { ENV, requireEnv } from '../../lib/config.js';
import { MEDIA_STORAGE_QUOTA_BYTES } from '../../lib/domain/media-library.js';
import { DynamoDbMediaLibraryStore } from '../../lib/store/dynamodb-media-library.js';
import { S3MediaUploads } from '../../lib/store/s3-media-uploads.js';
import type { MediaView } from '../../lib/use-cases/media-files.js';
import { MediaLibrary } from '../../lib/use-cases/settings/media-library.js';
import { browserPost, PNG_1X1 } from '../support/connect.js';
import { documentedApi } from '../support/openapi.js';
import { pdf } from '../support/pdf.js';
import { minutesFromNow, startPostsStack } from '../support/posts.js';
import { provisionUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

interface ErrorBody {
  error: { type: string; code: string; message: string; param: string | null };
}
/** The API's media object, as the use case shapes it; openapi.yaml checks every answer against the contract. */
type Media = MediaView;
interface MediaUpload extends Media {
  upload: { url: string; method: 'PUT'; headers: Record<string, string>; expiresAt: string } | null;
}
interface MediaList {
  media: Media[];
  nextCursor: string | null;
}

let stack: TestStack;
let storage: S3MediaUploads;
let documents: DynamoDBDocumentClient;

beforeAll(async () => {
  stack = await startPostsStack();
  storage = new S3MediaUploads();
  documents = DynamoDBDocumentClient.from(dynamoDbClientFor(stack.info.dynamodbEndpoint, { retries: 'standard' }));
});
afterAll(() => stack?.stop());

async function newCustomer(options: Parameters<typeof provisionUser>[0] = {}) {
  const user = await provisionUser(options);
  return { ...user, api: documentedApi(stack.baseUrl, user.apiKey) };
}

function box(type: string, content: Uint8Array): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + content.byteLength, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, content]);
}

/** A minimal MP4 with moov/mvhd after its mdat (as many encoders write it). */
function mp4(seconds: number, withMoov = true, mdatBytes = 5000): Buffer {
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(1000, 12);
  mvhd.writeUInt32BE(Math.round(seconds * 1000), 16);
  const parts = [box('ftyp', Buffer.from('isom\0\0\0\0isomavc1', 'latin1')), box('mdat', Buffer.alloc(mdatBytes, 7))];
  if (withMoov) parts.push(box('moov', box('mvhd', mvhd)));
  return Buffer.concat(parts);
}

/** A JPEG whose frame (640 x 480) follows a 3,000-byte EXIF segment. */
function jpeg(): Buffer {
  const app1 = Buffer.alloc(4 + 3000, 0);
  app1.writeUInt16BE(0xffe1, 0);
  app1.writeUInt16BE(3002, 2);
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app1, sof, Buffer.from([0xff, 0xd9])]);
}

function put(upload: NonNullable<MediaUpload['upload']>, bytes: Uint8Array, headers: Record<string, string> = upload.headers): Promise<Response> {
  return fetch(upload.url, { method: 'PUT', headers, body: bytes });
}

type Api = Awaited<ReturnType<typeof newCustomer>>['api'];

async function upload(api: Api, fileName: string, contentType: string, bytes: Uint8Array, extra: Record<string, unknown> = {}): Promise<{ created: MediaUpload; completed: { status: number; body: Media & ErrorBody } }> {
  const created = await api.post<MediaUpload>('/media', { fileName, contentType, size: bytes.byteLength, ...extra });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect((await put(created.body.upload!, bytes)).status).toBe(200);
  const completed = await api.post<Media & ErrorBody>(`/media/${created.body.id}/complete`);
  return { created: created.body, completed };
}

describe('uploading through the API', () => {
  it('create -> PUT -> complete makes a ready PNG with its size, served at its URL, listed, and usable in a post', async () => {
    const { api } = await newCustomer({ accounts: [{ platform: 'x' }] });
    const created = await api.post<MediaUpload>('/media', { fileName: 'Chart of the day.png', contentType: 'image/png', size: PNG_1X1.byteLength, altText: 'A chart' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'media', status: 'pending', url: null, fileName: 'Chart of the day.png', contentType: 'image/png', size: PNG_1X1.byteLength, altText: 'A chart', error: null });
    expect(created.body.upload).toMatchObject({ method: 'PUT', headers: { 'Content-Type': 'image/png', 'Content-Length': String(PNG_1X1.byteLength) } });
    expect(Date.parse(created.body.upload!.expiresAt) - Date.now()).toBeGreaterThan(59 * 60 * 1000);
    // Not ready: its would-be URL is not a file a post may use.
    expect((await put(created.body.upload!, PNG_1X1)).status).toBe(200);
    const completed = await api.post<Media>(`/media/${created.body.id}/complete`);
    expect(completed.status).toBe(200);
    expect(completed.body).toMatchObject({ id: created.body.id, status: 'ready', width: 1, height: 1, durationSeconds: null, pages: null, altText: 'A chart' });
    expect(completed.body.url).toBe(`${requireEnv(ENV.mediaBaseUrl)}/${(await api.get<Media>(`/media/${created.body.id}`)).body.url!.split('/media/')[1]}`);
    const served = await fetch(completed.body.url!);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG_1X1);
    // Completing again answers it as it is.
    const again = await api.post<Media>(`/media/${created.body.id}/complete`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(completed.body);
    expect((await api.get<MediaList>('/media')).body.media).toEqual([completed.body]);
    expect((await api.get<MediaList>('/media?status=ready')).body.media.map((m) => m.id)).toEqual([created.body.id]);
    expect((await api.get<MediaList>('/media?status=pending')).body.media).toEqual([]);
  });

  it('reads a JPEG\'s size past its EXIF, an MP4\'s duration from moov at the end, and a PDF\'s pages', async () => {
    const { api } = await newCustomer();
    expect((await upload(api, 'photo.jpg', 'image/jpeg', jpeg())).completed.body).toMatchObject({ status: 'ready', width: 640, height: 480 });
    expect((await upload(api, 'clip.mp4', 'video/mp4', mp4(12.5))).completed.body).toMatchObject({ status: 'ready', durationSeconds: 12.5, width: null });
    expect((await upload(api, 'deck.pdf', 'application/pdf', pdf(7))).completed.body).toMatchObject({ status: 'ready', pages: 7 });
  });

  it('a 30 MB video, more than one request of the local S3 emulator takes, uploads, completes and is served whole', async () => {
    const { api } = await newCustomer();
    const video = mp4(61, true, 30 * 1000 * 1000);
    const { completed } = await upload(api, 'long clip.mp4', 'video/mp4', video);
    expect(completed.body).toMatchObject({ status: 'ready', size: video.byteLength, durationSeconds: 61 });
    const served = await fetch(completed.body.url!);
    expect(Buffer.from(await served.arrayBuffer()).equals(video)).toBe(true);
  });

  it('the presigned PUT binds the size and the type: more bytes, fewer bytes or another type are refused, and complete says nothing arrived', async () => {
    const { api } = await newCustomer();
    const created = await api.post<MediaUpload>('/media', { fileName: 'a.png', contentType: 'image/png', size: PNG_1X1.byteLength });
    const target = created.body.upload!;
    const longer = Buffer.concat([PNG_1X1, Buffer.alloc(100)]);
    expect((await put(target, longer, { ...target.headers, 'Content-Length': String(longer.byteLength) })).status).toBe(403);
    expect((await put(target, PNG_1X1.subarray(0, 10), { ...target.headers, 'Content-Length': '10' })).status).toBe(403);
    expect((await put(target, PNG_1X1, { ...target.headers, 'Content-Type': 'text/html' })).status).toBe(403);
    // A signature for another key does not cover this one.
    expect((await fetch(target.url.replace(created.body.id, 'med_AAAAAAAAAAAAAAAAAAAA'), { method: 'PUT', headers: target.headers, body: PNG_1X1 })).status).toBe(403);
    const early = await api.post<ErrorBody>(`/media/${created.body.id}/complete`);
    expect(early.status).toBe(400);
    expect(early.body.error.code).toBe('media_upload_missing');
    expect((await api.get<Media>(`/media/${created.body.id}`)).body.status).toBe('pending');
    // The right PUT still works afterwards.
    expect((await put(target, PNG_1X1)).status).toBe(200);
    expect((await api.post<Media>(`/media/${created.body.id}/complete`)).body.status).toBe('ready');
  });

  it('bytes that are not the declared type, a video without a duration and a PDF over 300 pages fail the media with the code, and their bytes are deleted', async () => {
    const { api, userId } = await newCustomer();
    const cases: Array<[string, string, Buffer, string]> = [
      ['fake.png', 'image/png', Buffer.from('<html><script>alert(1)</script></html>'), 'media_type_mismatch'],
      ['broken.png', 'image/png', Buffer.from('89504e470d0a1a0a', 'hex'), 'media_unreadable'],
      ['nomoov.mp4', 'video/mp4', mp4(3, false), 'media_unreadable'],
      ['long.pdf', 'application/pdf', pdf(301), 'media_unreadable'],
    ];
    for (const [name, type, bytes, code] of cases) {
      const { created, completed } = await upload(api, name, type, bytes);
      expect(completed.status, name).toBe(400);
      expect(completed.body.error.code, name).toBe(code);
      const failed = (await api.get<Media>(`/media/${created.id}`)).body;
      expect(failed).toMatchObject({ status: 'failed', url: null, error: { code } });
      expect(await storage.head(`incoming/${userId}/${created.id}/${name}`)).toBeNull();
      // Completing again gives the same answer.
      expect((await api.post<ErrorBody>(`/media/${created.id}/complete`)).body.error.code).toBe(code);
    }
    expect((await api.get<MediaList>('/media?status=failed')).body.media).toHaveLength(cases.length);
  });

  it('refuses a body of the wrong shape, types the library does not take and files over the type\'s limit, naming the field', async () => {
    const { api } = await newCustomer();
    const cases: Array<[unknown, string, string | null]> = [
      [{ contentType: 'image/png', size: 10 }, 'invalid_media_request', 'fileName'],
      [{ fileName: '', contentType: 'image/png', size: 10 }, 'invalid_media_request', 'fileName'],
      [{ fileName: 'a'.repeat(301), contentType: 'image/png', size: 10 }, 'invalid_media_request', 'fileName'],
      [{ fileName: 'a.png', size: 10 }, 'invalid_media_request', 'contentType'],
      [{ fileName: 'a.png', contentType: 'image/png' }, 'invalid_media_request', 'size'],
      [{ fileName: 'a.png', contentType: 'image/png', size: 0 }, 'invalid_media_request', 'size'],
      [{ fileName: 'a.png', contentType: 'image/png', size: 1.5 }, 'invalid_media_request', 'size'],
      [{ fileName: 'a.png', contentType: 'image/png', size: '10' }, 'invalid_media_request', 'size'],
      [{ fileName: 'a.png', contentType: 'image/png', size: 10, altText: 'x'.repeat(1001) }, 'invalid_media_request', 'altText'],
      [{ fileName: 'a.png', contentType: 'image/png', size: 10, owner: 'me' }, 'invalid_media_request', 'owner'],
      [{ fileName: 'a.svg', contentType: 'image/svg+xml', size: 10 }, 'unsupported_media_type', 'contentType'],
      [{ fileName: 'a.mov', contentType: 'video/quicktime', size: 10 }, 'unsupported_media_type', 'contentType'],
      [{ fileName: 'a.png', contentType: 'image/png', size: 5 * 1024 * 1024 + 1 }, 'media_too_large', 'size'],
      [{ fileName: 'a.mp4', contentType: 'video/mp4', size: 500_000_001 }, 'media_too_large', 'size'],
      [[], 'invalid_body', null],
    ];
    for (const [body, code, param] of cases) {
      const response = await api.post<ErrorBody>('/media', body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.body.error, JSON.stringify(body).slice(0, 80)).toMatchObject({ code, param });
    }
    expect((await api.get<MediaList>('/media')).body.media).toEqual([]);
  });

  it('counts a file against the storage quota only once ready, and refuses what does not fit', async () => {
    const { api, userId } = await newCustomer();
    const pending = await api.post<MediaUpload>('/media', { fileName: 'big.mp4', contentType: 'video/mp4', size: 400_000_000 });
    expect(pending.status).toBe(201);
    expect(await new DynamoDbMediaLibraryStore().storedBytes(userId)).toBe(0);
    const { completed } = await upload(api, 'a.png', 'image/png', PNG_1X1);
    expect(completed.status).toBe(200);
    expect(await new DynamoDbMediaLibraryStore().storedBytes(userId)).toBe(PNG_1X1.byteLength);
    // Nearly full: a create that would not fit is refused, and a complete that no longer fits fails.
    const waiting = await api.post<MediaUpload>('/media', { fileName: 'b.png', contentType: 'image/png', size: PNG_1X1.byteLength });
    expect((await put(waiting.body.upload!, PNG_1X1)).status).toBe(200);
    await documents.send(
      new UpdateCommand({ TableName: requireEnv(ENV.directoryTable), Key: { pk: `USER#${userId}`, sk: 'PROFILE' }, UpdateExpression: 'SET mediaBytes = :full', ExpressionAttributeValues: { ':full': MEDIA_STORAGE_QUOTA_BYTES - 10 } }),
    );
    const refused = await api.post<ErrorBody>('/media', { fileName: 'c.png', contentType: 'image/png', size: 100 });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('media_storage_full');
    const late = await api.post<ErrorBody>(`/media/${waiting.body.id}/complete`);
    expect(late.body.error.code).toBe('media_storage_full');
    expect((await api.get<Media>(`/media/${waiting.body.id}`)).body).toMatchObject({ status: 'failed', error: { code: 'media_storage_full' } });
    expect(await new DynamoDbMediaLibraryStore().storedBytes(userId)).toBe(MEDIA_STORAGE_QUOTA_BYTES - 10);
  });
});

describe('alt text, listing, deleting', () => {
  it('PATCH sets and removes the alt text; anything else is refused', async () => {
    const { api } = await newCustomer();
    const { created } = await upload(api, 'a.png', 'image/png', PNG_1X1);
    const set = await api.request<Media>('PATCH', `/media/${created.id}`, { body: { altText: 'A red square' } });
    expect(set.status).toBe(200);
    expect(set.body.altText).toBe('A red square');
    expect((await api.request<Media>('PATCH', `/media/${created.id}`, { body: { altText: null } })).body.altText).toBeNull();
    for (const body of [{ altText: 'x'.repeat(1001) }, { altText: 3 }, { url: 'https://example.com/x.png' }, {}]) {
      const response = await api.request<ErrorBody>('PATCH', `/media/${created.id}`, { body });
      expect(response.status, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect(response.body.error.code).toBe('invalid_media_request');
    }
  });

  it('lists newest first in pages with a cursor; bad limits, statuses and cursors are refused', async () => {
    const { api } = await newCustomer();
    const ids: string[] = [];
    for (const name of ['1.png', '2.png', '3.png']) ids.push((await api.post<MediaUpload>('/media', { fileName: name, contentType: 'image/png', size: 10 })).body.id);
    const first = await api.get<MediaList>('/media?limit=2');
    expect(first.body.media.map((m) => m.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.nextCursor).not.toBeNull();
    const second = await api.get<MediaList>(`/media?limit=2&cursor=${encodeURIComponent(first.body.nextCursor!)}`);
    expect(second.body.media.map((m) => m.id)).toEqual([ids[0]]);
    expect(second.body.nextCursor).toBeNull();
    const other = await newCustomer();
    const foreignCursor = await other.api.get<ErrorBody>(`/media?limit=2&cursor=${encodeURIComponent(first.body.nextCursor!)}`);
    expect(foreignCursor.body.error.code).toBe('invalid_cursor');
    expect((await api.get<ErrorBody>('/media?limit=0')).body.error.code).toBe('invalid_limit');
    expect((await api.get<ErrorBody>('/media?status=gone')).body.error.code).toBe('invalid_status');
    expect((await api.get<ErrorBody>('/media?colour=red')).body.error.code).toBe('invalid_query');
  });

  it('refuses to delete a file a draft or scheduled post uses (409 media_in_use), then deletes it with its bytes given back', async () => {
    const { api, userId, accounts } = await newCustomer({ accounts: [{ platform: 'x' }] });
    const { completed } = await upload(api, 'a.png', 'image/png', PNG_1X1);
    const post = await api.post<{ posts: Array<{ id: string }> }>('/posts', { accounts: [accounts[0]!.id], text: 'With a chart', media: [completed.body.url], scheduledFor: minutesFromNow(120) });
    expect(post.status).toBe(202);
    const refused = await api.delete<ErrorBody>(`/media/${completed.body.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('media_in_use');
    expect(refused.body.error.message).toMatch(/^1 post /);
    expect((await api.delete(`/posts/${post.body.posts[0]!.id}`)).status).toBe(200);
    const deleted = await api.delete<{ object: string; id: string }>(`/media/${completed.body.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ object: 'media_deleted', id: completed.body.id });
    expect((await api.get<ErrorBody>(`/media/${completed.body.id}`)).status).toBe(404);
    expect((await fetch(completed.body.url!)).status).toBe(404);
    expect(await new DynamoDbMediaLibraryStore().storedBytes(userId)).toBe(0);
  });

  it('a pending file\'s would-be URL is not a file a post may use', async () => {
    const { api, userId, accounts } = await newCustomer({ accounts: [{ platform: 'x' }] });
    const created = await api.post<MediaUpload>('/media', { fileName: 'a.png', contentType: 'image/png', size: PNG_1X1.byteLength });
    await put(created.body.upload!, PNG_1X1);
    const guessed = `${requireEnv(ENV.mediaBaseUrl)}/${userId}/${created.body.id}/a.png`;
    const post = await api.post<ErrorBody>('/posts', { accounts: [accounts[0]!.id], text: 'Too early', media: [guessed] });
    expect(post.status).toBe(400);
    expect(post.body.error.code).toBe('media_not_hosted');
  });
});

describe('who may do what', () => {
  it('writes need the media scope; reading needs read', async () => {
    const reader = await newCustomer({ scopes: ['read'] });
    const writer = await newCustomer({ scopes: ['write', 'publish'] });
    for (const customer of [reader, writer]) {
      const response = await customer.api.post<ErrorBody>('/media', { fileName: 'a.png', contentType: 'image/png', size: 10 });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('insufficient_scope');
    }
    expect((await reader.api.get('/media')).status).toBe(200);
    const media = await newCustomer({ scopes: ['media'] });
    expect((await media.api.post('/media', { fileName: 'a.png', contentType: 'image/png', size: 10 })).status).toBe(201);
  });

  it('another customer\'s media is not found, whatever the operation, and never listed', async () => {
    const owner = await newCustomer();
    const stranger = await newCustomer();
    const { created } = await upload(owner.api, 'a.png', 'image/png', PNG_1X1);
    const pending = await owner.api.post<MediaUpload>('/media', { fileName: 'b.png', contentType: 'image/png', size: PNG_1X1.byteLength });
    await put(pending.body.upload!, PNG_1X1);
    for (const id of [created.id, pending.body.id]) {
      for (const response of [
        await stranger.api.get<ErrorBody>(`/media/${id}`),
        await stranger.api.request<ErrorBody>('PATCH', `/media/${id}`, { body: { altText: 'mine' } }),
        await stranger.api.post<ErrorBody>(`/media/${id}/complete`),
        await stranger.api.delete<ErrorBody>(`/media/${id}`),
      ]) {
        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('media_not_found');
      }
    }
    expect((await stranger.api.get<MediaList>('/media')).body.media).toEqual([]);
    // Untouched: still the owner's, pending one still completes.
    expect((await owner.api.get<Media>(`/media/${created.id}`)).body.altText).toBeNull();
    expect((await owner.api.post<Media>(`/media/${pending.body.id}/complete`)).body.status).toBe('ready');
    expect((await owner.api.get<ErrorBody>('/media/not-an-id')).body.error.code).toBe('media_not_found');
  });
});

describe('retries and races', () => {
  it('a create retried with its Idempotency-Key answers the same media; another body with that key is refused', async () => {
    const { api } = await newCustomer();
    const body = { fileName: 'a.png', contentType: 'image/png', size: PNG_1X1.byteLength };
    const first = await api.request<MediaUpload>('POST', '/media', { body, headers: { 'idempotency-key': 'upload-1' } });
    const second = await api.request<MediaUpload>('POST', '/media', { body, headers: { 'idempotency-key': 'upload-1' } });
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.id).toBe(first.body.id);
    // The replayed upload works.
    expect((await put(second.body.upload!, PNG_1X1)).status).toBe(200);
    const other = await api.request<ErrorBody>('POST', '/media', { body: { ...body, fileName: 'b.png' }, headers: { 'idempotency-key': 'upload-1' } });
    expect(other.status).toBe(422);
    expect((await api.get<MediaList>('/media')).body.media).toHaveLength(1);
    const completed = await api.request<Media>('POST', `/media/${first.body.id}/complete`, { headers: { 'idempotency-key': 'done-1' } });
    const replayed = await api.request<Media>('POST', `/media/${first.body.id}/complete`, { headers: { 'idempotency-key': 'done-1' } });
    expect(replayed.body).toEqual(completed.body);
    expect(replayed.body.status).toBe('ready');
  });

  it('two completes at once both answer the one ready media, counted once', async () => {
    const { api, userId } = await newCustomer();
    const created = await api.post<MediaUpload>('/media', { fileName: 'a.mp4', contentType: 'video/mp4', size: mp4(5).byteLength });
    await put(created.body.upload!, mp4(5));
    const answers = await Promise.all([0, 1, 2].map(() => api.post<Media>(`/media/${created.body.id}/complete`)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.body.url)).size).toBe(1);
    expect(await new DynamoDbMediaLibraryStore().storedBytes(userId)).toBe(mp4(5).byteLength);
    expect((await fetch(answers[0]!.body.url!)).status).toBe(200);
  });

  it('a complete raced against a delete leaves no item, no served file and no bytes counted', async () => {
    const { api, userId } = await newCustomer();
    for (let round = 0; round < 6; round++) {
      const created = await api.post<MediaUpload>('/media', { fileName: 'a.png', contentType: 'image/png', size: PNG_1X1.byteLength });
      await put(created.body.upload!, PNG_1X1);
      const [completed, deleted] = await Promise.all([api.post<Media & ErrorBody>(`/media/${created.body.id}/complete`), api.delete(`/media/${created.body.id}`)]);
      // Ready before the delete, gone, or its bytes already deleted when the complete looked: never a 5xx.
      if (completed.status === 400) expect(completed.body.error.code).toBe('media_upload_missing');
      else expect([200, 404]).toContain(completed.status);
      expect(deleted.status).toBe(200);
      expect((await api.get(`/media/${created.body.id}`)).status).toBe(404);
      expect(await storage.head(`${userId}/${created.body.id}/a.png`)).toBeNull();
      expect(await storage.head(`incoming/${userId}/${created.body.id}/a.png`)).toBeNull();
    }
    expect(await new DynamoDbMediaLibraryStore().storedBytes(userId)).toBe(0);
  });
});

describe('one library', () => {
  it('a file uploaded in settings is listed by the API, and one made through the API is listed in settings', async () => {
    const { api, userId } = await newCustomer();
    const library = new MediaLibrary({ storage, library: new DynamoDbMediaLibraryStore(), mediaBaseUrl: () => requireEnv(ENV.mediaBaseUrl) });
    const prepared = await library.prepare(userId, { fileName: 'from-settings.png', contentType: 'image/png', sizeBytes: PNG_1X1.byteLength });
    expect((await browserPost(prepared.upload, PNG_1X1)).status).toBe(204);
    const fromSettings = await library.register(userId, prepared.objectKey);
    const { completed } = await upload(api, 'from-api.png', 'image/png', PNG_1X1);
    const listed = (await api.get<MediaList>('/media')).body.media;
    expect(listed.map((m) => m.id)).toEqual([completed.body.id, fromSettings.id]);
    expect(listed[1]).toMatchObject({ status: 'ready', url: fromSettings.url, fileName: 'from-settings.png', width: 1, height: 1 });
    expect((await library.list(userId)).map((item) => item.id)).toEqual([completed.body.id, fromSettings.id]);
  });
});

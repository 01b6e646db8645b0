/**
 * POST /api/v1/media with sourceUrl through HTTP against the local stack: the import queue, its
 * worker, the webhook router (media.ready / media.failed, read back through GET /events and
 * delivered to an endpoint) and the sweeper all run; the files come from a server this test runs
 * on 127.0.0.1 (the local stack lets an import fetch loopback http, as it lets webhooks). Every
 * answer is checked against openapi.yaml.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV, requireEnv } from '../../lib/config.js';
import { SqsMediaImportQueue } from '../../lib/dispatch/media-import-queue.js';
import { newId } from '../../lib/domain/ids.js';
import { mediaDueSortKey } from '../../lib/domain/media-import.js';
import type { MediaView } from '../../lib/domain/views/media-view.js';
import { DynamoDbMediaLibraryStore } from '../../lib/store/dynamodb-media-library.js';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { sqsClientFor } from '../../local/messaging.js';
import { PNG_1X1 } from '../support/connect.js';
import { documentedApi } from '../support/openapi.js';
import { pdf } from '../support/pdf.js';
import { startPostsStack } from '../support/posts.js';
import { provisionUser } from '../support/provision.js';
import { queueIdle, until } from '../support/queues.js';
import type { TestStack } from '../support/stack.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

interface ErrorBody {
  error: { type: string; code: string; message: string; param: string | null };
}
interface EventList {
  events: { id: string; type: string; data: { object: MediaView } }[];
  nextCursor: string | null;
}

/** Seconds an import may take here (the contract's 60 s, shortened so the slow source's test is quick). */
const IMPORT_TIMEOUT_SECONDS = 4;

let stack: TestStack;
let files: Server;
let origin: string;
let documents: DynamoDBDocumentClient;
let hook: WebhookReceiver;
/** Requests the file server saw, by path. */
const served = new Map<string, number>();

function box(type: string, content: Uint8Array): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + content.byteLength, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, content]);
}

/** A minimal MP4 with moov/mvhd after its mdat. */
function mp4(seconds: number, mdatBytes = 5000): Buffer {
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(1000, 12);
  mvhd.writeUInt32BE(Math.round(seconds * 1000), 16);
  return Buffer.concat([box('ftyp', Buffer.from('isom\0\0\0\0isomavc1', 'latin1')), box('mdat', Buffer.alloc(mdatBytes, 7)), box('moov', box('mvhd', mvhd))]);
}

/** A PNG whose header says 1 x 1 followed by more bytes than the library takes for an image. */
const OVERSIZED_PNG = Buffer.concat([PNG_1X1, Buffer.alloc(5 * 1024 * 1024 + 10, 1)]);
/** Nine megabytes of a valid MP4: more than one 8 MiB part, so the streamed write goes in parts. */
const LARGE_VIDEO = mp4(12, 9 * 1024 * 1024);

function serve(path: string, response: ServerResponse): void {
  const send = (type: string, body: Buffer, extra: Record<string, string> = {}) => {
    response.writeHead(200, { 'content-type': type, 'content-length': String(body.byteLength), ...extra });
    response.end(body);
  };
  const redirect = /^\/redirect\/(\d+)$/.exec(path);
  if (redirect) {
    const left = Number(redirect[1]);
    response.writeHead(302, { location: left > 1 ? `/redirect/${left - 1}` : '/image.png' });
    return void response.end();
  }
  switch (path) {
    case '/image.png':
      return send('image/png', PNG_1X1);
    // The server calls it something else: the type comes from the bytes.
    case '/download':
      return send('application/octet-stream', PNG_1X1);
    case '/report.pdf':
      return send('application/pdf', pdf(3));
    case '/clip.mp4':
      return send('video/mp4', mp4(42));
    case '/large.mp4':
      return send('video/mp4', LARGE_VIDEO);
    case '/page':
      return send('text/html', Buffer.from('<!doctype html><html><body>not a file</body></html>'));
    case '/big.png':
      return send('image/png', OVERSIZED_PNG);
    case '/big-undeclared.png':
      // No Content-Length: the bytes are counted as they come.
      response.writeHead(200, { 'content-type': 'image/png' });
      return void response.end(OVERSIZED_PNG);
    case '/slow.png':
      // The headers, the first bytes, then nothing more.
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG_1X1.byteLength + 100) });
      return void response.write(PNG_1X1);
    case '/to-private':
      response.writeHead(302, { location: 'https://10.0.0.1/image.png' });
      return void response.end();
    default:
      response.writeHead(404, { 'content-type': 'text/plain' });
      return void response.end('not found');
  }
}

beforeAll(async () => {
  files = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    served.set(path, (served.get(path) ?? 0) + 1);
    serve(path, response);
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  hook = await startWebhookReceiver();
  stack = await startPostsStack({
    consumers: ['MediaImportWorker', 'WebhookDeliveryWorker'],
    streams: true,
    sweeper: true,
    sweeperIntervalMs: 1000,
    env: { [ENV.mediaImportTimeoutSeconds]: String(IMPORT_TIMEOUT_SECONDS) },
  });
  documents = DynamoDBDocumentClient.from(dynamoDbClientFor(stack.info.dynamodbEndpoint, { retries: 'standard' }));
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await hook?.stop();
  files?.closeAllConnections();
  await new Promise<void>((resolve) => (files ? files.close(() => resolve()) : resolve()));
});

async function newCustomer() {
  const user = await provisionUser();
  return { ...user, api: documentedApi(stack.baseUrl, user.apiKey) };
}
type Customer = Awaited<ReturnType<typeof newCustomer>>;

async function startImport(customer: Customer, path: string, extra: Record<string, unknown> = {}): Promise<MediaView> {
  const answer = await customer.api.post<MediaView>('/media', { sourceUrl: `${origin}${path}`, ...extra });
  expect(answer.status, answer.text).toBe(202);
  expect(answer.body).toMatchObject({ object: 'media', status: 'processing', url: null, error: null });
  return answer.body;
}

/** The media once it is settled (ready or failed), read through GET /media/{id}. */
async function settled(customer: Customer, id: string): Promise<MediaView> {
  let media: MediaView | undefined;
  await until(`media ${id} to settle`, async () => {
    const answer = await customer.api.get<MediaView>(`/media/${id}`);
    media = answer.body;
    return media.status === 'ready' || media.status === 'failed';
  }, 60_000);
  return media!;
}

async function eventsOf(customer: Customer, mediaId: string): Promise<EventList['events']> {
  const answer = await customer.api.get<EventList>('/events?type=media.*&limit=100');
  expect(answer.status, answer.text).toBe(200);
  return answer.body.events.filter((event) => event.type.startsWith('media.') && event.data.object.id === mediaId);
}

describe('importing a file from a URL', () => {
  it('imports a PNG: processing, then ready with its URL, dimensions and alt text, and one media.ready event', async () => {
    const customer = await newCustomer();
    const started = await startImport(customer, '/image.png', { altText: 'A single pixel' });
    expect(started).toMatchObject({ fileName: 'image.png', altText: 'A single pixel', size: 0 });
    const media = await settled(customer, started.id);
    expect(media).toMatchObject({ status: 'ready', contentType: 'image/png', size: PNG_1X1.byteLength, width: 1, height: 1, altText: 'A single pixel', error: null });
    expect(media.url).toMatch(/^http/);
    // The hosted copy is the file.
    const hosted = await fetch(media.url!);
    expect(Buffer.from(await hosted.arrayBuffer()).equals(PNG_1X1)).toBe(true);
    await until('the media.ready event', async () => (await eventsOf(customer, media.id)).length > 0);
    const events = await eventsOf(customer, media.id);
    expect(events.map((event) => event.type)).toEqual(['media.ready']);
    expect(events[0]!.data.object).toMatchObject({ id: media.id, status: 'ready', url: media.url });
    // The same library: listed with the uploads.
    const listed = await customer.api.get<{ media: MediaView[] }>('/media?status=ready');
    expect(listed.body.media.map((item) => item.id)).toContain(media.id);
  });

  it('reads the type from the bytes, and imports a PDF with its pages and a video with its duration, the large one in parts', async () => {
    const customer = await newCustomer();
    const [download, report, clip, large] = await Promise.all([
      startImport(customer, '/download', { fileName: 'pixel.png' }),
      startImport(customer, '/report.pdf'),
      startImport(customer, '/clip.mp4'),
      startImport(customer, '/large.mp4'),
    ]);
    expect(await settled(customer, download.id)).toMatchObject({ status: 'ready', contentType: 'image/png', fileName: 'pixel.png' });
    expect(await settled(customer, report.id)).toMatchObject({ status: 'ready', contentType: 'application/pdf', pages: 3 });
    expect(await settled(customer, clip.id)).toMatchObject({ status: 'ready', contentType: 'video/mp4', durationSeconds: 42 });
    const video = await settled(customer, large.id);
    expect(video).toMatchObject({ status: 'ready', size: LARGE_VIDEO.byteLength, durationSeconds: 12 });
    expect(Buffer.from(await (await fetch(video.url!)).arrayBuffer()).equals(LARGE_VIDEO)).toBe(true);
  });

  it('follows 3 redirects, and fails a 4th', async () => {
    const customer = await newCustomer();
    const three = await startImport(customer, '/redirect/3');
    const four = await startImport(customer, '/redirect/4');
    expect(await settled(customer, three.id)).toMatchObject({ status: 'ready', contentType: 'image/png' });
    const failed = await settled(customer, four.id);
    expect(failed).toMatchObject({ status: 'failed', url: null, error: { code: 'media_fetch_failed' } });
    expect(failed.error!.message).toMatch(/more than 3 times/);
  });

  it.each([
    ['/page', /web page/],
    ['/nowhere.png', /not found.*404/],
    ['/big.png', /too large/],
    ['/big-undeclared.png', /too large/],
    ['/slow.png', new RegExp(`within ${IMPORT_TIMEOUT_SECONDS} s`)],
    ['/to-private', /not a public address/],
  ])('fails %s with media_fetch_failed saying why, and a media.failed event', async (path, why) => {
    const customer = await newCustomer();
    const started = await startImport(customer, path);
    const failed = await settled(customer, started.id);
    expect(failed).toMatchObject({ status: 'failed', url: null, error: { code: 'media_fetch_failed' } });
    expect(failed.error!.message).toMatch(why);
    await until('the media.failed event', async () => (await eventsOf(customer, started.id)).length > 0);
    expect((await eventsOf(customer, started.id)).map((event) => event.type)).toEqual(['media.failed']);
  });

  it('refuses a sourceUrl that is not an https URL, and a body that also declares a type or size', async () => {
    const customer = await newCustomer();
    const refusals: [Record<string, unknown>, string][] = [
      [{ sourceUrl: 'ftp://example.com/a.png' }, 'sourceUrl'],
      [{ sourceUrl: 'http://example.com/a.png' }, 'sourceUrl'],
      [{ sourceUrl: 'not a url' }, 'sourceUrl'],
      [{ sourceUrl: `https://user:secret@example.com/a.png` }, 'sourceUrl'],
      [{ sourceUrl: `https://example.com/${'a'.repeat(2100)}` }, 'sourceUrl'],
      [{ sourceUrl: 42 }, 'sourceUrl'],
      [{ sourceUrl: `${origin}/image.png`, size: 10 }, 'size'],
      [{ sourceUrl: `${origin}/image.png`, contentType: 'image/png' }, 'contentType'],
      [{ sourceUrl: `${origin}/image.png`, altText: 'x'.repeat(1001) }, 'altText'],
    ];
    for (const [body, param] of refusals) {
      const answer = await customer.api.post<ErrorBody>('/media', body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'invalid_media_request', param });
    }
  });

  it("keeps each customer's imports their own, and needs the media scope", async () => {
    const owner = await newCustomer();
    const stranger = await newCustomer();
    const started = await startImport(owner, '/image.png');
    expect((await stranger.api.get<ErrorBody>(`/media/${started.id}`)).body.error.code).toBe('media_not_found');
    await settled(owner, started.id);
    expect((await stranger.api.get<{ media: MediaView[] }>('/media')).body.media).toEqual([]);
    const reader = await provisionUser({ scopes: ['read'] });
    const refused = await documentedApi(stack.baseUrl, reader.apiKey).post<ErrorBody>('/media', { sourceUrl: `${origin}/image.png` });
    expect(refused.status).toBe(403);
  });

  it('answers a repeated request with the same media (Idempotency-Key), importing it once', async () => {
    const customer = await newCustomer();
    const key = `import-${newId('post')}`;
    const path = `/redirect/1`;
    const before = served.get('/image.png') ?? 0;
    const first = await customer.api.post<MediaView>('/media', { sourceUrl: `${origin}${path}` }, { headers: { 'idempotency-key': key } });
    const second = await customer.api.post<MediaView>('/media', { sourceUrl: `${origin}${path}` }, { headers: { 'idempotency-key': key } });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.id).toBe(first.body.id);
    expect((await settled(customer, first.body.id)).status).toBe('ready');
    expect((served.get('/image.png') ?? 0) - before).toBe(1);
  });
});

describe('nothing lost, nothing twice', () => {
  it('a copy of the import message, at once and after: one fetch, one file, one media.ready event', async () => {
    const customer = await newCustomer();
    const queue = new SqsMediaImportQueue(sqsClientFor(stack.info.sqsEndpoint), stack.queues.mediaImport.url);
    const before = served.get('/clip.mp4') ?? 0;
    const started = await startImport(customer, '/clip.mp4');
    await queue.send({ mediaId: started.id });
    await queue.send({ mediaId: started.id });
    const media = await settled(customer, started.id);
    expect(media.status).toBe('ready');
    await queue.send({ mediaId: started.id });
    await until('the import queue to be empty', () => queueIdle(stack.info.sqsEndpoint, stack.queues.mediaImport.url));
    await until('the media.ready event', async () => (await eventsOf(customer, media.id)).length > 0);
    expect(await settled(customer, started.id)).toEqual(media);
    expect((served.get('/clip.mp4') ?? 0) - before).toBe(1);
    expect((await eventsOf(customer, media.id)).map((event) => event.type)).toEqual(['media.ready']);
  });

  it('an import whose message was lost is queued again by the sweeper once its lease has run out', async () => {
    const customer = await newCustomer();
    const library = new DynamoDbMediaLibraryStore();
    const id = newId('med');
    const at = new Date().toISOString();
    // As a create leaves it when its send failed (or its message was lost): processing, never queued, already due.
    const due = new Date(Date.now() - 1000).toISOString();
    await library.addPending(
      {
        id,
        userId: customer.userId,
        url: '',
        contentType: 'application/octet-stream',
        sizeBytes: 0,
        durationSeconds: null,
        objectKey: `incoming/${customer.userId}/${id}/image.png`,
        createdAt: at,
        updatedAt: at,
        status: 'processing',
        fileName: 'image.png',
        altText: null,
        sourceUrl: `${origin}/image.png`,
        dueAt: due,
        importClaims: 0,
      },
      null,
    );
    expect(await settled(customer, id)).toMatchObject({ status: 'ready', width: 1, height: 1 });
  });

  it('an upload never completed fails once its hour is over (media_upload_missing), with a media.failed event', async () => {
    const customer = await newCustomer();
    const created = await customer.api.post<MediaView & { upload: { url: string } }>('/media', { fileName: 'late.png', contentType: 'image/png', size: PNG_1X1.byteLength });
    expect(created.status).toBe(201);
    // Its hour passed (as the sweeper sees it): due a second ago.
    const due = new Date(Date.now() - 1000);
    await documents.send(
      new UpdateCommand({
        TableName: requireEnv(ENV.directoryTable),
        Key: { pk: `MEDIA#${created.body.id}`, sk: 'MEDIA' },
        UpdateExpression: 'SET dueAt = :due, mediaDueSk = :sk',
        ExpressionAttributeValues: { ':due': due.toISOString(), ':sk': mediaDueSortKey(due, created.body.id) },
      }),
    );
    const failed = await settled(customer, created.body.id);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'media_upload_missing' } });
    await until('the media.failed event', async () => (await eventsOf(customer, failed.id)).length > 0);
    // Completing it now says so.
    const late = await customer.api.post<ErrorBody>(`/media/${created.body.id}/complete`);
    expect(late.body.error.code).toBe('media_upload_missing');
  });

  it('delivers media.ready to an endpoint that takes it', async () => {
    const customer = await newCustomer();
    const endpoint = await customer.api.post<{ id: string }>('/webhook_endpoints', { url: hook.url, enabledEvents: ['media.ready', 'media.failed'] });
    expect(endpoint.status, endpoint.text).toBe(201);
    const started = await startImport(customer, '/image.png');
    const received = await hook.waitFor((all) => all.some((delivery) => delivery.json.type === 'media.ready' && delivery.json.data.object.id === started.id), 60_000);
    const delivery = received.find((one) => one.json.data.object.id === started.id)!;
    expect(delivery.json.data.object).toMatchObject({ id: started.id, status: 'ready' });
  });
});

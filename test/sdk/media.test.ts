/**
 * The SDK's media library (`client.media.*`, sdk/src/media.ts) against the local stack: an upload
 * in one call from bytes, a Blob and a stream (create, the PUT to the presigned URL, complete), a
 * PUT answered 503 once and retried, an upload repeated with its Idempotency-Key (one media), a
 * refusal as a typed error, an import from a URL waited for (ready, and failed as an answer), list
 * with its status filter across pages, alt text, and a delete refused while a scheduled post uses
 * the file. Every API answer is checked against openapi.yaml.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidRequestError, MediaWaitError, SocialPublishing, type Media, type RetryEvent } from '../../sdk/src/index.js';
import { PNG_1X1 } from '../support/connect.js';
import { documentedFetch } from '../support/openapi.js';
import { pdf } from '../support/pdf.js';
import { minutesFromNow, startPostsStack } from '../support/posts.js';
import { provisionUser, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

let stack: TestStack;
let files: Server;
let origin: string;
const mismatches: string[] = [];

function box(type: string, content: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + content.byteLength);
  new DataView(out.buffer).setUint32(0, out.byteLength);
  out.set([...type].map((char) => char.charCodeAt(0)), 4);
  out.set(content, 8);
  return out;
}

/** A minimal MP4 of `seconds` (ftyp, mdat, moov/mvhd). */
function mp4(seconds: number): Uint8Array {
  const mvhd = new Uint8Array(100);
  new DataView(mvhd.buffer).setUint32(12, 1000);
  new DataView(mvhd.buffer).setUint32(16, seconds * 1000);
  const parts = [box('ftyp', new TextEncoder().encode('isom\0\0\0\0isomavc1')), box('mdat', new Uint8Array(4000).fill(7)), box('moov', box('mvhd', mvhd))];
  return Uint8Array.from(parts.flatMap((part) => [...part]));
}

function streamOf(bytes: Uint8Array, chunk = 1000): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + chunk));
      offset += chunk;
    },
  });
}

function sdkFor(user: ProvisionedUser, options: { fetch?: typeof fetch; onRetry?: (event: RetryEvent) => void } = {}): SocialPublishing {
  return new SocialPublishing({ baseUrl: stack.baseUrl, apiKey: user.apiKey, fetch: options.fetch ?? documentedFetch(stack.baseUrl, mismatches), onRetry: options.onRetry });
}

beforeAll(async () => {
  files = createServer((request, response) => {
    if (request.url === '/pixel.png') {
      response.writeHead(200, { 'content-type': 'image/png' });
      return void response.end(PNG_1X1);
    }
    response.writeHead(404);
    response.end();
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  stack = await startPostsStack({ consumers: ['MediaImportWorker', 'PublishWorker'], sandbox: true });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  files?.closeAllConnections();
  await new Promise<void>((resolve) => (files ? files.close(() => resolve()) : resolve()));
  expect(mismatches).toEqual([]);
});

describe('client.media', () => {
  it('uploads bytes, a Blob and a stream in one call each: ready, with what the checks read', async () => {
    const sdk = sdkFor(await provisionUser());
    const image = await sdk.media.upload(PNG_1X1, { fileName: 'pixel.png', contentType: 'image/png', altText: 'One pixel' });
    expect(image).toMatchObject({ status: 'ready', contentType: 'image/png', width: 1, height: 1, altText: 'One pixel', size: PNG_1X1.byteLength });
    expect(image.url).toMatch(/^http/);
    const document = await sdk.media.upload(new Blob([pdf(2)]), { fileName: 'deck.pdf', contentType: 'application/pdf' });
    expect(document).toMatchObject({ status: 'ready', pages: 2 });
    const video = await sdk.media.upload(streamOf(mp4(7)), { fileName: 'clip.mp4', contentType: 'video/mp4' });
    expect(video).toMatchObject({ status: 'ready', durationSeconds: 7 });
  });

  it('tries a PUT that storage answered 503 again, and an upload repeated with its key ends in the same media', async () => {
    const user = await provisionUser();
    const retries: RetryEvent[] = [];
    let failedPuts = 0;
    const documented = documentedFetch(stack.baseUrl, mismatches);
    const flaky: typeof fetch = async (input, init) => {
      if (init?.method === 'PUT' && failedPuts === 0) {
        failedPuts += 1;
        return new Response('<Error><Code>SlowDown</Code></Error>', { status: 503 });
      }
      return documented(input, init);
    };
    const sdk = sdkFor(user, { fetch: flaky, onRetry: (event) => retries.push(event) });
    const first = await sdk.media.upload(PNG_1X1, { fileName: 'a.png', contentType: 'image/png', idempotencyKey: 'upload-once' });
    expect(first.status).toBe('ready');
    expect(retries.map((event) => event.method)).toEqual(['PUT']);
    const again = await sdk.media.upload(PNG_1X1, { fileName: 'a.png', contentType: 'image/png', idempotencyKey: 'upload-once' });
    expect(again.id).toBe(first.id);
    const listed = await sdk.media.list();
    expect(listed.media.filter((media) => media.id === first.id)).toHaveLength(1);
    expect(listed.media).toHaveLength(1);
  });

  it('throws the library refusal as an InvalidRequestError with its code', async () => {
    const sdk = sdkFor(await provisionUser());
    const error = await sdk.media.upload(new TextEncoder().encode('not a png at all'), { fileName: 'fake.png', contentType: 'image/png' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ code: 'media_type_mismatch', status: 400 });
  });

  it('imports from a URL and waits: ready; a failed import is an answer; wait: false answers processing', async () => {
    const sdk = sdkFor(await provisionUser());
    const ready = await sdk.media.import(`${origin}/pixel.png`, { altText: 'Imported', wait: { timeoutMs: 60_000 } });
    expect(ready).toMatchObject({ status: 'ready', contentType: 'image/png', altText: 'Imported' });
    const failed = await sdk.media.import(`${origin}/missing.png`, { wait: { timeoutMs: 60_000 } });
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'media_fetch_failed' } });
    const started = await sdk.media.import(`${origin}/pixel.png`, { wait: false });
    expect(started.status).toBe('processing');
    expect((await sdk.media.waitUntilSettled(started.id, { timeoutMs: 60_000 })).status).toBe('ready');
  });

  it('a pending upload is not waited for: MediaWaitError media_is_pending', async () => {
    const user = await provisionUser();
    const response = await fetch(`${stack.baseUrl}/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'later.png', contentType: 'image/png', size: 10 }),
    });
    const pending = (await response.json()) as Media;
    const error = await sdkFor(user).media.waitUntilSettled(pending.id).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MediaWaitError);
    expect(error).toMatchObject({ code: 'media_is_pending', media: { id: pending.id, status: 'pending' } });
  });

  it('lists across pages with a status filter, changes alt text, and deletes only a file no scheduled post uses', async () => {
    const user = await provisionUser({ accounts: [{ platform: 'linkedin' }] });
    const sdk = sdkFor(user);
    const uploaded: Media[] = [];
    for (let index = 0; index < 3; index++) uploaded.push(await sdk.media.upload(PNG_1X1, { fileName: `p${index}.png`, contentType: 'image/png' }));
    const seen: string[] = [];
    for await (const media of sdk.media.list({ status: 'ready', limit: 2 })) seen.push(media.id);
    expect(seen).toEqual(uploaded.map((media) => media.id).reverse());
    expect((await sdk.media.list({ status: 'failed' })).media).toEqual([]);
    expect(await sdk.media.update(uploaded[0]!.id, { altText: 'Described' })).toMatchObject({ altText: 'Described' });
    expect((await sdk.media.get(uploaded[0]!.id)).altText).toBe('Described');
    expect(await sdk.media.update(uploaded[0]!.id, { altText: null })).toMatchObject({ altText: null });
    const batch = await sdk.posts.create({ accounts: [user.accounts[0]!.id], text: 'with a picture', media: [uploaded[1]!.url!], scheduledFor: minutesFromNow(30) });
    expect(batch.posts[0]!.status).toBe('accepted');
    const inUse = await sdk.media.delete(uploaded[1]!.id).catch((caught: unknown) => caught);
    expect(inUse).toBeInstanceOf(InvalidRequestError);
    expect(inUse).toMatchObject({ code: 'media_in_use', status: 409 });
    expect(await sdk.media.delete(uploaded[2]!.id)).toEqual({ object: 'media_deleted', id: uploaded[2]!.id });
  });
});

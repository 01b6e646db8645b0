/**
 * The SDK against the local stack (queue consumers and sandbox platforms running): accounts, a
 * create, get, list across pages, delete with deleteFromPlatform, waitForOutcome to published and
 * to failed, every error class the API can answer, a create whose answer is lost and retried with
 * the same Idempotency-Key (one post), the post lifecycle (preview, update, publish, retry, their
 * 409s, a PATCH whose answer is lost), webhook endpoints (every operation, and a test event
 * delivered to a local receiver and verified by the SDK with the old and the rotated secret), and
 * the example of docs/sdk.md, run exactly as printed.
 * Every response the SDK reads is checked against openapi.yaml (test/support/openapi.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AuthenticationError,
  InvalidRequestError,
  PermissionError,
  RateLimitError,
  SocialPublishing,
  WaitForOutcomeError,
  type Post,
  type PlatformOptions,
  type RetryEvent,
  type WebhookEndpoint,
} from '../../sdk/src/index.js';
import { documentedFetch } from '../support/openapi.js';
import { startPostsStack } from '../support/posts.js';
import { connectAccount, createKey, provisionUser, updateAccount, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

let stack: TestStack;
let user: ProvisionedUser;
const mismatches: string[] = [];

function sdkFor(apiKey: string, options: { baseUrl?: string; onRetry?: (event: RetryEvent) => void } = {}): SocialPublishing {
  const baseUrl = options.baseUrl ?? stack.baseUrl;
  return new SocialPublishing({ baseUrl, apiKey, fetch: documentedFetch(baseUrl, mismatches), onRetry: options.onRetry });
}

/** What the call rejects with (a PagedList is awaited like a promise). */
async function rejection(promise: PromiseLike<unknown>): Promise<unknown> {
  return Promise.resolve(promise).then(
    () => {
      throw new Error('resolved, but should have been rejected');
    },
    (error: unknown) => error,
  );
}

beforeAll(async () => {
  stack = await startPostsStack({ consumers: true, sandbox: true });
  user = await provisionUser({ accounts: [{ platform: 'linkedin' }, { platform: 'x' }, { platform: 'instagram' }] });
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(() => {
  expect(mismatches.splice(0)).toEqual([]);
});

describe('the SDK against the local stack', () => {
  it('lists accounts, all or by platform, typed as openapi.yaml says', async () => {
    const sdk = sdkFor(user.apiKey);
    const all = await sdk.accounts.list();
    expect(all.accounts.map((account) => account.platform).sort()).toEqual(['instagram', 'linkedin', 'x']);
    const x = await sdk.accounts.list({ platform: 'x' });
    expect(x.accounts.map((account) => account.id)).toEqual([user.accounts[1]?.id]);
  });

  it('sets a queue, reads its next slots, and creates a post with queue: true at the first one (typed)', async () => {
    const owner = await provisionUser({ accounts: [{ platform: 'linkedin' }] });
    const sdk = sdkFor(owner.apiKey);
    const accountId = owner.accounts[0]?.id as string;
    expect(await sdk.accounts.getQueue(accountId)).toEqual({ object: 'queue', accountId, timeZone: 'UTC', slots: [] });
    const queue = await sdk.accounts.setQueue(accountId, { timeZone: 'Pacific/Chatham', slots: [{ day: 'tuesday', time: '08:45' }, { day: 'saturday', time: '19:00' }] });
    expect(queue.timeZone).toBe('Pacific/Chatham');
    const { slots } = await sdk.accounts.nextQueueSlots(accountId, { count: 2 });
    expect(slots).toHaveLength(2);
    const batch = await sdk.posts.create({ accounts: [accountId], text: 'into the queue', queue: true });
    const post = await sdk.posts.get(batch.posts[0]?.id as string);
    expect(post.scheduledFor).toBe(slots[0]?.scheduledFor);
    const refused = await rejection(sdk.accounts.setQueue(accountId, { timeZone: 'Moon/Tranquility', slots: [] }));
    expect(refused).toBeInstanceOf(InvalidRequestError);
    expect((refused as InvalidRequestError).code).toBe('invalid_time_zone');
  });

  it('creates a post, waits for it to be published, deletes it from the platform too', async () => {
    const sdk = sdkFor(user.apiKey);
    const linkedin = user.accounts[0]?.id as string;
    const batch = await sdk.posts.create({ accounts: [linkedin], text: 'Published through the SDK' });
    expect(batch.posts).toMatchObject([{ accountId: linkedin, status: 'accepted', reason: null }]);
    const id = batch.posts[0]?.id as string;

    const post = await sdk.posts.waitForOutcome(id, { timeoutMs: 45_000, intervalMs: 200 });
    expect(post).toMatchObject({ id, status: 'published', platform: 'linkedin', text: 'Published through the SDK', error: null });
    expect(post.publishedUrl).toMatch(/^https:\/\/www\.linkedin\.com\/feed\/update\//);
    expect(await sdk.posts.get(id)).toEqual(post);

    const deleted = await sdk.posts.delete(id, { deleteFromPlatform: true });
    expect(deleted).toEqual({ object: 'post_deleted', id, softDeleted: true, platformDeletionQueuedFor: ['linkedin'] });
    const gone = await rejection(sdk.posts.get(id));
    expect(gone).toBeInstanceOf(InvalidRequestError);
    expect(gone).toMatchObject({ type: 'invalid_request_error', code: 'post_not_found', status: 404 });
    expect((gone as InvalidRequestError).requestId).toMatch(/\S/);
  });

  it('waitForOutcome answers a failed post with its error (not an exception)', async () => {
    const refusing = await connectAccount(user.workspaceIds[0] as string, { platform: 'x', sandbox: 'refuse' });
    const sdk = sdkFor(user.apiKey);
    const batch = await sdk.posts.create({ accounts: [refusing.id], text: 'The platform refuses this one' });
    const post = await sdk.posts.waitForOutcome(batch.posts[0]?.id as string, { timeoutMs: 45_000, intervalMs: 200 });
    expect(post.status).toBe('failed');
    expect(post.error?.advice).toMatch(/\S/);
  });

  it('waitForOutcome refuses a draft at once and gives up on a post due later at its deadline', async () => {
    const sdk = sdkFor(user.apiKey);
    const linkedin = user.accounts[0]?.id as string;
    const draft = await sdk.posts.create({ accounts: [linkedin], text: 'A draft', draft: true });
    const draftError = await rejection(sdk.posts.waitForOutcome(draft.posts[0]?.id as string));
    expect(draftError).toBeInstanceOf(WaitForOutcomeError);
    expect(draftError).toMatchObject({ code: 'post_is_draft', post: { status: 'draft' } });

    const later = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await sdk.posts.create({ accounts: [linkedin], text: 'Due in an hour', scheduledFor: later });
    const id = scheduled.posts[0]?.id as string;
    const timeout = await rejection(sdk.posts.waitForOutcome(id, { timeoutMs: 300 }));
    expect(timeout).toMatchObject({ code: 'wait_timeout', post: { id, status: 'scheduled' } });
    expect(await sdk.posts.delete(id)).toMatchObject({ softDeleted: false, platformDeletionQueuedFor: [] });
  });

  it('for await goes through every page; await gives the first; pages() each page', async () => {
    const owner = await provisionUser({ accounts: [{ platform: 'linkedin' }] });
    const sdk = sdkFor(owner.apiKey);
    const created: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const batch = await sdk.posts.create({ accounts: [owner.accounts[0]?.id as string], text: `Draft ${index}`, draft: true });
      created.push(batch.posts[0]?.id as string);
    }
    const seen: Post[] = [];
    for await (const post of sdk.posts.list({ limit: 2 })) seen.push(post);
    expect(seen.map((post) => post.id).sort()).toEqual([...created].sort());

    const first = await sdk.posts.list({ limit: 2 });
    expect(first.posts).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
    const sizes: number[] = [];
    for await (const page of sdk.posts.list({ limit: 2, status: 'draft' }).pages()) sizes.push(page.posts.length);
    expect(sizes).toEqual([2, 2, 1]);
    expect(await sdk.posts.list({ limit: 2 }).toArray({ limit: 3 })).toEqual(seen.slice(0, 3));
    // Starting from a cursor continues where that page ended.
    const rest = await sdk.posts.list({ limit: 2, cursor: first.nextCursor as string }).toArray({ limit: 10 });
    expect(rest.map((post) => post.id)).toEqual(seen.slice(2).map((post) => post.id));
  });

  it('answers every kind of refusal with its error class, code, param, status and request id', async () => {
    const sdk = sdkFor(user.apiKey);
    const unknownKey = await rejection(sdkFor('ak_AAAAAAAAAAAAAAAAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB').accounts.list());
    expect(unknownKey).toBeInstanceOf(AuthenticationError);
    expect(unknownKey).toMatchObject({ type: 'authentication_error', status: 401 });
    expect((unknownKey as AuthenticationError).code).toMatch(/^api_key_(unknown|malformed)$/);

    const readOnly = await createKey(user.userId, ['read']);
    const scope = await rejection(sdkFor(readOnly.apiKey).posts.create({ accounts: [user.accounts[0]?.id as string], text: 'No scope' }));
    expect(scope).toBeInstanceOf(PermissionError);
    expect(scope).toMatchObject({ type: 'permission_error', code: 'insufficient_scope', status: 403 });

    const limit = await rejection(sdk.posts.list({ limit: 0 }));
    expect(limit).toBeInstanceOf(InvalidRequestError);
    expect(limit).toMatchObject({ code: 'invalid_limit', param: 'limit', status: 400 });

    const past = await rejection(sdk.posts.create({ accounts: [user.accounts[0]?.id as string], text: 'Late', scheduledFor: '2020-01-01T00:00:00Z' }));
    expect(past).toMatchObject({ code: 'scheduled_for_in_past', param: 'scheduledFor' });

    // No target accepted: the first target's reason is the code, and every result is beside it.
    const none = await rejection(sdk.posts.create({ accounts: ['acc_doesnotexist', user.accounts[2]?.id as string], text: 'Nowhere' }));
    expect(none).toBeInstanceOf(InvalidRequestError);
    expect(none).toMatchObject({ code: 'account_unresolved', status: 400 });
    expect((none as InvalidRequestError).posts?.map((result) => result.reason)).toEqual(['account_unresolved', 'platform_not_available']);
  });

  it('a create whose answer is lost is sent again with the same Idempotency-Key: one post, the first answer', async () => {
    const proxy = await answerLostOnce('POST');
    try {
      const owner = await provisionUser({ accounts: [{ platform: 'x' }] });
      const retries: RetryEvent[] = [];
      const sdk = sdkFor(owner.apiKey, { baseUrl: proxy.baseUrl, onRetry: (event) => retries.push(event) });

      const batch = await sdk.posts.create({ accounts: [owner.accounts[0]?.id as string], text: 'Sent once, asked twice' });

      const { seen } = proxy;
      expect(seen).toHaveLength(2);
      expect(seen[0]?.key).toMatch(/\S/);
      expect(seen[1]?.key).toBe(seen[0]?.key);
      expect(seen.map((attempt) => [attempt.status, attempt.replayed])).toEqual([
        [202, null],
        [202, 'true'],
      ]);
      expect(batch).toEqual(JSON.parse(seen[0]?.body ?? ''));
      expect(retries.map((event) => event.error.code)).toEqual(['connection_failed']);
      const posts = await sdk.posts.list().toArray({ limit: 10 });
      expect(posts.map((post) => post.id)).toEqual([batch.posts[0]?.id]);
    } finally {
      await proxy.close();
    }
  });
});

/**
 * A proxy in front of the stack that lets the first request of `method` through and then drops its
 * answer, as a network failure after the server did the work would; `seen` is every request of
 * that method as the API answered it.
 */
async function answerLostOnce(method: string): Promise<{
  baseUrl: string;
  seen: { key: string | undefined; status: number; replayed: string | null; body: string }[];
  close: () => Promise<void>;
}> {
  const upstream = new URL(stack.baseUrl);
  const seen: { key: string | undefined; status: number; replayed: string | null; body: string }[] = [];
  const proxy: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const headers = Object.fromEntries(
          ['authorization', 'content-type', 'idempotency-key'].flatMap((name) => (typeof request.headers[name] === 'string' ? [[name, request.headers[name]]] : [])),
        );
        const body = chunks.length === 0 ? undefined : Buffer.concat(chunks);
        const answer = await fetch(new URL(request.url ?? '/', upstream.origin), { method: request.method, headers, body });
        const text = await answer.text();
        const watched = request.method === method;
        if (watched) seen.push({ key: headers['idempotency-key'], status: answer.status, replayed: answer.headers.get('idempotent-replayed'), body: text });
        if (watched && seen.length === 1) {
          response.socket?.destroy();
          return;
        }
        response.writeHead(answer.status, Object.fromEntries(answer.headers));
        response.end(text);
      })();
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${upstream.pathname}`,
    seen,
    close: () => new Promise((resolve) => proxy.close(() => resolve())),
  };
}

describe('the post lifecycle through the SDK', () => {
  const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

  it('preview answers what a create would, writing nothing; with no target accepted it throws as a create would', async () => {
    const owner = await provisionUser({ accounts: [{ platform: 'linkedin' }, { platform: 'instagram' }] });
    const sdk = sdkFor(owner.apiKey);
    const [linkedin, instagram] = owner.accounts.map((account) => account.id);
    const preview = await sdk.posts.preview({ accounts: [linkedin as string, instagram as string], text: 'Only a preview' });
    expect(preview).toEqual({
      object: 'post_batch',
      campaignId: null,
      posts: [
        expect.objectContaining({ id: null, accountId: linkedin, status: 'accepted', reason: null }),
        expect.objectContaining({ id: null, accountId: instagram, status: 'rejected', reason: 'platform_not_available' }),
      ],
    });
    const none = await rejection(sdk.posts.preview({ accounts: [instagram as string], text: 'Nowhere' }));
    expect(none).toBeInstanceOf(InvalidRequestError);
    expect(none).toMatchObject({ code: 'platform_not_available', status: 400 });
    expect((none as InvalidRequestError).posts?.map((result) => result.reason)).toEqual(['platform_not_available']);
    expect(await sdk.posts.list().toArray({ limit: 10 })).toEqual([]);
  });

  it('native formats: typed options make a thread draft, update makes it a poll with a first comment, a broken rule is InvalidRequestError', async () => {
    const owner = await provisionUser({ accounts: [{ platform: 'x' }] });
    const sdk = sdkFor(owner.apiKey);
    const account = owner.accounts[0]?.id as string;
    const thread: PlatformOptions = { x: { thread: [{ text: 'Part two' }, { text: 'Part three' }] } };
    const batch = await sdk.posts.create({ accounts: [account], text: 'Part one', draft: true, options: thread });
    const id = batch.posts[0]?.id as string;
    expect(await sdk.posts.get(id)).toMatchObject({ format: 'thread', threadParts: [{ platformPostId: null }, { platformPostId: null }], firstComment: null });
    const poll = await sdk.posts.update(id, { options: { x: { poll: { choices: ['Yes', 'No'], durationMinutes: 60 }, firstComment: 'Why I ask' } } });
    expect(poll).toMatchObject({ format: 'poll', threadParts: [], firstComment: { status: 'pending', platformCommentId: null, error: null } });
    const broken = await rejection(sdk.posts.update(id, { options: { x: { poll: { choices: ['Only one'], durationMinutes: 60 } } } }));
    expect(broken).toBeInstanceOf(InvalidRequestError);
    expect(broken).toMatchObject({ code: 'invalid_poll', param: 'options.x.poll', status: 400 });
  });

  it('update changes a scheduled post\'s text and time; waitForOutcome sees the new text published, once, at the new time', async () => {
    const owner = await provisionUser({ accounts: [{ platform: 'x' }] });
    const sdk = sdkFor(owner.apiKey);
    const account = owner.accounts[0]?.id as string;
    const batch = await sdk.posts.create({ accounts: [account], text: 'The first words', scheduledFor: inMinutes(60) });
    const id = batch.posts[0]?.id as string;

    // Moved to a few seconds ahead; on a slow hour the update can take longer than that and is
    // refused as scheduled_for_in_past: made again with twice the lead, waiting for it to be accepted.
    let movedTo = '';
    let updated: Awaited<ReturnType<typeof sdk.posts.update>> | undefined;
    for (let lead = 3_000; !updated; lead *= 2) {
      movedTo = new Date(Date.now() + lead).toISOString();
      updated = await sdk.posts.update(id, { text: 'The words that go out', scheduledFor: movedTo }).catch((error: unknown) => {
        if (error instanceof InvalidRequestError && error.code === 'scheduled_for_in_past' && lead < 60_000) return undefined;
        throw error;
      });
    }
    expect(updated).toMatchObject({ id, status: 'scheduled', text: 'The words that go out', scheduledFor: movedTo });

    const post = await sdk.posts.waitForOutcome(id, { timeoutMs: 45_000, intervalMs: 200 });
    expect(post).toMatchObject({ id, status: 'published', text: 'The words that go out' });
    expect(Date.parse(post.publishedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(movedTo));
    expect(stack.sandbox?.x.listPosts(account).map((live) => live.text)).toEqual(['The words that go out']);
  });

  it('publish sends a draft; a second publish, and a change to a published post, are InvalidRequestError post_not_editable (409)', async () => {
    const owner = await provisionUser({ accounts: [{ platform: 'linkedin' }] });
    const sdk = sdkFor(owner.apiKey);
    const draft = await sdk.posts.create({ accounts: [owner.accounts[0]?.id as string], text: 'A draft, then sent', draft: true });
    const id = draft.posts[0]?.id as string;
    expect(await sdk.posts.update(id, { text: 'A draft, changed, then sent' })).toMatchObject({ id, status: 'draft', text: 'A draft, changed, then sent' });

    expect(await sdk.posts.publish(id)).toMatchObject({ id, status: 'scheduled' });
    const post = await sdk.posts.waitForOutcome(id, { timeoutMs: 45_000, intervalMs: 200 });
    expect(post).toMatchObject({ status: 'published', text: 'A draft, changed, then sent' });

    for (const refused of [await rejection(sdk.posts.publish(id)), await rejection(sdk.posts.update(id, { text: 'Too late' }))]) {
      expect(refused).toBeInstanceOf(InvalidRequestError);
      expect(refused).toMatchObject({ type: 'invalid_request_error', code: 'post_not_editable', param: 'id', status: 409 });
    }
    expect((await sdk.posts.get(id)).text).toBe('A draft, changed, then sent');
  });

  it('retry sends a retryable failure again under the same id once the account is reconnected; a second retry is post_not_retryable (409)', async () => {
    const owner = await provisionUser({});
    const expired = await connectAccount(owner.workspaceIds[0] as string, { platform: 'x', sandbox: 'expired' });
    const sdk = sdkFor(owner.apiKey);
    const batch = await sdk.posts.create({ accounts: [expired.id], text: 'Out once the token is back' });
    const id = batch.posts[0]?.id as string;
    const failed = await sdk.posts.waitForOutcome(id, { timeoutMs: 45_000, intervalMs: 200 });
    expect(failed).toMatchObject({ status: 'failed', error: { retryable: true } });

    await updateAccount(expired.id, { sandbox: 'ok', tokenHealth: 'healthy' });
    expect(await sdk.posts.retry(id)).toMatchObject({ id, status: 'scheduled', error: null });
    const post = await sdk.posts.waitForOutcome(id, { timeoutMs: 45_000, intervalMs: 200 });
    expect(post).toMatchObject({ id, status: 'published', text: 'Out once the token is back' });
    expect(stack.sandbox?.x.listPosts(expired.id).map((live) => live.text)).toEqual(['Out once the token is back']);

    const again = await rejection(sdk.posts.retry(id));
    expect(again).toBeInstanceOf(InvalidRequestError);
    expect(again).toMatchObject({ code: 'post_not_retryable', status: 409 });
  });

  it('a PATCH whose answer is lost is sent again with the same Idempotency-Key: the API replays its first answer', async () => {
    const proxy = await answerLostOnce('PATCH');
    try {
      const owner = await provisionUser({ accounts: [{ platform: 'x' }] });
      const direct = sdkFor(owner.apiKey);
      const draft = await direct.posts.create({ accounts: [owner.accounts[0]?.id as string], text: 'Before', draft: true });
      const id = draft.posts[0]?.id as string;

      const post = await sdkFor(owner.apiKey, { baseUrl: proxy.baseUrl }).posts.update(id, { text: 'After' });

      const { seen } = proxy;
      expect(seen.map((attempt) => [attempt.status, attempt.replayed])).toEqual([
        [200, null],
        [200, 'true'],
      ]);
      expect(seen[0]?.key).toMatch(/\S/);
      expect(seen[1]?.key).toBe(seen[0]?.key);
      expect(post).toEqual(JSON.parse(seen[0]?.body ?? ''));
      expect(await direct.posts.get(id)).toMatchObject({ text: 'After', status: 'draft' });
    } finally {
      await proxy.close();
    }
  });
});

describe('webhook endpoints through the SDK', () => {
  it('create shows the secret once; list pages through every endpoint; get and update never show it; delete, then 404', async () => {
    const owner = await provisionUser({});
    const sdk = sdkFor(owner.apiKey);
    const created = await sdk.webhookEndpoints.create({ url: 'http://127.0.0.1:9/hooks/crm', enabledEvents: ['post.published', 'post.failed'], description: 'CRM' });
    expect(created).toMatchObject({ object: 'webhook_endpoint', url: 'http://127.0.0.1:9/hooks/crm', enabledEvents: ['post.published', 'post.failed'], description: 'CRM', status: 'enabled', disabledReason: null });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const others = [
      await sdk.webhookEndpoints.create({ url: 'http://127.0.0.1:9/hooks/a', enabledEvents: ['*'] }),
      await sdk.webhookEndpoints.create({ url: 'http://127.0.0.1:9/hooks/b', enabledEvents: ['account.disconnected'] }),
    ];

    const seen: WebhookEndpoint[] = [];
    for await (const endpoint of sdk.webhookEndpoints.list({ limit: 2 })) seen.push(endpoint);
    expect(seen.map((endpoint) => endpoint.id).sort()).toEqual([created.id, ...others.map((endpoint) => endpoint.id)].sort());
    expect(seen.every((endpoint) => !('secret' in endpoint))).toBe(true);
    const sizes: number[] = [];
    for await (const page of sdk.webhookEndpoints.list({ limit: 2 }).pages()) sizes.push(page.webhookEndpoints.length);
    expect(sizes).toEqual([2, 1]);

    const read = await sdk.webhookEndpoints.get(created.id);
    const { secret, ...withoutSecret } = created;
    expect(read).toEqual(withoutSecret);
    expect(JSON.stringify(read)).not.toContain(secret.slice(6));

    const disabled = await sdk.webhookEndpoints.update(created.id, { status: 'disabled', description: null });
    expect(disabled).toMatchObject({ id: created.id, status: 'disabled', description: null, url: created.url });
    const refused = await rejection(sdk.webhookEndpoints.test(created.id));
    expect(refused).toBeInstanceOf(InvalidRequestError);
    expect(refused).toMatchObject({ code: 'webhook_endpoint_disabled', status: 409 });

    const bad = await rejection(sdk.webhookEndpoints.create({ url: 'https://10.1.2.3/hook', enabledEvents: ['*'] }));
    expect(bad).toMatchObject({ code: 'invalid_webhook_url', param: 'url', status: 400 });

    expect(await sdk.webhookEndpoints.delete(created.id)).toEqual({ object: 'webhook_endpoint_deleted', id: created.id, deleted: true });
    const gone = await rejection(sdk.webhookEndpoints.get(created.id));
    expect(gone).toBeInstanceOf(InvalidRequestError);
    expect(gone).toMatchObject({ code: 'webhook_endpoint_not_found', status: 404 });
    // Another customer's endpoint is not found either.
    const stranger = await provisionUser({});
    expect(await rejection(sdkFor(stranger.apiKey).webhookEndpoints.get(others[0]?.id as string))).toMatchObject({ code: 'webhook_endpoint_not_found', status: 404 });
  });

  it('test queues a webhook.test event; the receiver verifies it with the SDK, with the rotated secret and, for 24 hours, the old one', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const owner = await provisionUser({});
      const sdk = sdkFor(owner.apiKey);
      const endpoint = await sdk.webhookEndpoints.create({ url: receiver.url, enabledEvents: ['*'] });
      const rotated = await sdk.webhookEndpoints.rotateSecret(endpoint.id);
      expect(rotated).toMatchObject({ id: endpoint.id, object: 'webhook_endpoint' });
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.secret).not.toBe(endpoint.secret);

      const queued = await sdk.webhookEndpoints.test(endpoint.id);
      expect(queued).toMatchObject({ object: 'event', type: 'webhook.test', data: { object: {} } });
      const [delivery] = await receiver.waitFor((received) => received.some((item) => item.json.id === queued.id));
      if (!delivery) throw new Error('no delivery');

      const withNew = await sdk.webhooks.verify(delivery.body, delivery.headers, rotated.secret);
      expect(withNew).toEqual(queued);
      expect(await sdk.webhooks.verify(delivery.body, delivery.headers, endpoint.secret)).toEqual(queued);
      const other = await sdk.webhookEndpoints.create({ url: 'http://127.0.0.1:9/hooks/other', enabledEvents: ['*'] });
      await expect(sdk.webhooks.verify(delivery.body, delivery.headers, other.secret)).rejects.toMatchObject({ code: 'no_matching_signature' });
    } finally {
      await receiver.stop();
    }
  });
});

/** The first `ts` block of docs/sdk.md, the example the repository README opens with. */
async function firstExample(): Promise<string> {
  const markdown = await readFile(fileURLToPath(new URL('../../docs/sdk.md', import.meta.url)), 'utf8');
  const example = /```ts\n([\s\S]*?)```/.exec(markdown)?.[1];
  if (example === undefined) throw new Error('docs/sdk.md has no ts block');
  return example;
}

/** The example with its one change: the package name points at the source (this checkout has it unbuilt). */
function pointedAtSource(example: string, specifier: string): string {
  const changed = example.replace("from '@social-publishing/sdk'", `from '${specifier}'`);
  if (changed === example) throw new Error("the example does not import from '@social-publishing/sdk'");
  return changed;
}

const SDK_SOURCE = fileURLToPath(new URL('../../sdk/src/index.ts', import.meta.url));

describe('post metrics through the SDK', () => {
  it('refreshMetrics collects now, a second one is RateLimitError metrics_refresh_too_soon; metrics and analytics answer the same figures', async () => {
    const sdk = sdkFor(user.apiKey);
    const linkedin = user.accounts[0]?.id as string;
    const batch = await sdk.posts.create({ accounts: [linkedin], text: 'Measured through the SDK' });
    const id = batch.posts[0]?.id as string;
    const post = await sdk.posts.waitForOutcome(id, { timeoutMs: 45_000, intervalMs: 200 });
    expect(post.metrics ?? null).toBeNull();
    const refreshed = await sdk.posts.refreshMetrics(id);
    // A member's post on LinkedIn: impressions, reactions, comments and reshares; no link clicks (null, not 0).
    expect(refreshed.metrics).toMatchObject({ impressions: expect.any(Number), likes: expect.any(Number), clicks: null, quotes: null });
    expect((await sdk.posts.metrics(id)).history).toEqual([refreshed.metrics]);
    const again = await rejection(sdk.posts.refreshMetrics(id));
    expect(again).toBeInstanceOf(RateLimitError);
    expect(again).toMatchObject({ code: 'metrics_refresh_too_soon', status: 429 });
    const analytics = await sdk.analytics.get({ from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString(), accountId: linkedin });
    expect(analytics.totals.posts).toBeGreaterThanOrEqual(1);
    expect(analytics.byAccount.map((row) => row.accountId)).toEqual([linkedin]);
  });
});

describe('docs/sdk.md', () => {
  it('its first example runs as printed against the local stack and publishes a post per account', async () => {
    const runnable = pointedAtSource(await firstExample(), pathToFileURL(SDK_SOURCE).href);
    const owner = await provisionUser({ accounts: [{ platform: 'linkedin' }, { platform: 'x' }, { platform: 'instagram' }] });
    const dir = await mkdtemp(join(tmpdir(), 'sdk-example-'));
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void printed.push(parts.join(' ')));
    const saved = { base: process.env.SOCIAL_PUBLISHING_BASE_URL, key: process.env.SOCIAL_PUBLISHING_API_KEY };
    process.env.SOCIAL_PUBLISHING_BASE_URL = stack.baseUrl;
    process.env.SOCIAL_PUBLISHING_API_KEY = owner.apiKey;
    try {
      const file = join(dir, 'first-post.mts');
      await writeFile(file, runnable);
      await import(pathToFileURL(file).href);
    } finally {
      log.mockRestore();
      process.env.SOCIAL_PUBLISHING_BASE_URL = saved.base;
      process.env.SOCIAL_PUBLISHING_API_KEY = saved.key;
      if (saved.base === undefined) delete process.env.SOCIAL_PUBLISHING_BASE_URL;
      if (saved.key === undefined) delete process.env.SOCIAL_PUBLISHING_API_KEY;
      await rm(dir, { recursive: true, force: true });
    }
    expect(printed.sort()).toEqual([
      expect.stringMatching(/^linkedin: published https:\/\/www\.linkedin\.com\/feed\/update\//),
      expect.stringMatching(/^x: published https:\/\/x\.com\//),
    ]);
  }, 60_000);

  it('is the example the repository README shows', async () => {
    const readme = await readFile(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
    const copies = [...readme.matchAll(/```(?:ts|typescript)\n([\s\S]*?)```/g)].map((match) => match[1]).filter((block) => block?.includes("'@social-publishing/sdk'"));
    // The README's first example is this one: a copy that drifts, or none at all, fails here.
    expect(copies).toHaveLength(1);
    for (const copy of copies) expect(copy).toBe(await firstExample());
  });

  it('its first example type-checks as an integrator compiles it (strict, noUncheckedIndexedAccess, ES modules)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sdk-example-'));
    try {
      const file = join(dir, 'first-post.mts');
      await writeFile(file, pointedAtSource(await firstExample(), SDK_SOURCE.replace(/\.ts$/, '.js')));
      const program = ts.createProgram([file], {
        strict: true,
        noUncheckedIndexedAccess: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        lib: ['lib.es2023.d.ts'],
        types: ['node'],
        typeRoots: [fileURLToPath(new URL('../../node_modules/@types', import.meta.url))],
        skipLibCheck: true,
        noEmit: true,
      });
      const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      expect(problems).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

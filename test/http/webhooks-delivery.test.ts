/**
 * Webhooks end to end on the local stack: committed changes flow from the DynamoDB Local streams
 * through the stream poller and the router to the webhook queue, and the delivery worker signs and
 * sends them to a receiver on 127.0.0.1, which verifies them with the `standardwebhooks` package
 * (a receiver's library, not our code). Also: rotation overlap, retries after a 500, 410 disables,
 * redirects are not followed, a private address is refused at delivery, and a slow customer does
 * not hold up another's delivery.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { newId } from '../../lib/domain/ids.js';
import { consumingOf } from '../../functions/catalogue.js';
import { ENV } from '../../lib/config.js';
import { ENDPOINT_IN_FLIGHT_LIMIT, newEndpointId } from '../../lib/domain/webhooks.js';
import { DynamoDbWebhookStore } from '../../lib/store/dynamodb-webhook-store.js';
import { documentedApi } from '../support/openapi.js';
import { startPostsStack } from '../support/posts.js';
import { connectAccount, provisionUser, updateAccount, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../support/webhook-receiver.js';

interface Endpoint {
  id: string;
  secret: string;
  status: string;
  disabledReason: string | null;
}

let stack: TestStack;
let store: DynamoDbWebhookStore;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  stack = await startPostsStack({
    consumers: ['PublishWorker', 'WebhookDeliveryWorker'],
    streams: true,
    sandbox: true,
    // Longer than any wait below: a request to a hanging receiver ends only when the test releases it,
    // so "not held up" cannot be satisfied by the 10 s timeout freeing the workers.
    env: { [ENV.webhookDeliveryTimeoutSeconds]: '120' },
  });
  // Standard retries, as on AWS: while a hanging endpoint's hundreds of deliveries wait for its slots,
  // DynamoDB Local on a loaded machine drops a connection now and then (CI saw "socket hang up").
  const client = DynamoDBDocumentClient.from(dynamoDbClientFor(stack.info.dynamodbEndpoint, { retries: 'standard' }), { marshallOptions: { removeUndefinedValues: true } });
  store = new DynamoDbWebhookStore({ tableName: stack.tables.webhooks, client });
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.stop();
});

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  receivers.push(started);
  return started;
}

async function customer(accounts: Parameters<typeof provisionUser>[0] = {}): Promise<ProvisionedUser & { api: ReturnType<typeof documentedApi> }> {
  const user = await provisionUser({ accounts: [{ platform: 'x' }], ...accounts });
  return { ...user, api: documentedApi(stack.baseUrl, user.apiKey) };
}

async function register(api: ReturnType<typeof documentedApi>, url: string, enabledEvents: string[] = ['*']): Promise<Endpoint> {
  const response = await api.post<Endpoint>('/webhook_endpoints', { url, enabledEvents });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

function verify(secret: string, delivery: ReceivedDelivery): unknown {
  return new Webhook(secret).verify(delivery.body, {
    'webhook-id': delivery.headers['webhook-id'] ?? '',
    'webhook-timestamp': delivery.headers['webhook-timestamp'] ?? '',
    'webhook-signature': delivery.headers['webhook-signature'] ?? '',
  });
}

async function createPost(user: { api: ReturnType<typeof documentedApi> }, accountId: string): Promise<string> {
  const response = await user.api.post<{ posts: { id: string | null; status: string }[] }>('/posts', {
    accounts: [accountId],
    text: `webhook test ${newId('post').slice(-8)}`,
  });
  expect(response.status, response.text).toBe(202);
  return response.body.posts[0]?.id as string;
}

const ofType = (type: string, objectId?: string) => (received: ReceivedDelivery[]) =>
  received.some((delivery) => delivery.json.type === type && (objectId === undefined || delivery.json.data.object.id === objectId));

describe('events from committed changes, signed by Standard Webhooks', () => {
  it('delivers post.published with the post as GET /posts/{id} shows it, verified by the standardwebhooks package', async () => {
    const user = await customer();
    const hook = await receiver();
    const endpoint = await register(user.api, hook.url, ['post.published', 'post.failed']);
    const postId = await createPost(user, user.accounts[0]!.id);
    const received = await hook.waitFor(ofType('post.published', postId));
    const delivery = received.find((entry) => entry.json.data.object.id === postId)!;
    expect(verify(endpoint.secret, delivery)).toMatchObject({ type: 'post.published', object: 'event' });
    expect(delivery.headers['webhook-id']).toBe(delivery.json.id);
    const current = await user.api.get(`/posts/${postId}`);
    expect(delivery.json.data.object).toEqual(current.body);
    // A wrong secret does not verify: the check above is real.
    const other = await user.api.post<Endpoint>('/webhook_endpoints', { url: hook.url, enabledEvents: ['account.connected'] });
    expect(() => verify(other.body.secret, delivery)).toThrow();
  });

  it('delivers post.failed for a post the platform refused, and account.token_health_changed', async () => {
    const user = await customer();
    const refused = await connectAccount(user.workspaceIds[0]!, { platform: 'x', sandbox: 'refuse' });
    const hook = await receiver();
    const endpoint = await register(user.api, hook.url);
    const postId = await createPost(user, refused.id);
    await hook.waitFor(ofType('post.failed', postId));
    await updateAccount(user.accounts[0]!.id, { tokenHealth: 'needs_reauth' });
    const received = await hook.waitFor(ofType('account.token_health_changed', user.accounts[0]!.id));
    const health = received.find((entry) => entry.json.type === 'account.token_health_changed')!;
    expect(verify(endpoint.secret, health)).toBeTruthy();
    expect(health.json.data.object).toMatchObject({ object: 'account', id: user.accounts[0]!.id, tokenHealth: 'needs_reauth' });
    const failed = received.find((entry) => entry.json.type === 'post.failed')!;
    expect(failed.json.data.object).toMatchObject({ id: postId, status: 'failed' });
    // An endpoint gets only the types it asked for: no post.published was ever sent here.
    expect(received.some((entry) => entry.json.type === 'post.published')).toBe(false);
  });

  it('signs with both secrets for 24 hours after a rotation', async () => {
    const user = await customer();
    const hook = await receiver();
    const endpoint = await register(user.api, hook.url, ['post.published']);
    const rotated = await user.api.post<Endpoint>(`/webhook_endpoints/${endpoint.id}/rotate_secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    const test = await user.api.post<{ id: string }>(`/webhook_endpoints/${endpoint.id}/test`);
    expect(test.status).toBe(202);
    const [delivery] = (await hook.waitFor(ofType('webhook.test'))).filter((entry) => entry.json.id === test.body.id);
    expect(delivery?.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(verify(endpoint.secret, delivery!)).toBeTruthy();
    expect(verify(rotated.body.secret, delivery!)).toBeTruthy();
  });
});

describe('delivery', () => {
  it('tries again after a 500, with the same webhook-id, and records each attempt', async () => {
    const user = await customer();
    const hook = await receiver();
    let failed = false;
    hook.answer = (request) => {
      if (request.json.type !== 'webhook.test' || failed) return { status: 200 };
      failed = true;
      return { status: 500 };
    };
    const endpoint = await register(user.api, hook.url, ['post.published']);
    const test = await user.api.post<{ id: string }>(`/webhook_endpoints/${endpoint.id}/test`);
    const tests = (all: ReceivedDelivery[]) => all.filter((entry) => entry.json.type === 'webhook.test');
    const received = tests(await hook.waitFor((all) => tests(all).length >= 2));
    expect(received.map((entry) => entry.headers['webhook-id'])).toEqual([test.body.id, test.body.id]);
    const [delivery] = await store.listDeliveries(endpoint.id, 5);
    await expect.poll(async () => (await store.listDeliveries(endpoint.id, 5))[0]?.status, { timeout: 15_000 }).toBe('succeeded');
    const recorded = (await store.listDeliveries(endpoint.id, 5))[0]!;
    expect(delivery?.eventId).toBe(test.body.id);
    expect(recorded.attempts).toBe(2);
    expect(recorded.attemptLog.map((attempt) => attempt.statusCode)).toEqual([500, 200]);
  });

  it('disables the endpoint at once on 410 Gone, and sends it nothing more', async () => {
    const user = await customer();
    const hook = await receiver();
    hook.answer = () => ({ status: 410 });
    const endpoint = await register(user.api, hook.url, ['post.published']);
    await user.api.post(`/webhook_endpoints/${endpoint.id}/test`);
    await hook.waitFor((all) => all.length >= 1);
    await expect.poll(async () => (await user.api.get<Endpoint>(`/webhook_endpoints/${endpoint.id}`)).body.status, { timeout: 15_000 }).toBe('disabled');
    const shown = await user.api.get<Endpoint>(`/webhook_endpoints/${endpoint.id}`);
    expect(shown.body.disabledReason).toMatch(/410/);
    const again = await user.api.post(`/webhook_endpoints/${endpoint.id}/test`);
    expect(again.status).toBe(409);
  });

  it('disables an endpoint whose deliveries have all failed for 3 days, saying why', async () => {
    const user = await customer();
    const hook = await receiver();
    hook.answer = () => ({ status: 503 });
    const endpoint = await register(user.api, hook.url, ['post.published']);
    // Its run of failures began 3 days and a minute ago (as the worker recorded it then).
    const since = new Date(Date.now() - 3 * 24 * 3600_000 - 60_000).toISOString();
    await store.updateEndpoint(user.userId, endpoint.id, { failingSince: since }, new Date());
    await user.api.post(`/webhook_endpoints/${endpoint.id}/test`);
    await expect.poll(async () => (await user.api.get<Endpoint>(`/webhook_endpoints/${endpoint.id}`)).body.status, { timeout: 15_000 }).toBe('disabled');
    const shown = await user.api.get<Endpoint>(`/webhook_endpoints/${endpoint.id}`);
    expect(shown.body.disabledReason).toContain(since);
    expect(shown.body.disabledReason).toMatch(/3 days/);
    // A success in between would have ended the run: enabling again starts a new one.
    const enabled = await user.api.request<Endpoint>('PATCH', `/webhook_endpoints/${endpoint.id}`, { body: { status: 'enabled' } });
    expect(enabled.body).toMatchObject({ status: 'enabled', disabledReason: null });
    expect((await store.getEndpoint(user.userId, endpoint.id))?.failingSince).toBeNull();
  });

  it('does not follow a redirect', async () => {
    const user = await customer();
    const hook = await receiver();
    hook.answer = (request) => (request.path === '/hooks' ? { status: 302, headers: { location: `${hook.origin}/elsewhere` } } : { status: 200 });
    const endpoint = await register(user.api, hook.url, ['post.published']);
    await user.api.post(`/webhook_endpoints/${endpoint.id}/test`);
    await expect.poll(async () => (await store.listDeliveries(endpoint.id, 5))[0]?.attempts, { timeout: 15_000 }).toBe(1);
    const [delivery] = await store.listDeliveries(endpoint.id, 5);
    expect(delivery?.attemptLog[0]).toMatchObject({ statusCode: 302 });
    expect(delivery?.attemptLog[0]?.error).toMatch(/redirect/);
    expect(hook.received.map((entry) => entry.path)).toEqual(['/hooks']);
  });

  it('refuses, at delivery, an endpoint whose host now resolves to a private address (no request is made)', async () => {
    const user = await customer();
    const hook = await receiver();
    const endpoint = await register(user.api, hook.url, ['post.published']);
    // As if its DNS changed after registration: *.localhost resolves to 127.0.0.1 in this process,
    // and loopback is allowed only as the literal http://127.0.0.1 of the local stack.
    const port = new URL(hook.url).port;
    await store.updateEndpoint(user.userId, endpoint.id, { url: `https://rebind.localhost:${port}/hooks` }, new Date());
    await user.api.post(`/webhook_endpoints/${endpoint.id}/test`);
    await expect.poll(async () => (await store.listDeliveries(endpoint.id, 5))[0]?.attempts, { timeout: 15_000 }).toBe(1);
    const [delivery] = await store.listDeliveries(endpoint.id, 5);
    expect(delivery?.attemptLog[0]).toMatchObject({ statusCode: null });
    expect(delivery?.attemptLog[0]?.error).toMatch(/not public/);
    expect(hook.received).toEqual([]);
  });

  it('never lets one customer\'s hanging endpoint hold up another customer\'s delivery', async () => {
    const slow = await customer();
    const fast = await customer();
    const hanging = await receiver();
    hanging.answer = () => 'hold';
    const quick = await receiver();
    const slowEndpoint = await register(slow.api, hanging.url, ['post.published']);
    const fastEndpoint = await register(fast.api, quick.url, ['post.published']);
    // Far more deliveries to the hanging endpoint than the worker has pollers and batch places
    // (sent six at a time: one by one they took most of the test's time on a loaded machine).
    const sends = consumingOf('webhook').batchSize * consumingOf('webhook').maxConcurrency + 30;
    let sent = 0;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while (sent < sends) {
          sent += 1;
          expect((await slow.api.post(`/webhook_endpoints/${slowEndpoint.id}/test`)).status).toBe(202);
        }
      }),
    );
    await hanging.waitFor((all) => all.length >= 1);
    await fast.api.post(`/webhook_endpoints/${fastEndpoint.id}/test`);
    await quick.waitFor((all) => all.length >= 1);
    // The fast customer was served while every request to the hanging endpoint was still open
    // (they end only on release), and the hanging endpoint never had more than its slots in flight.
    expect(hanging.closedUnanswered).toBe(0);
    expect(hanging.received.length).toBeLessThanOrEqual(ENDPOINT_IN_FLIGHT_LIMIT);
    hanging.release();
    await store.updateEndpoint(slow.userId, slowEndpoint.id, { status: 'disabled' }, new Date());
  }, 120_000);
});

describe('a burst to one endpoint (the router\'s batch messages)', () => {
  /**
   * `count` posts on the user's accounts, all due at the same second some seconds ahead: the router
   * sees them in few batches. The creates go together, and the second is 8 s ahead: made one by one
   * 4 s ahead, a loaded CI machine once took longer than that and the last create was refused as past.
   */
  async function burst(user: Awaited<ReturnType<typeof customer>>, count: number): Promise<string[]> {
    const due = new Date(Math.ceil((Date.now() + 8_000) / 1000) * 1000).toISOString();
    const accounts = user.accounts.map((account) => account.id);
    const requests = Array.from({ length: Math.ceil(count / accounts.length) }, (_, index) => accounts.slice(0, count - index * accounts.length));
    const responses = await Promise.all(
      requests.map((batch) =>
        user.api.post<{ posts: { id: string | null }[] }>('/posts', {
          accounts: batch,
          text: `webhook burst ${newId('post').slice(-8)}`,
          scheduledFor: due,
        }),
      ),
    );
    for (const response of responses) expect(response.status, response.text).toBe(202);
    return responses.flatMap((response) => response.body.posts.map((post) => post.id as string));
  }

  const publishedIds = (received: ReceivedDelivery[]): string[] =>
    received.filter((delivery) => delivery.json.type === 'post.published').map((delivery) => String(delivery.json.data.object.id));

  it('delivers 50 post events to one endpoint, each once, never more than its in-flight limit at once', async () => {
    const user = await customer({ accounts: Array.from({ length: 5 }, () => ({ platform: 'x' as const })) });
    const hook = await receiver();
    // Slow enough that requests overlap: an unbounded sender would have them all open at once.
    hook.answer = () => ({ status: 204, delayMs: 150 });
    const endpoint = await register(user.api, hook.url, ['post.published']);
    const ids = await burst(user, 50);
    await hook.waitFor((received) => ids.every((id) => publishedIds(received).includes(id)), 60_000);
    expect(hook.maxOpen).toBeLessThanOrEqual(ENDPOINT_IN_FLIGHT_LIMIT);
    expect(publishedIds(hook.received).sort()).toEqual([...ids].sort());
    for (const delivery of hook.received) expect(verify(endpoint.secret, delivery)).toBeTruthy();
    // Each recorded as delivered at its first attempt (the record follows the answer).
    await expect
      .poll(async () => (await store.listDeliveries(endpoint.id, 100)).filter((delivery) => delivery.status === 'succeeded' && delivery.attempts === 1).length, { timeout: 15_000 })
      .toBe(50);
  }, 90_000);

  it('a burst to a hanging endpoint holds only its own slots: another customer\'s event arrives meanwhile', async () => {
    const slow = await customer({ accounts: Array.from({ length: 5 }, () => ({ platform: 'x' as const })) });
    const fast = await customer();
    const hanging = await receiver();
    hanging.answer = () => 'hold';
    const quick = await receiver();
    const slowEndpoint = await register(slow.api, hanging.url, ['post.published']);
    await register(fast.api, quick.url, ['post.published']);
    await burst(slow, 40);
    await hanging.waitFor((all) => all.length >= ENDPOINT_IN_FLIGHT_LIMIT, 60_000);
    const postId = await createPost(fast, fast.accounts[0]!.id);
    await quick.waitFor(ofType('post.published', postId), 60_000);
    // Served while every request to the hanging endpoint was still open, and the hanging one never
    // got more than its slots' worth.
    expect(hanging.closedUnanswered).toBe(0);
    expect(hanging.received.length).toBe(ENDPOINT_IN_FLIGHT_LIMIT);
    hanging.release();
    await store.updateEndpoint(slow.userId, slowEndpoint.id, { status: 'disabled' }, new Date());
  }, 90_000);
});

describe('deleted endpoints', () => {
  it('receive nothing more', async () => {
    const user = await customer();
    const hook = await receiver();
    // Post events only: the account.connected of the customer's own accounts, written before the
    // endpoint, may be routed to it while it still exists and go out before the delete (rightly).
    const endpoint = await register(user.api, hook.url, ['post.published', 'post.failed']);
    const id = newEndpointId();
    expect(id).toMatch(/^we_/);
    const deleted = await user.api.delete(`/webhook_endpoints/${endpoint.id}`);
    expect(deleted.status).toBe(200);
    const postId = await createPost(user, user.accounts[0]!.id);
    await expect.poll(async () => (await user.api.get<{ status: string }>(`/posts/${postId}`)).body.status, { timeout: 20_000 }).toBe('published');
    // The router has handled the change (events for other users would have gone out by now); none came here.
    const watcher = await receiver();
    const control = await register(user.api, watcher.url);
    await user.api.post(`/webhook_endpoints/${control.id}/test`);
    await watcher.waitFor((all) => all.length >= 1);
    expect(hook.received).toEqual([]);
  });
});

/**
 * The delivery worker's claims (lib/use-cases/webhooks/deliver-webhook.ts): a message claims its
 * attempts together before its lanes send them, so the guarantees the per-attempt claim gave must
 * hold for the group: two messages racing for the same events send each once, and the claims of
 * what a turn did not send are given back, so the message put back on the queue sends them at once.
 * Against DynamoDB Local (the shared webhooks table), a real fauxqs queue and a real receiver on
 * 127.0.0.1; the clock is the test's, so a turn can be made to end.
 */
import { randomBytes } from 'node:crypto';
import { PurgeQueueCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { deleteQueues, ensureQueues, sqsClientFor, type LocalQueues } from '../../local/messaging.js';
import { parseWebhookQueueMessage, SqsWebhookQueue } from '../../lib/dispatch/webhook-queue.js';
import { ENDPOINT_TURN_MS, newEndpointId, newSigningSecret, secretContext, type WebhookEndpoint } from '../../lib/domain/webhooks.js';
import { HttpWebhookSender } from '../../lib/egress/webhook-sender.js';
import { DynamoDbWebhookDeliveryStore } from '../../lib/store/dynamodb-webhook-delivery-store.js';
import { LocalTokenCipher } from '../../lib/store/token-cipher.js';
import type { WebhookBatchMessage, WebhookQueueMessage } from '../../lib/use-cases/ports/webhooks.js';
import { DeliverWebhook } from '../../lib/use-cases/webhooks/deliver-webhook.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const { dynamodbEndpoint, sqsEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const tableName = sharedTables.webhooks ?? '';
const cipher = new LocalTokenCipher(randomBytes(32));

let queues: LocalQueues;
let sqs: SQSClient;
let hook: WebhookReceiver;

beforeAll(async () => {
  queues = await ensureQueues(sqsEndpoint, { prefix: `wc${randomBytes(4).toString('hex')}-` });
  sqs = sqsClientFor(sqsEndpoint);
  hook = await startWebhookReceiver();
});

afterAll(async () => {
  await hook.stop();
  raw.destroy();
  sqs.destroy();
  await deleteQueues(sqsEndpoint, queues);
});

beforeEach(async () => {
  await sqs.send(new PurgeQueueCommand({ QueueUrl: queues.webhook.url }));
  hook.received.length = 0;
  hook.maxOpen = 0;
  hook.answer = () => ({ status: 204 });
});

/** A clock the test moves: real time plus `skewMs`. */
const clock = { skewMs: 0, now: () => new Date(Date.now() + clock.skewMs) };

/** A worker as the delivery function wires it, each with its own store (as two Lambda instances). */
function worker(): { deliver: DeliverWebhook; store: DynamoDbWebhookDeliveryStore } {
  const store = new DynamoDbWebhookDeliveryStore({ tableName, client });
  const deliver = new DeliverWebhook({
    store,
    cipher,
    sender: new HttpWebhookSender({ allowLoopback: true, timeoutMs: 5_000 }),
    queue: new SqsWebhookQueue(sqs, queues.webhook.url),
    clock,
    attemptTimeoutMs: 5_000,
  });
  return { deliver, store };
}

/** An endpoint on the receiver and `count` events with their pending deliveries, as the router writes them; the router's message for them. */
async function routed(count: number): Promise<{ endpoint: WebhookEndpoint; message: WebhookBatchMessage }> {
  const { store } = worker();
  const userId = `user_${randomBytes(6).toString('hex')}`;
  const id = newEndpointId();
  const now = new Date().toISOString();
  const endpoint: WebhookEndpoint = {
    id,
    userId,
    url: hook.url,
    enabledEvents: ['*'],
    description: null,
    status: 'enabled',
    disabledReason: null,
    createdAt: now,
    updatedAt: now,
    secrets: [{ encrypted: await cipher.encrypt(newSigningSecret(), secretContext(id)), createdAt: now, expiresAt: null }],
    failingSince: null,
  };
  expect(await store.createEndpoint(endpoint)).toBe('created');
  const events: { eventId: string; eventCreatedAt: string }[] = [];
  for (let index = 0; index < count; index++) {
    const eventId = `evt_${randomBytes(8).toString('hex')}`;
    const createdAt = new Date(Date.now() - 1_000).toISOString();
    await store.putEvent({ id: eventId, userId, type: 'post.published', createdAt, body: JSON.stringify({ id: eventId, object: 'event', type: 'post.published', createdAt, data: { object: {} } }) });
    await store.putDelivery({ endpointId: id, userId, eventId, eventType: 'post.published', eventCreatedAt: createdAt, status: 'pending', attempts: 0, attemptLog: [], nextAttemptAt: createdAt, createdAt });
    events.push({ eventId, eventCreatedAt: createdAt });
  }
  return { endpoint, message: { userId, endpointId: id, events } };
}

/** The messages visible in the queue now. */
async function queued(): Promise<WebhookQueueMessage[]> {
  const found: WebhookQueueMessage[] = [];
  for (;;) {
    const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queues.webhook.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 60 }));
    if ((out.Messages ?? []).length === 0) return found;
    for (const message of out.Messages ?? []) {
      const parsed = parseWebhookQueueMessage(message.Body ?? '');
      if (parsed) found.push(parsed);
    }
  }
}

const sentIds = (): string[] => hook.received.map((delivery) => delivery.headers['webhook-id'] ?? '');

describe('the claims of a message\'s attempts, taken together', () => {
  it('two messages racing for the same events (two workers) send each once, and record each once', async () => {
    const { endpoint, message } = await routed(30);
    const [first, second] = [worker(), worker()];
    const results = (await Promise.all([first.deliver.execute(message), second.deliver.execute(message)])).flat();
    const ids = message.events.map((event) => event.eventId);
    expect([...sentIds()].sort()).toEqual([...ids].sort());
    // Every event: one succeeded attempt; the other message dropped it, or found the endpoint busy
    // and put it back (then it is dropped as settled when handled again).
    expect(results.filter((result) => result.outcome === 'succeeded')).toHaveLength(30);
    const deliveries = await first.store.listDeliveries(endpoint.id, 100);
    expect(deliveries.map((delivery) => [delivery.status, delivery.attempts])).toEqual(ids.map(() => ['succeeded', 1]));
    for (const again of await queued()) expect((await first.deliver.execute(again)).every((result) => result.outcome === 'dropped')).toBe(true);
    expect(sentIds()).toHaveLength(30);
  }, 60_000);

  it('a message with the same event twice sends it once', async () => {
    const { message } = await routed(3);
    const doubled: WebhookBatchMessage = { ...message, events: [...message.events, ...message.events] };
    const results = await worker().deliver.execute(doubled);
    expect([...sentIds()].sort()).toEqual(message.events.map((event) => event.eventId).sort());
    expect(results.filter((result) => result.outcome === 'succeeded')).toHaveLength(3);
  }, 30_000);

  it('what a turn did not send is given back: the message put back on the queue sends it at once', async () => {
    const { endpoint, message } = await routed(25);
    clock.skewMs = 0;
    // The first request ends the turn (the clock jumps past it): the lanes start nothing more.
    hook.answer = () => {
      clock.skewMs = ENDPOINT_TURN_MS + 1_000;
      return { status: 204 };
    };
    const { deliver, store } = worker();
    const results = await deliver.execute(message);
    const sentFirst = sentIds().length;
    expect(sentFirst).toBeGreaterThanOrEqual(1);
    expect(sentFirst).toBeLessThanOrEqual(10);
    expect(results.filter((result) => result.outcome === 'waiting')).toHaveLength(25 - sentFirst);
    const [requeued, ...others] = await queued();
    expect(others).toEqual([]);
    // Still within the claims' lease: only their release lets the requeued message send them.
    const again = await deliver.execute(requeued as WebhookQueueMessage);
    expect(again.filter((result) => result.outcome === 'succeeded')).toHaveLength(25 - sentFirst);
    expect([...sentIds()].sort()).toEqual(message.events.map((event) => event.eventId).sort());
    const deliveries = await store.listDeliveries(endpoint.id, 100);
    expect(deliveries.every((delivery) => delivery.status === 'succeeded' && delivery.attempts === 1)).toBe(true);
    clock.skewMs = 0;
  }, 60_000);
});

describe('claims taken while the message is read', () => {
  it('a message naming an older attempt of a delivery that is due sends the delivery\'s next one, once', async () => {
    const { endpoint, message } = await routed(2);
    const { deliver, store } = worker();
    // The first event's attempt 1 failed and its retry is due now; the message (the router's,
    // handed over again, or one the sweeper re-sent) still names attempt 1.
    const [retried] = await store.readForDelivery(endpoint.userId, endpoint.id, [message.events[0]!]).then((found) => [...found.records.values()]);
    const before = retried!.delivery!;
    const now = new Date();
    expect(await store.claimAttempt(before, 1, { token: 'earlier-worker', now, until: new Date(now.getTime() + 15_000) })).toBe(true);
    await store.recordAttempt(before, 1, 'earlier-worker', {
      entry: { at: new Date().toISOString(), statusCode: 500, latencyMs: 5, error: 'HTTP 500' },
      status: 'pending',
      nextAttemptAt: new Date(Date.now() - 1_000).toISOString(),
    });
    const results = await deliver.execute(message);
    expect(results.filter((result) => result.outcome === 'succeeded')).toHaveLength(2);
    expect([...sentIds()].sort()).toEqual(message.events.map((event) => event.eventId).sort());
    const deliveries = new Map((await store.listDeliveries(endpoint.id, 100)).map((delivery) => [delivery.eventId, delivery]));
    expect(deliveries.get(message.events[0]!.eventId)).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(deliveries.get(message.events[1]!.eventId)).toMatchObject({ status: 'succeeded', attempts: 1 });
    // Handled again: nothing is sent twice.
    expect((await deliver.execute(message)).every((result) => result.outcome === 'dropped')).toBe(true);
    expect(sentIds()).toHaveLength(2);
  }, 30_000);

  it('a message with nothing to send gives back the slots it took meanwhile, and claims nothing', async () => {
    const { endpoint, message } = await routed(3);
    const { deliver, store } = worker();
    expect(await store.disableEndpoint(endpoint.userId, endpoint.id, 'Disabled by the test.', new Date())).toBe(true);
    const results = await deliver.execute(message);
    expect(results.every((result) => result.outcome === 'dropped')).toBe(true);
    expect(sentIds()).toEqual([]);
    // All 10 slots free again, and every delivery cancelled with no claim left on it.
    expect(await store.acquireSlots(endpoint.id, 'after', 10, new Date(), new Date(Date.now() + 1_000))).toHaveLength(10);
    const deliveries = await store.listDeliveries(endpoint.id, 100);
    expect(deliveries.map((delivery) => delivery.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  }, 30_000);
});

describe('an endpoint\'s slots', () => {
  it('a message that got one slot takes more as other messages give theirs back, never more than 10 in all', async () => {
    const { message } = await routed(30);
    const { deliver, store } = worker();
    // Another message for the endpoint holds 9 of its 10 slots for now.
    const now = new Date();
    const others = await store.acquireSlots(message.endpointId, 'other', 9, now, new Date(now.getTime() + 60_000));
    expect(others).toHaveLength(9);
    hook.answer = () => ({ status: 204, delayMs: 100 });
    const delivering = deliver.execute(message);
    await hook.waitFor((received) => received.length >= 3, 10_000);
    expect(hook.maxOpen).toBe(1);
    for (const slot of others) await store.releaseSlot(message.endpointId, slot, 'other');
    const results = await delivering;
    expect(results.filter((result) => result.outcome === 'succeeded')).toHaveLength(30);
    expect(hook.maxOpen).toBeGreaterThan(1);
    expect(hook.maxOpen).toBeLessThanOrEqual(10);
    // Every slot given back at the end.
    expect(await store.acquireSlots(message.endpointId, 'after', 10, new Date(), new Date(Date.now() + 1_000))).toHaveLength(10);
  }, 30_000);

  it('are read, then the free ones and those whose lease ran out taken; none of one still held', async () => {
    const { store } = worker();
    const endpointId = newEndpointId();
    const now = new Date();
    const lease = new Date(now.getTime() + 20_000);
    expect(await store.acquireSlots(endpointId, 'a', 3, now, lease)).toHaveLength(3);
    const [expired] = await store.acquireSlots(endpointId, 'b', 1, now, new Date(now.getTime() + 1_000));
    const later = new Date(now.getTime() + 2_000);
    const taken = await store.acquireSlots(endpointId, 'c', 10, later, new Date(later.getTime() + 20_000));
    // 6 free and b's (its lease over); a's 3 still held.
    expect(taken).toHaveLength(7);
    expect(taken).toContain(expired);
    expect(await store.acquireSlots(endpointId, 'd', 10, later, new Date(later.getTime() + 20_000))).toEqual([]);
    await store.releaseSlot(endpointId, taken[0]!, 'c');
    expect(await store.acquireSlots(endpointId, 'd', 10, later, new Date(later.getTime() + 20_000))).toEqual([taken[0]]);
  });
});

/**
 * The outbox of webhook deliveries (the byPending index) and the sweep that re-sends the ones whose
 * queue message was lost, against DynamoDB Local (the shared tables) and a real fauxqs queue. The
 * clock is set in the year 2000, so the byPending Queries see only this file's deliveries, never
 * the other files' (pending in the present).
 */
import { randomBytes } from 'node:crypto';
import { GetQueueAttributesCommand, PurgeQueueCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { deleteQueues, ensureQueues, sqsClientFor, type LocalQueues } from '../../local/messaging.js';
import { parseWebhookQueueMessage, SqsWebhookQueue } from '../../lib/dispatch/webhook-queue.js';
import { newEndpointId } from '../../lib/domain/webhooks.js';
import { pendingShard } from '../../lib/store/dynamodb-webhook-deliveries.js';
import { DynamoDbWebhookStore } from '../../lib/store/dynamodb-webhook-store.js';
import { PENDING_DELIVERY_SHARDS } from '../../lib/store/tables.js';
import { isBatchMessage, type DeliveryRecord, type WebhookDeliveryMessage } from '../../lib/use-cases/ports/webhooks.js';
import { SweepDeliveries } from '../../lib/use-cases/webhooks/sweep-deliveries.js';

const { dynamodbEndpoint, sqsEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const tableName = sharedTables.webhooks ?? '';
const store = new DynamoDbWebhookStore({ tableName, client });
const T0 = Date.parse('2000-01-01T00:00:00.000Z');

let queues: LocalQueues;
let sqs: SQSClient;

beforeAll(async () => {
  queues = await ensureQueues(sqsEndpoint, { prefix: `wo${randomBytes(4).toString('hex')}-` });
  sqs = sqsClientFor(sqsEndpoint);
});

afterAll(async () => {
  raw.destroy();
  sqs.destroy();
  await deleteQueues(sqsEndpoint, queues);
});

// Each test starts with an empty queue; deliveries of earlier tests are settled at their end.
beforeEach(async () => {
  await sqs.send(new PurgeQueueCommand({ QueueUrl: queues.webhook.url }));
});

const at = (ms: number) => new Date(T0 + ms);

function sweeper(nowMs: () => number, options: { graceMs?: number; shards?: number } = {}): SweepDeliveries {
  return new SweepDeliveries({
    pending: store,
    queue: new SqsWebhookQueue(sqs, queues.webhook.url),
    clock: { now: () => at(nowMs()) },
    shards: options.shards ?? PENDING_DELIVERY_SHARDS,
    graceMs: options.graceMs ?? 60_000,
    resendIntervalMs: 60_000,
  });
}

/** A pending delivery whose (first or next) attempt is due at `dueMs`. */
async function pendingDelivery(dueMs: number, attempts = 0): Promise<DeliveryRecord> {
  const eventId = `evt_${randomBytes(8).toString('hex')}`;
  const delivery: DeliveryRecord = {
    endpointId: newEndpointId(),
    userId: `user_${randomBytes(4).toString('hex')}`,
    eventId,
    eventType: 'post.published',
    eventCreatedAt: at(dueMs).toISOString(),
    status: 'pending',
    attempts,
    attemptLog: [],
    nextAttemptAt: at(dueMs).toISOString(),
    createdAt: at(dueMs).toISOString(),
  };
  expect(await store.putDelivery(delivery)).toBe(true);
  return delivery;
}

async function indexKeys(delivery: DeliveryRecord): Promise<{ pendingPk?: string; pendingSk?: string; sweptAt?: string }> {
  const out = await client.send(
    new GetCommand({ TableName: tableName, Key: { pk: `ENDPOINT#${delivery.endpointId}`, sk: `DELIVERY#${delivery.eventCreatedAt}#${delivery.eventId}` }, ConsistentRead: true }),
  );
  const item = out.Item ?? {};
  return { pendingPk: item.pendingPk as string | undefined, pendingSk: item.pendingSk as string | undefined, sweptAt: item.sweptAt as string | undefined };
}

async function listed(delivery: DeliveryRecord, toMs: number): Promise<boolean> {
  const entries = await store.listPending(pendingShard(delivery.endpointId, delivery.eventId), { to: at(toMs), limit: 1000 });
  return entries.some((entry) => entry.eventId === delivery.eventId);
}

/** The messages waiting (visible) in the webhook queue now. */
async function visibleMessages(): Promise<WebhookDeliveryMessage[]> {
  const found: WebhookDeliveryMessage[] = [];
  for (;;) {
    const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queues.webhook.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 60 }));
    const messages = out.Messages ?? [];
    if (messages.length === 0) return found;
    for (const message of messages) {
      const parsed = parseWebhookQueueMessage(message.Body ?? '');
      // The sweeper sends one message per delivery, never a batch.
      if (parsed && !isBatchMessage(parsed)) found.push(parsed);
    }
  }
}

async function delayedCount(): Promise<number> {
  const out = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queues.webhook.url, AttributeNames: ['ApproximateNumberOfMessagesDelayed'] }));
  return Number(out.Attributes?.ApproximateNumberOfMessagesDelayed ?? 0);
}

/** The delivery cancelled as it is now. */
async function settle(delivery: DeliveryRecord): Promise<void> {
  const now = (await store.getDelivery(delivery.endpointId, delivery.eventCreatedAt, delivery.eventId))!;
  expect(await store.setDeliveryStatus(now, 'cancelled', null)).toBe(true);
}

/** Attempt `attempt` claimed by `token` at `nowMs`, as a worker does before sending it. */
async function claimed(delivery: DeliveryRecord, attempt: number, token: string, nowMs: number): Promise<string> {
  expect(await store.claimAttempt(delivery, attempt, { token, now: at(nowMs), until: at(nowMs + 15_000) })).toBe(true);
  return token;
}

describe('the outbox of pending deliveries (byPending)', () => {
  it('holds a delivery while it is pending, at its next attempt, and loses it with the write that settles it', async () => {
    const first = await pendingDelivery(0);
    expect(await indexKeys(first)).toMatchObject({ pendingPk: `pending#${pendingShard(first.endpointId, first.eventId)}` });
    expect(await listed(first, -1)).toBe(false);
    expect(await listed(first, 0)).toBe(true);

    // Attempt 1 failed: the same write moves it to the retry's time.
    const retryAt = at(30_000).toISOString();
    expect(await store.recordAttempt(first, 1, await claimed(first, 1, 'w1', 1000), { entry: { at: at(1000).toISOString(), statusCode: 500, latencyMs: 5, error: 'HTTP 500' }, status: 'pending', nextAttemptAt: retryAt })).toBe(true);
    expect(await listed(first, 29_000)).toBe(false);
    expect(await listed(first, 30_000)).toBe(true);
    // Attempt 2 succeeded: out of the outbox.
    expect(await store.recordAttempt(first, 2, await claimed(first, 2, 'w2', 31_000), { entry: { at: at(31_000).toISOString(), statusCode: 200, latencyMs: 5, error: null }, status: 'succeeded', nextAttemptAt: null })).toBe(true);
    expect(await indexKeys(first)).toEqual({ pendingPk: undefined, pendingSk: undefined, sweptAt: undefined });

    // A resend makes it pending again (in the outbox); cancelling takes it out.
    expect(await store.setDeliveryStatus({ ...first, status: 'succeeded', attempts: 2 }, 'pending', at(40_000).toISOString())).toBe(true);
    expect(await listed(first, 40_000)).toBe(true);
    await settle(first);
    expect(await listed(first, 3_600_000)).toBe(false);

    // Failed for good (no next attempt): out as well.
    const second = await pendingDelivery(0);
    await store.recordAttempt(second, 1, await claimed(second, 1, 'w3', 1000), { entry: { at: at(1000).toISOString(), statusCode: 500, latencyMs: 5, error: 'HTTP 500' }, status: 'failed', nextAttemptAt: null });
    expect(await listed(second, 3_600_000)).toBe(false);
  });

  it('claims an attempt once: a second message for it is refused until the claim is given back or its lease runs out', async () => {
    const delivery = await pendingDelivery(0);
    const claim = (token: string, nowMs: number) => store.claimAttempt(delivery, 1, { token, now: at(nowMs), until: at(nowMs + 15_000) });
    expect(await claim('a', 0)).toBe(true);
    expect(await claim('b', 1000)).toBe(false);
    await store.releaseAttempt(delivery, 'b'); // not its claim: nothing changes
    expect(await claim('c', 2000)).toBe(false);
    await store.releaseAttempt(delivery, 'a');
    expect(await claim('d', 3000)).toBe(true);
    expect(await claim('e', 19_000)).toBe(true); // d's lease ran out (a worker that died)
    // An attempt already made cannot be claimed again.
    await store.recordAttempt(delivery, 1, 'e', { entry: { at: at(20_000).toISOString(), statusCode: 500, latencyMs: 5, error: 'HTTP 500' }, status: 'pending', nextAttemptAt: at(25_000).toISOString() });
    expect(await store.claimAttempt(delivery, 1, { token: 'f', now: at(21_000), until: at(36_000) })).toBe(false);
    expect(await store.claimAttempt(delivery, 2, { token: 'g', now: at(25_000), until: at(40_000) })).toBe(true);
    await settle(delivery);
  });
});

describe('the sweep of pending deliveries', () => {
  it('re-sends a delivery only once it is late by the grace period, once per interval, for its next attempt', async () => {
    const delivery = await pendingDelivery(0, 2);
    let now = 59_000;
    const sweep = sweeper(() => now);
    expect(await sweep.execute({ lookAhead: false })).toMatchObject({ resent: 0 });
    expect(await visibleMessages()).toEqual([]);

    now = 61_000;
    expect(await sweep.execute({ lookAhead: false })).toMatchObject({ resent: 1, failedToSend: 0 });
    const [message, ...others] = await visibleMessages();
    expect(others).toEqual([]);
    expect(message).toEqual({ userId: delivery.userId, endpointId: delivery.endpointId, eventId: delivery.eventId, eventCreatedAt: delivery.eventCreatedAt, attempt: 3, notBefore: null });
    expect((await indexKeys(delivery)).sweptAt).toBe(at(61_000).toISOString());

    // Stamped: the next runs leave it alone for the interval, then send again (that message was lost too).
    now = 62_000;
    expect(await sweep.execute({ lookAhead: false })).toMatchObject({ resent: 0 });
    now = 61_000 + 60_000 + 60_000 - 1;
    expect(await sweep.execute({ lookAhead: false })).toMatchObject({ resent: 0 });
    now = 61_000 + 60_000 + 60_000 + 1;
    expect(await sweep.execute({ lookAhead: false })).toMatchObject({ resent: 1 });
    expect((await visibleMessages()).map((one) => one.eventId)).toEqual([delivery.eventId]);
    await settle(delivery);
  });

  it('two sweepers that list the same late deliveries send each once', async () => {
    const deliveries = await Promise.all([0, 1, 2, 3, 4].map(() => pendingDelivery(0)));
    const now = () => 120_000;
    const results = await Promise.all([sweeper(now).execute({ lookAhead: false }), sweeper(now).execute({ lookAhead: false })]);
    expect(results.reduce((sum, result) => sum + result.resent, 0)).toBe(5);
    const messages = await visibleMessages();
    expect(messages.map((one) => one.eventId).sort()).toEqual(deliveries.map((one) => one.eventId).sort());
    for (const delivery of deliveries) await settle(delivery);
  });

  it('leaves alone a delivery whose attempt a worker holds, and takes it once the claim is gone', async () => {
    const delivery = await pendingDelivery(0);
    expect(await store.claimAttempt(delivery, 1, { token: 'worker', now: at(100_000), until: at(115_000) })).toBe(true);
    let now = 110_000;
    const sweep = sweeper(() => now);
    expect(await sweep.execute({ lookAhead: false })).toMatchObject({ resent: 0 });
    now = 116_000; // the worker died: its lease ran out
    expect(await sweep.execute({ lookAhead: false })).toMatchObject({ resent: 1 });
    expect((await visibleMessages()).map((one) => [one.eventId, one.attempt])).toEqual([[delivery.eventId, 1]]);
    await settle(delivery);
  });

  it('a look-ahead run (after a restart emptied the queue) re-sends at once what is due, and with its delay what is due within 15 minutes', async () => {
    const late = await pendingDelivery(500_000);
    const soon = await pendingDelivery(500_000 + 5 * 60_000, 1);
    const far = await pendingDelivery(500_000 + 20 * 60_000, 3);
    const now = 500_001;
    expect(await sweeper(() => now).execute({ lookAhead: false })).toMatchObject({ resent: 0 });
    expect(await sweeper(() => now).execute({ lookAhead: true })).toMatchObject({ resent: 2 });
    expect((await visibleMessages()).map((one) => one.eventId)).toEqual([late.eventId]);
    expect(await delayedCount()).toBe(1);
    for (const delivery of [late, soon, far]) await settle(delivery);
  });

  it('reads at most its limit per shard a run, oldest first', async () => {
    const deliveries = await Promise.all([0, 1, 2, 3].map((index) => pendingDelivery(900_000 + index)));
    const shard = pendingShard(deliveries[0]!.endpointId, deliveries[0]!.eventId);
    const entries = await store.listPending(shard, { to: at(1_000_000), limit: 1 });
    expect(entries).toHaveLength(1);
    for (const delivery of deliveries) await settle(delivery);
  });
});

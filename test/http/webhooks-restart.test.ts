/**
 * A webhook delivery waiting for its retry when its queue message is lost: the crash test's
 * finding (docs/webhooks.md, "Under crashes"). The receiver refuses the first attempt; while the
 * retry's message waits in the queue, the stack stops and its queues are created anew (what
 * fauxqs, which keeps messages in memory, does on a restart: they are gone), and the stack starts
 * again on the same tables. Only the sweeper's outbox of pending deliveries can send the retry;
 * it must arrive, once.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { dynamoDbClientFor, deleteTables } from '../../local/dynamodb-local.js';
import { deleteQueues, sqsClientFor } from '../../local/messaging.js';
import { startStackServices, type RunningStack } from '../../local/stack.js';
import { SqsWebhookQueue } from '../../lib/dispatch/webhook-queue.js';
import { DynamoDbWebhookStore } from '../../lib/store/dynamodb-webhook-store.js';
import { documentedApi } from '../support/openapi.js';
import { GENEROUS_LIMITS } from '../support/posts.js';
import { provisionUser } from '../support/provision.js';
import { queueIdle, until } from '../support/queues.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const endpoints = inject('localAws');
const prefix = `wr${randomBytes(4).toString('hex')}-`;
let dataDir: string;
let running: RunningStack | undefined;
let lastQueues: RunningStack['queues'] | undefined;
let lastTables: RunningStack['tables'] | undefined;
let hook: WebhookReceiver;

async function start(): Promise<RunningStack> {
  running = await startStackServices({
    endpoints,
    dataDir,
    prefix,
    port: 0,
    consumers: ['WebhookDeliveryWorker'],
    sweeper: true,
    sandbox: false,
    sweeperIntervalMs: 1000,
    env: { ...GENEROUS_LIMITS },
  });
  lastQueues = running.queues;
  lastTables = running.tables;
  return running;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'social-api-webhook-restart-'));
  hook = await startWebhookReceiver();
});

afterAll(async () => {
  await running?.stop();
  if (lastTables) {
    const dynamo = dynamoDbClientFor(endpoints.dynamodbEndpoint, { retries: 'standard' });
    try {
      await deleteTables(dynamo, lastTables);
    } finally {
      dynamo.destroy();
    }
  }
  if (lastQueues) await deleteQueues(endpoints.sqsEndpoint, lastQueues);
  await hook?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it('a delivery waiting for its retry when a restart empties the queues: the sweeper sends it again and the receiver gets it, once', async () => {
  const first = await start();
  const user = await provisionUser({});
  const api = documentedApi(first.baseUrl, user.apiKey);
  // The first arrival is refused (a retry ~5 s later), every later one accepted.
  hook.answer = (_request, index) => (index === 0 ? { status: 500 } : { status: 204 });
  const created = await api.post<{ id: string; secret: string }>('/webhook_endpoints', { url: hook.url, enabledEvents: ['*'] });
  expect(created.status, created.text).toBe(201);
  const sent = await api.post<{ id: string }>(`/webhook_endpoints/${created.body.id}/test`, {});
  expect(sent.status, sent.text).toBe(202);
  const eventId = sent.body.id;

  // Attempt 1 was refused and recorded, and its retry's message is waiting in the queue.
  await hook.waitFor((received) => received.length >= 1);
  const client = DynamoDBDocumentClient.from(dynamoDbClientFor(endpoints.dynamodbEndpoint, { retries: 'standard' }), { marshallOptions: { removeUndefinedValues: true } });
  const store = new DynamoDbWebhookStore({ tableName: first.tables.webhooks, client });
  const event = await store.getEvent(eventId);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const delivery = await store.getDelivery(created.body.id, event?.createdAt ?? '', eventId);
    if (delivery?.attempts === 1) {
      expect([delivery.status, delivery.attemptLog.map((entry) => entry.statusCode)]).toEqual(['pending', [500]]);
      break;
    }
    if (Date.now() > deadline) throw new Error('attempt 1 was not recorded');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  // Down while the retry waits (its delay is 4-6 s); the queues come back empty.
  await first.stop();
  if (hook.received.length !== 1) throw new Error('test premise broken: the retry went out before the stack went down');
  await deleteQueues(endpoints.sqsEndpoint, first.queues);
  // The queue's creation time (whole seconds) is how the sweeper tells that the queue is new.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const second = await start();

  const received = await hook.waitFor((all) => all.length >= 2, 30_000);
  const retry = received[1]!;
  expect(retry.headers['webhook-id']).toBe(eventId);
  expect(new Webhook(created.body.secret).verify(retry.body, {
    'webhook-id': retry.headers['webhook-id'] ?? '',
    'webhook-timestamp': retry.headers['webhook-timestamp'] ?? '',
    'webhook-signature': retry.headers['webhook-signature'] ?? '',
  })).toMatchObject({ type: 'webhook.test' });
  // Settled, and out of the outbox: nothing more is sent (a few sweeper runs later, still two).
  const settledBy = Date.now() + 10_000;
  for (;;) {
    const delivery = await store.getDelivery(created.body.id, event?.createdAt ?? '', eventId);
    if (delivery?.status === 'succeeded') {
      expect(delivery.attempts).toBe(2);
      break;
    }
    if (Date.now() > settledBy) throw new Error(`delivery not settled: ${JSON.stringify(delivery)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // A succeeded delivery is out of the sweeper's reach (it stamps only pending ones), so once the
  // queue has handed over every message, nothing more can be sent.
  await until('the webhook queue to be idle', () => queueIdle(endpoints.sqsEndpoint, second.queues.webhook.url));
  expect(hook.received.map((entry) => entry.headers['webhook-id'])).toEqual([eventId, eventId]);
  client.destroy();
}, 90_000);

it('a worker that died after recording attempt n, before sending n+1: the redelivered message n is taken once the delivery is due, and two messages racing for it send it once', async () => {
  const stack = running ?? (await start());
  const user = await provisionUser({});
  const api = documentedApi(stack.baseUrl, user.apiKey);
  hook.received.length = 0;
  hook.answer = () => ({ status: 204 });
  const created = await api.post<{ id: string }>('/webhook_endpoints', { url: hook.url, enabledEvents: ['*'] });
  expect(created.status, created.text).toBe(201);
  const client = DynamoDBDocumentClient.from(dynamoDbClientFor(endpoints.dynamodbEndpoint, { retries: 'standard' }), { marshallOptions: { removeUndefinedValues: true } });
  const store = new DynamoDbWebhookStore({ tableName: stack.tables.webhooks, client });
  const queue = new SqsWebhookQueue(sqsClientFor(endpoints.sqsEndpoint), stack.queues.webhook.url);
  // What the dead worker left: the event, its delivery with attempt 1 recorded (refused) and
  // attempt 2 due now, and no message for attempt 2.
  const now = new Date().toISOString();
  const eventId = `evt_${randomBytes(10).toString('hex')}`;
  const envelope = { id: eventId, object: 'event', type: 'webhook.test', createdAt: now, data: { object: {} } };
  await store.putEvent({ id: eventId, userId: user.userId, type: 'webhook.test', createdAt: now, body: JSON.stringify(envelope) });
  const delivery = { endpointId: created.body.id, eventId, eventCreatedAt: now };
  await store.putDelivery({ ...delivery, userId: user.userId, eventType: 'webhook.test', status: 'pending', attempts: 0, attemptLog: [], nextAttemptAt: now, createdAt: now });
  await store.claimAttempt(delivery, 1, { token: 'dead-worker', now: new Date(now), until: new Date(Date.parse(now) + 15_000) });
  await store.recordAttempt(delivery, 1, 'dead-worker', { entry: { at: now, statusCode: 500, latencyMs: 3, error: 'HTTP 500' }, status: 'pending', nextAttemptAt: now });
  // SQS redelivers message 1 (twice at once, as at-least-once delivery may): one request goes out.
  const message = { userId: user.userId, endpointId: created.body.id, eventId, eventCreatedAt: now, attempt: 1, notBefore: null };
  await queue.send([message, message]);
  await hook.waitFor((all) => all.some((entry) => entry.headers['webhook-id'] === eventId));
  const settledBy = Date.now() + 10_000;
  for (;;) {
    const current = await store.getDelivery(created.body.id, now, eventId);
    if (current?.status === 'succeeded') {
      expect(current.attempts).toBe(2);
      break;
    }
    if (Date.now() > settledBy) throw new Error(`delivery not settled: ${JSON.stringify(current)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // A duplicate of a settled delivery is dropped too.
  await queue.send([{ ...message, attempt: 2 }]);
  await until('the duplicate to be taken off the queue', () => queueIdle(endpoints.sqsEndpoint, stack.queues.webhook.url));
  expect(hook.received.filter((entry) => entry.headers['webhook-id'] === eventId)).toHaveLength(1);
  client.destroy();
}, 60_000);

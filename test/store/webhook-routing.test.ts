/**
 * The router's writes (lib/use-cases/webhooks/route-changes.ts, store.putRouted): a batch's events
 * and deliveries written together, and a batch handled again (a crash before the checkpoint, a
 * Lambda retry) that writes the same events and never resets a delivery already attempted. Against
 * DynamoDB Local (the shared webhooks table) and a real fauxqs queue.
 */
import { randomBytes } from 'node:crypto';
import { PurgeQueueCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { deleteQueues, ensureQueues, sqsClientFor, type LocalQueues } from '../../local/messaging.js';
import { parseWebhookQueueMessage, SqsWebhookQueue } from '../../lib/dispatch/webhook-queue.js';
import { newEndpointId, type WebhookEndpoint } from '../../lib/domain/webhooks.js';
import { DynamoDbWebhookRoutingStore } from '../../lib/store/dynamodb-webhook-routing-store.js';
import { isBatchMessage, type WebhookBatchMessage } from '../../lib/use-cases/ports/webhooks.js';
import { RouteChanges, type Change } from '../../lib/use-cases/webhooks/route-changes.js';
import { postFixture } from '../support/post-fixture.js';

const { dynamodbEndpoint, sqsEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const store = new DynamoDbWebhookRoutingStore({ tableName: sharedTables.webhooks ?? '', client });

let queues: LocalQueues;
let sqs: SQSClient;

beforeAll(async () => {
  queues = await ensureQueues(sqsEndpoint, { prefix: `wt${randomBytes(4).toString('hex')}-` });
  sqs = sqsClientFor(sqsEndpoint);
});

afterAll(async () => {
  raw.destroy();
  sqs.destroy();
  await deleteQueues(sqsEndpoint, queues);
});

beforeEach(async () => {
  await sqs.send(new PurgeQueueCommand({ QueueUrl: queues.webhook.url }));
});

const router = (): RouteChanges => new RouteChanges({ store, queue: new SqsWebhookQueue(sqs, queues.webhook.url) });

async function endpointOf(userId: string): Promise<WebhookEndpoint> {
  const now = new Date().toISOString();
  const endpoint: WebhookEndpoint = {
    id: newEndpointId(),
    userId,
    url: 'https://hooks.example.com/in',
    enabledEvents: ['post.published'],
    description: null,
    status: 'enabled',
    disabledReason: null,
    createdAt: now,
    updatedAt: now,
    secrets: [],
    failingSince: null,
  };
  expect(await store.createEndpoint(endpoint)).toBe('created');
  return endpoint;
}

/** `count` posts of the user going from scheduled to published, as the stream shows them. */
function published(userId: string, count: number): Change[] {
  const at = new Date().toISOString();
  return Array.from({ length: count }, (_, index) => {
    const id = `post_${randomBytes(8).toString('hex')}`;
    const before = postFixture({ id, userId, createdAt: at, status: 'scheduled' });
    const after = postFixture({ id, userId, createdAt: at, status: 'published', publishedAt: at, updatedAt: at });
    return {
      kind: 'post' as const,
      source: 'posts',
      sequenceNumber: `${Date.now()}${String(index).padStart(6, '0')}${randomBytes(3).toString('hex')}`,
      at,
      previous: { post: before, platformDeletedAt: null },
      next: { post: after, platformDeletedAt: null },
    };
  });
}

async function batchMessages(): Promise<WebhookBatchMessage[]> {
  const found: WebhookBatchMessage[] = [];
  for (;;) {
    const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queues.webhook.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 60 }));
    if ((out.Messages ?? []).length === 0) return found;
    for (const message of out.Messages ?? []) {
      const parsed = parseWebhookQueueMessage(message.Body ?? '');
      if (parsed && isBatchMessage(parsed)) found.push(parsed);
    }
  }
}

describe('the router\'s writes of a batch', () => {
  it('writes every event and its deliveries (two endpoints), and queues them in stream order, one message per endpoint', async () => {
    const userId = `user_${randomBytes(6).toString('hex')}`;
    const [first, second] = [await endpointOf(userId), await endpointOf(userId)];
    const changes = published(userId, 60);
    const summary = await router().execute(changes);
    expect(summary).toEqual({ changes: 60, events: 60, deliveries: 120, messages: 2 });
    const messages = await batchMessages();
    expect(messages.map((message) => message.endpointId).sort()).toEqual([first!.id, second!.id].sort());
    for (const message of messages) {
      const events = await Promise.all(message.events.map((one) => store.getEvent(one.eventId)));
      expect(events.map((event) => (event ? (JSON.parse(event.body) as { data: { object: { id: string } } }).data.object.id : null))).toEqual(
        changes.map((change) => (change.kind === 'post' ? change.next?.post.id : null)),
      );
      const deliveries = await store.listDeliveries(message.endpointId, 100);
      expect(deliveries).toHaveLength(60);
      expect(deliveries.every((delivery) => delivery.status === 'pending' && delivery.attempts === 0)).toBe(true);
    }
  }, 60_000);

  it('a batch handled again writes the same events and leaves a delivery already attempted as it is', async () => {
    const userId = `user_${randomBytes(6).toString('hex')}`;
    const endpoint = await endpointOf(userId);
    const changes = published(userId, 30);
    await router().execute(changes);
    const [message] = await batchMessages();
    const firstEvents = await Promise.all(message!.events.map((one) => store.getEvent(one.eventId)));
    // A worker made the first attempt of some (succeeded) and failed one (its retry pending).
    const attempted = message!.events.slice(0, 10);
    for (const [index, one] of attempted.entries()) {
      const entry = { at: new Date().toISOString(), statusCode: index === 0 ? 500 : 204, latencyMs: 5, error: null };
      const key = { endpointId: endpoint.id, ...one };
      const now = new Date();
      expect(await store.claimAttempt(key, 1, { token: 'worker', now, until: new Date(now.getTime() + 15_000) })).toBe(true);
      expect(await store.recordAttempt(key, 1, 'worker', { entry, status: index === 0 ? 'pending' : 'succeeded', nextAttemptAt: index === 0 ? new Date(Date.now() + 60_000).toISOString() : null })).toBe(true);
    }
    // The same batch again (the checkpoint was not written), and a batch overlapping it.
    await router().execute(changes);
    await router().execute([...changes.slice(20), ...published(userId, 5)]);
    const again = await Promise.all(message!.events.map((one) => store.getEvent(one.eventId)));
    expect(again).toEqual(firstEvents);
    const deliveries = new Map((await store.listDeliveries(endpoint.id, 100)).map((delivery) => [delivery.eventId, delivery]));
    expect(deliveries.size).toBe(35);
    expect(deliveries.get(attempted[0]!.eventId)).toMatchObject({ status: 'pending', attempts: 1 });
    for (const one of attempted.slice(1)) expect(deliveries.get(one.eventId)).toMatchObject({ status: 'succeeded', attempts: 1 });
    for (const one of message!.events.slice(10)) expect(deliveries.get(one.eventId)).toMatchObject({ status: 'pending', attempts: 0 });
  }, 60_000);
});

/**
 * The local stand-in for the DynamoDB Streams event source mapping (local/stream-router.ts) with
 * the real router: a router that dies after writing but before the checkpoint (as under kill -9)
 * hands the same records over again at the next start, and the replay writes the same event (same
 * id) and no second delivery; the queue may carry the message twice, which the worker drops.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WEBHOOK_ROUTER } from '../../functions/catalogue.js';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { lambdaContext, loadHandler } from '../../local/lambda-runtime.js';
import { sqsClientFor } from '../../local/messaging.js';
import { startStreamRouter } from '../../local/stream-router.js';
import { DynamoDbWebhookStore } from '../../lib/store/dynamodb-webhook-store.js';
import { parseWebhookQueueMessage } from '../../lib/dispatch/webhook-queue.js';
import { isBatchMessage } from '../../lib/use-cases/ports/webhooks.js';
import { documentedApi } from '../support/openapi.js';
import { startPostsStack } from '../support/posts.js';
import { provisionUser, updateAccount } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

let stack: TestStack;
let checkpointDir: string;

beforeAll(async () => {
  stack = await startPostsStack();
  checkpointDir = await mkdtemp(join(tmpdir(), 'stream-router-'));
});

afterAll(async () => {
  await stack?.stop();
  await rm(checkpointDir, { recursive: true, force: true });
});

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function queuedEventIds(): Promise<string[]> {
  const sqs = sqsClientFor(stack.info.sqsEndpoint);
  const ids: string[] = [];
  try {
    for (let round = 0; round < 10; round += 1) {
      const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: stack.queues.webhook.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 300 }));
      if (!out.Messages?.length) break;
      for (const message of out.Messages) {
        const parsed = parseWebhookQueueMessage(message.Body ?? '');
        if (!parsed) throw new Error(`not a webhook queue message: ${message.Body ?? ''}`);
        ids.push(...(isBatchMessage(parsed) ? parsed.events.map((event) => event.eventId) : [parsed.eventId]));
      }
    }
  } finally {
    sqs.destroy();
  }
  return ids;
}

it('replays a batch the router handled but did not checkpoint, without a second event or delivery', async () => {
  const user = await provisionUser({ accounts: [{ platform: 'x' }] });
  const api = documentedApi(stack.baseUrl, user.apiKey);
  const endpoint = (await api.post<{ id: string }>('/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks', enabledEvents: ['account.token_health_changed'] })).body;
  await updateAccount(user.accounts[0]!.id, { tokenHealth: 'needs_reauth' });
  const tables = WEBHOOK_ROUTER.tables.map((name) => stack.tables[name]);
  const handler = await loadHandler(WEBHOOK_ROUTER.entry);
  const route = async (event: DynamoDBStreamEvent): Promise<void> => {
    await handler(event, lambdaContext(WEBHOOK_ROUTER.name, 60_000));
  };

  // First run: the router does all its work, then the process "dies" before the checkpoint.
  let died = false;
  const first = await startStreamRouter({
    dynamodbEndpoint: stack.info.dynamodbEndpoint,
    tables,
    checkpointDir,
    entry: WEBHOOK_ROUTER.entry,
    log: () => undefined,
    invoke: async (event) => {
      await route(event);
      if (event.Records.some((record) => record.eventSourceARN?.includes(stack.tables.directory))) died = true;
      throw new Error('killed');
    },
  });
  await until(() => died, 'the first router to handle the directory batch');
  await first.stop();
  const directoryCheckpoint = join(checkpointDir, `${stack.tables.directory}.json`);
  const before = await readFile(directoryCheckpoint, 'utf8').catch(() => null);
  expect(before === null || !before.includes('"sequenceNumber":"')).toBe(true);
  const firstIds = await queuedEventIds();
  expect(firstIds).toHaveLength(1);

  // Second run from the same checkpoint: the batch comes again and is handled.
  const second = await startStreamRouter({ dynamodbEndpoint: stack.info.dynamodbEndpoint, tables, checkpointDir, entry: WEBHOOK_ROUTER.entry, invoke: route, log: () => undefined });
  try {
    await until(async () => (await readFile(directoryCheckpoint, 'utf8').catch(() => '')).includes('"sequenceNumber":"'), 'the checkpoint');
  } finally {
    await second.stop();
  }
  const replayedIds = await queuedEventIds();
  expect(replayedIds).toEqual(firstIds);
  const client = DynamoDBDocumentClient.from(dynamoDbClientFor(stack.info.dynamodbEndpoint));
  const store = new DynamoDbWebhookStore({ tableName: stack.tables.webhooks, client });
  const deliveries = await store.listDeliveries(endpoint.id, 10);
  expect(deliveries.map((delivery) => delivery.eventId)).toEqual(firstIds);
  expect(await store.getEvent(firstIds[0]!)).toMatchObject({ type: 'account.token_health_changed', userId: user.userId });
});

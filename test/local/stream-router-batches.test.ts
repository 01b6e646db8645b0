/**
 * How the local stream poller (local/stream-router.ts) hands records over, as a mapping with a
 * batch size and a ParallelizationFactor does on AWS: batches of at most the batch size, up to the
 * factor's number at once, one item's records in stream order, and the checkpoint written only
 * once every batch of a read is done. Against a table of its own on DynamoDB Local, with a stream.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DeleteTableCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { startStreamRouter } from '../../local/stream-router.js';

const { dynamodbEndpoint } = inject('localAws');
let dynamo: DynamoDBClient;
let checkpointDir: string;
const table = `stream-batches-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  dynamo = dynamoDbClientFor(dynamodbEndpoint);
  checkpointDir = await mkdtemp(join(tmpdir(), 'stream-batches-'));
  await dynamo.send(
    new CreateTableCommand({
      TableName: table,
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }, { AttributeName: 'part', KeyType: 'RANGE' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }, { AttributeName: 'part', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  );
});

afterAll(async () => {
  await dynamo.send(new DeleteTableCommand({ TableName: table })).catch(() => undefined);
  dynamo.destroy();
  await rm(checkpointDir, { recursive: true, force: true });
});

it('hands a read over in batches of at most the batch size, up to the factor at once, each partition key in order, then checkpoints', async () => {
  // 40 partition keys, each written 6 times (two items under it, three versions each), interleaved.
  const ids = Array.from({ length: 40 }, (_, index) => `k${index}`);
  for (let version = 1; version <= 3; version++) {
    for (const id of ids) {
      for (const part of ['a', 'b']) {
        await dynamo.send(new PutItemCommand({ TableName: table, Item: { id: { S: id }, part: { S: part }, version: { N: String(version) } } }));
      }
    }
  }
  const batches: DynamoDBRecord[][] = [];
  let open = 0;
  let mostOpen = 0;
  let checkpointedEarly = false;
  const file = join(checkpointDir, `${table}.json`);
  const router = await startStreamRouter({
    dynamodbEndpoint,
    tables: [table],
    checkpointDir,
    entry: 'unused',
    batchSize: 10,
    parallelization: 4,
    log: () => undefined,
    invoke: async (event) => {
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      // No checkpoint at or past a record still being handled (it would be skipped after a kill).
      const first = BigInt(event.Records[0]?.dynamodb?.SequenceNumber ?? '0');
      const stored = JSON.parse((await readFile(file, 'utf8').catch(() => '')) || '{"shards":{}}') as { shards: Record<string, { sequenceNumber: string | null }> };
      if (Object.values(stored.shards).some((shard) => shard.sequenceNumber !== null && BigInt(shard.sequenceNumber) >= first)) checkpointedEarly = true;
      await new Promise((resolve) => setTimeout(resolve, 20));
      batches.push(event.Records);
      open -= 1;
    },
  });
  try {
    const deadline = Date.now() + 20_000;
    while (batches.flat().length < 240 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    while (!(await readFile(file, 'utf8').catch(() => '')).includes('"sequenceNumber":"') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    await router.stop();
  }
  const records = batches.flat();
  expect(records).toHaveLength(240);
  expect(Math.max(...batches.map((batch) => batch.length))).toBeLessThanOrEqual(10);
  expect(mostOpen).toBeLessThanOrEqual(4);
  expect(mostOpen).toBeGreaterThan(1);
  expect(checkpointedEarly).toBe(false);
  // Per partition key: one batch sequence, so its records arrive in stream order (both items, versions 1, 2, 3).
  for (const id of ids) {
    const seen = batches.flatMap((batch) => batch.filter((record) => record.dynamodb?.Keys?.id?.S === id));
    const sequence = seen.map((record) => `${record.dynamodb?.NewImage?.part?.S}${record.dynamodb?.NewImage?.version?.N}`);
    expect(sequence).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
    const sequenceNumbers = seen.map((record) => BigInt(record.dynamodb?.SequenceNumber ?? '0'));
    expect(sequenceNumbers).toEqual([...sequenceNumbers].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}, 60_000);

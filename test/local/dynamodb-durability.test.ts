/**
 * What DynamoDB promises and the crash test (`npm run chaos`) relies on: a write it acknowledged
 * is there after a crash. The local stack's DynamoDB Local (a data directory, streams on, as
 * `npm start` and the crash test run it) is killed with -9 the moment acknowledgements come in,
 * started again on the same directory, and every acknowledged TransactWriteItems (a cancel's
 * Delete of the post with the Update of its allowance refund) must be found applied, both halves.
 *
 * DynamoDB Local acknowledges a transaction before its COMMIT has run (see
 * local/dynamodb-commit-barrier.ts); without the barrier in front of it this test loses some of
 * the last acknowledged transactions of nearly every round.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDbClientFor, ensureTables, startDynamoDbLocal, tableNames, type DynamoDbLocal } from '../../local/dynamodb-local.js';

const names = tableNames();
const ROUNDS = 4;
const TRANSACTIONS = 40;
/** The JVM is killed as soon as this many transactions of the round have been acknowledged. */
const KILL_AT_ACK = 8;

let dataDir: string | undefined;
const running: DynamoDbLocal[] = [];

afterAll(async () => {
  for (const dynamo of running) await dynamo.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function start(dir: string): Promise<{ dynamo: DynamoDbLocal; client: DynamoDBDocumentClient }> {
  const dynamo = await startDynamoDbLocal({ dataDir: dir, fastStart: true });
  running.push(dynamo);
  const raw = dynamoDbClientFor(dynamo.endpoint);
  await ensureTables(raw, names);
  return { dynamo, client: DynamoDBDocumentClient.from(raw) };
}

describe('DynamoDB Local with a data directory, killed with -9', () => {
  it('keeps every transaction it acknowledged', { timeout: 240_000 }, async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'ddb-durability-'));
    const dir = join(dataDir, 'dynamodb');
    const lost: string[] = [];
    let acknowledgedTotal = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const { dynamo, client } = await start(dir);
      const ids = Array.from({ length: TRANSACTIONS }, (_, index) => `post_r${round}_${index}`);
      for (const id of ids) {
        await client.send(new PutCommand({ TableName: names.posts, Item: { id, userId: 'usr_1', status: 'scheduled', duePk: 'due#1', dueSk: `due#${id}` } }));
      }
      const counterKey = { pk: `ALLOWANCE#usr_1#round-${round}` };
      const acknowledged: string[] = [];
      // All at once, as a burst of cancels: the kill lands while later ones are still in flight.
      await Promise.allSettled(
        ids.map(async (id) => {
          await client.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Delete: {
                    TableName: names.posts,
                    Key: { id },
                    ConditionExpression: '#status = :scheduled AND attribute_not_exists(inFlightSince)',
                    ExpressionAttributeNames: { '#status': 'status' },
                    ExpressionAttributeValues: { ':scheduled': 'scheduled' },
                  },
                },
                { Update: { TableName: names.counters, Key: counterKey, UpdateExpression: 'ADD used :units', ExpressionAttributeValues: { ':units': -1 } } },
              ],
            }),
          );
          acknowledged.push(id);
          if (acknowledged.length === KILL_AT_ACK) process.kill(dynamo.pid, 'SIGKILL');
        }),
      );
      await dynamo.stop();
      client.destroy();

      const again = await start(dir);
      for (const id of acknowledged) {
        const item = await again.client.send(new GetCommand({ TableName: names.posts, Key: { id }, ConsistentRead: true }));
        if (item.Item) lost.push(`round ${round}: ${id}`);
      }
      const counter = await again.client.send(new GetCommand({ TableName: names.counters, Key: counterKey, ConsistentRead: true }));
      const refunded = -Number(counter.Item?.used ?? 0);
      // Both halves of a transaction or neither: a kept delete has its refund (more refunds than
      // acknowledged deletes are fine: a transaction can commit with its answer lost to the kill).
      const kept = acknowledged.length - lost.filter((line) => line.startsWith(`round ${round}:`)).length;
      expect(refunded, `round ${round}: refunds kept`).toBeGreaterThanOrEqual(kept);
      acknowledgedTotal += acknowledged.length;
      await again.dynamo.stop();
      again.client.destroy();
    }
    expect(acknowledgedTotal).toBeGreaterThanOrEqual(ROUNDS * KILL_AT_ACK);
    expect(lost, 'acknowledged transactions missing after the restart').toEqual([]);
  });
});

/**
 * Allowance counters expire (issue 10, item 13): one counter item per user per month would
 * otherwise pile up for ever. Each counter gets a TTL when it is first written, late enough that a
 * cancelled post's refund (up to 30 days after its cycle, the scheduling horizon) still finds it.
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { allowanceCounterExpiresAt } from '../../lib/domain/allowance.js';
import { newId } from '../../lib/domain/ids.js';
import { allowanceCounterKey, DynamoDbPostStore } from '../../lib/store/dynamodb-post-store.js';
import { TABLES } from '../../lib/store/tables.js';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { postFixture } from '../support/post-fixture.js';

const { dynamodbEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const store = new DynamoDbPostStore({ client, postsTable: sharedTables.posts, countersTable: sharedTables.counters, idempotencyTable: sharedTables.idempotency });
afterAll(() => raw.destroy());

// Far ahead: DynamoDB Local deletes expired items within seconds.
const CYCLE = '2099-12';
const THIRTY_DAYS_S = 30 * 86_400;

describe('allowance counter expiry', () => {
  it('comes three months after the cycle began: past every refund the 30-day scheduling horizon allows', () => {
    expect(allowanceCounterExpiresAt('2026-11')).toBe(Date.parse('2027-02-01T00:00:00Z') / 1000);
    expect(allowanceCounterExpiresAt('2026-01')).toBe(Date.parse('2026-04-01T00:00:00Z') / 1000);
    for (const cycle of ['2026-01', '2026-02', '2026-12', '2028-02']) {
      const [year, month] = cycle.split('-').map(Number) as [number, number];
      const cycleEnd = Date.UTC(year, month, 1) / 1000;
      // A post created at the cycle's last second, scheduled 30 days ahead, cancelled just before it goes out.
      expect(allowanceCounterExpiresAt(cycle)).toBeGreaterThan(cycleEnd + THIRTY_DAYS_S);
    }
    expect(() => allowanceCounterExpiresAt('soon')).toThrow();
  });

  it('is set on the counter item when units are spent, and kept when one comes back', async () => {
    expect(TABLES.find((table) => table.name === 'counters')?.ttlAttribute).toBe('expiresAt');
    const userId = newId('usr');
    const now = new Date().toISOString();
    const first = postFixture({ id: newId('post'), userId, createdAt: now, allowanceCycle: CYCLE });
    const second = postFixture({ id: newId('post'), userId, createdAt: now, allowanceCycle: CYCLE });
    await store.createPosts({ userId, posts: [first, second], allowanceLimit: 10, idempotency: null, response: () => null });
    const read = async () => (await client.send(new GetCommand({ TableName: sharedTables.counters, Key: allowanceCounterKey(userId, CYCLE), ConsistentRead: true }))).Item;
    expect(await read()).toMatchObject({ used: 2, expiresAt: allowanceCounterExpiresAt(CYCLE) });
    expect(await store.removePost(first, CYCLE)).toBe(true);
    expect(await read()).toMatchObject({ used: 1, expiresAt: allowanceCounterExpiresAt(CYCLE) });
  });
});

/**
 * The rate limiter against DynamoDB Local (the shared counters table of the test global setup).
 * Time is the `now` argument, so windows are exact here without waiting; every test uses its own
 * key id or address, so tests share the table without seeing each other's counters. The times
 * are in the future on purpose: DynamoDB Local deletes items whose TTL has passed within
 * seconds, which would reset a counter in the middle of a test set in the past.
 */
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { dayWindow, minuteWindow, type RateLimits } from '../../lib/domain/rate-windows.js';
import { randomToken } from '../../lib/domain/ids.js';
import type { RateDecision } from '../../lib/domain/rate-windows.js';
import { DynamoDbRateLimiter } from '../../lib/store/dynamodb-rate-limiter.js';

const { dynamodbEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const client = DynamoDBDocumentClient.from(raw);
const tableName = sharedTables.counters ?? '';

// Every request the limiters of this file send, by command: what one count costs is part of the contract here.
const sent: string[] = [];
raw.middlewareStack.add(
  (next, context) => async (args) => {
    sent.push(String(context.commandName));
    return next(args);
  },
  { step: 'initialize', name: 'count-requests' },
);

afterAll(() => raw.destroy());

/** A new limiter is a new Lambda: it shares the table, not what the other one remembers. */
const limiter = (limits: RateLimits): DynamoDbRateLimiter => new DynamoDbRateLimiter({ limits, tableName, client });
const keyBucket = (): { kind: 'key'; keyId: string } => ({ kind: 'key', keyId: randomToken(16) });
const unix = (iso: string): number => Date.parse(iso) / 1000;

async function counter(pk: string): Promise<Record<string, unknown> | undefined> {
  return (await client.send(new GetCommand({ TableName: tableName, Key: { pk }, ConsistentRead: true }))).Item;
}

/** The key's one counter of the day: its day count and the minute it is counting. */
async function dayCounter(keyId: string, day: string): Promise<Record<string, unknown> | undefined> {
  return counter(`RATE#KEY#${keyId}#${day}`);
}

/** The UpdateItem requests `action` sent. */
async function updatesOf(action: () => Promise<unknown>): Promise<number> {
  sent.length = 0;
  await action();
  return sent.filter((command) => command === 'UpdateItemCommand').length;
}

describe('DynamoDbRateLimiter, key buckets', () => {
  it('admits exactly the minute limit out of many concurrent requests, each remaining value once', async () => {
    const bucket = keyBucket();
    const now = new Date('2036-11-21T09:30:10.000Z');
    const rateLimiter = limiter({ perMinute: 120, perDay: 10_000 });
    const decisions = await Promise.all(Array.from({ length: 200 }, () => rateLimiter.hit(bucket, now)));

    const admitted = decisions.filter((decision) => decision.allowed);
    expect(admitted).toHaveLength(120);
    expect(admitted.map((decision) => decision.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 120 }, (_, i) => i));
    const refused = decisions.filter((decision) => !decision.allowed);
    expect(refused).toHaveLength(80);
    for (const decision of refused) {
      expect(decision).toMatchObject({ code: 'rate_limit_burst', limit: 120, remaining: 0, resetAt: unix('2036-11-21T09:31:00Z'), retryAfterSeconds: 50 });
    }

    // Neither the minute nor the day is inflated by the refusals.
    expect(await dayCounter(bucket.keyId, '2036-11-21')).toMatchObject({ minuteId: '2036-11-21T09:30', minuteCount: 120, dayCount: 120 });
  });

  it('admits exactly the minute limit when many Lambdas race to start a new minute', async () => {
    const bucket = keyBucket();
    const limits = { perMinute: 30, perDay: 10_000 };
    const first = limiter(limits);
    for (let i = 0; i < 7; i += 1) await first.hit(bucket, new Date('2036-11-21T09:40:30.000Z'));

    // Five processes (their own memory of the key), the next minute, 80 requests at once.
    const lambdas = Array.from({ length: 5 }, () => limiter(limits));
    const now = new Date('2036-11-21T09:41:02.000Z');
    const decisions = await Promise.all(Array.from({ length: 80 }, (_, i) => (lambdas[i % lambdas.length] ?? first).hit(bucket, now)));
    const admitted = decisions.filter((decision) => decision.allowed);
    expect(admitted.map((decision) => decision.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(decisions.filter((decision) => decision.code === 'rate_limit_burst')).toHaveLength(50);
    expect(await dayCounter(bucket.keyId, '2036-11-21')).toMatchObject({ minuteId: '2036-11-21T09:41', minuteCount: 30, dayCount: 37 });
  });

  it('admits exactly the daily limit out of concurrent requests, then refuses with rate_limit_daily', async () => {
    const bucket = keyBucket();
    const now = new Date('2036-11-21T23:59:30.000Z');
    const rateLimiter = limiter({ perMinute: 1_000, perDay: 10 });
    const decisions = await Promise.all(Array.from({ length: 40 }, () => rateLimiter.hit(bucket, now)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
    for (const decision of decisions.filter((d) => !d.allowed)) {
      expect(decision).toMatchObject({ code: 'rate_limit_daily', limit: 10, remaining: 0, resetAt: unix('2036-11-22T00:00:00Z'), retryAfterSeconds: 30 });
    }
    expect(await dayCounter(bucket.keyId, '2036-11-21')).toMatchObject({ minuteCount: 10, dayCount: 10 });
    // A new UTC day is a new counter.
    expect((await rateLimiter.hit(bucket, new Date('2036-11-22T00:00:01.000Z'))).allowed).toBe(true);
  });

  it('does not let a burst refused by the minute eat the daily budget', async () => {
    const bucket = keyBucket();
    const rateLimiter = limiter({ perMinute: 2, perDay: 3 });
    const first = new Date('2036-11-21T10:00:05.000Z');
    const decisions: RateDecision[] = [];
    for (let i = 0; i < 5; i += 1) decisions.push(await rateLimiter.hit(bucket, first));
    expect(decisions.map((d) => d.code)).toEqual([null, null, 'rate_limit_burst', 'rate_limit_burst', 'rate_limit_burst']);
    expect(decisions.slice(0, 2).map((d) => [d.limit, d.remaining])).toEqual([
      [2, 1],
      [2, 0],
    ]);
    expect(await dayCounter(bucket.keyId, '2036-11-21')).toMatchObject({ minuteCount: 2, dayCount: 2 });

    // Next minute: one unit of the day is left (3 - 2 admitted), not zero.
    const next = new Date('2036-11-21T10:01:05.000Z');
    const last = await rateLimiter.hit(bucket, next);
    // It took the last unit of the day, so the headers now describe the day.
    expect(last).toMatchObject({ allowed: true, code: null, limit: 3, remaining: 0, resetAt: unix('2036-11-22T00:00:00Z') });
    const refused = await rateLimiter.hit(bucket, next);
    expect(refused).toMatchObject({ allowed: false, code: 'rate_limit_daily', limit: 3, remaining: 0 });
    expect(refused.retryAfterSeconds).toBe(unix('2036-11-22T00:00:00Z') - unix('2036-11-21T10:01:05Z'));
    // A spent day refuses in a later minute too, from another Lambda as well, without counting.
    expect((await limiter({ perMinute: 2, perDay: 3 }).hit(bucket, new Date('2036-11-21T10:07:00.000Z'))).code).toBe('rate_limit_daily');
    expect(await dayCounter(bucket.keyId, '2036-11-21')).toMatchObject({ minuteId: '2036-11-21T10:01', minuteCount: 1, dayCount: 3 });
  });

  it('starts afresh in a new minute and keeps counting the day', async () => {
    const bucket = keyBucket();
    const rateLimiter = limiter({ perMinute: 3, perDay: 100 });
    for (let i = 0; i < 3; i += 1) await rateLimiter.hit(bucket, new Date('2036-11-21T11:00:59.000Z'));
    expect((await rateLimiter.hit(bucket, new Date('2036-11-21T11:00:59.900Z'))).code).toBe('rate_limit_burst');
    const fresh = await rateLimiter.hit(bucket, new Date('2036-11-21T11:01:00.000Z'));
    expect(fresh).toMatchObject({ allowed: true, limit: 3, remaining: 2, resetAt: unix('2036-11-21T11:02:00Z') });
    expect(await dayCounter(bucket.keyId, '2036-11-21')).toMatchObject({ minuteId: '2036-11-21T11:01', minuteCount: 1, dayCount: 4 });
  });

  it('counts a request from a clock a little behind in the minute already started, without resetting it', async () => {
    const bucket = keyBucket();
    const limits = { perMinute: 2, perDay: 100 };
    const ahead = limiter(limits);
    const behind = limiter(limits);
    await behind.hit(bucket, new Date('2036-11-21T11:10:59.000Z'));
    await ahead.hit(bucket, new Date('2036-11-21T11:11:00.001Z'));
    // Still 11:10 for this Lambda: counted in 11:11, which is now full.
    expect((await behind.hit(bucket, new Date('2036-11-21T11:10:59.999Z'))).allowed).toBe(true);
    expect(await dayCounter(bucket.keyId, '2036-11-21')).toMatchObject({ minuteId: '2036-11-21T11:11', minuteCount: 2, dayCount: 3 });
    expect((await ahead.hit(bucket, new Date('2036-11-21T11:11:00.500Z'))).code).toBe('rate_limit_burst');
  });

  it('costs one UpdateItem per request, two when another Lambda has started the minute', async () => {
    const bucket = keyBucket();
    const limits = { perMinute: 3, perDay: 100 };
    const rateLimiter = limiter(limits);
    const at = (iso: string): Date => new Date(iso);
    // The first request of the day, then the same minute, then a new minute: one each.
    expect(await updatesOf(() => rateLimiter.hit(bucket, at('2036-11-21T11:20:01Z')))).toBe(1);
    expect(await updatesOf(() => rateLimiter.hit(bucket, at('2036-11-21T11:20:02Z')))).toBe(1);
    expect(await updatesOf(() => rateLimiter.hit(bucket, at('2036-11-21T11:21:02Z')))).toBe(1);
    // Another Lambda, in the minute this one started: its guess (start the minute) fails, then it counts.
    const other = limiter(limits);
    expect(await updatesOf(() => other.hit(bucket, at('2036-11-21T11:21:03Z')))).toBe(2);
    expect(await updatesOf(() => other.hit(bucket, at('2036-11-21T11:21:04Z')))).toBe(1);
    // Refused, and refused again: one each, and nothing changes.
    expect(await updatesOf(async () => expect((await rateLimiter.hit(bucket, at('2036-11-21T11:21:05Z'))).code).toBe('rate_limit_burst'))).toBe(1);
    expect(await updatesOf(async () => expect((await other.hit(bucket, at('2036-11-21T11:21:06Z'))).code).toBe('rate_limit_burst'))).toBe(1);
    expect(await dayCounter(bucket.keyId, '2036-11-21')).toMatchObject({ minuteId: '2036-11-21T11:21', minuteCount: 3, dayCount: 5 });
  });

  it('counts right when the counter is not what this Lambda last saw (deleted meanwhile)', async () => {
    const bucket = keyBucket();
    const rateLimiter = limiter({ perMinute: 5, perDay: 100 });
    await rateLimiter.hit(bucket, new Date('2036-11-21T11:30:01Z'));
    await client.send(new DeleteCommand({ TableName: tableName, Key: { pk: `RATE#KEY#${bucket.keyId}#2036-11-21` } }));
    // It guesses the minute is counting; the failed condition returns no counter, so it starts one.
    const updates = await updatesOf(async () => expect(await rateLimiter.hit(bucket, new Date('2036-11-21T11:30:02Z'))).toMatchObject({ allowed: true, remaining: 4 }));
    expect(updates).toBe(2);
    expect(await dayCounter(bucket.keyId, '2036-11-21')).toMatchObject({ minuteId: '2036-11-21T11:30', minuteCount: 1, dayCount: 1 });
  });

  it('fails with a dependency error on a counter of the wrong shape, naming the field, and counts nothing', async () => {
    const bucket = keyBucket();
    const pk = `RATE#KEY#${bucket.keyId}#2036-11-21`;
    // A hand edit: the minute's count as a string. The failed condition returns it, and reading it fails.
    await client.send(
      new PutCommand({ TableName: tableName, Item: { pk, minuteId: '2036-11-21T11:35', minuteCount: '3', dayCount: 3, expiresAt: unix('2036-11-22T01:00:00Z') } }),
    );
    await expect(limiter({ perMinute: 5, perDay: 100 }).hit(bucket, new Date('2036-11-21T11:35:05Z'))).rejects.toMatchObject({
      name: 'DependencyError',
      message: `Rate counter ${pk} has a missing or malformed minuteCount`,
    });
    expect(await dayCounter(bucket.keyId, '2036-11-21')).toMatchObject({ minuteCount: '3', dayCount: 3 });
  });

  it('marks the counter for deletion (TTL) after its day, and keeps no counter per minute', async () => {
    const bucket = keyBucket();
    const now = new Date('2036-11-21T12:00:00.000Z');
    await limiter({ perMinute: 5, perDay: 5 }).hit(bucket, now);
    expect((await dayCounter(bucket.keyId, '2036-11-21'))?.['expiresAt']).toBe(dayWindow(now).expiresAt);
    expect(dayWindow(now).expiresAt).toBeGreaterThan(dayWindow(now).resetAt);
    expect(await counter(`RATE#KEY#${bucket.keyId}#2036-11-21T12:00`)).toBeUndefined();
  });
});

describe('DynamoDbRateLimiter, address buckets', () => {
  it('counts per address and per minute only', async () => {
    const rateLimiter = limiter({ perMinute: 3, perDay: 1 });
    const address = `198.51.100.${Math.floor(Math.random() * 250)}-${randomToken(6)}`;
    const now = new Date('2036-11-21T13:00:00.000Z');
    const decisions: RateDecision[] = [];
    for (let i = 0; i < 4; i += 1) decisions.push(await rateLimiter.hit({ kind: 'address', address }, now));
    // The daily limit of keys (1 here) does not apply to an address.
    expect(decisions.map((d) => [d.allowed, d.remaining, d.code])).toEqual([
      [true, 2, null],
      [true, 1, null],
      [true, 0, null],
      [false, 0, 'rate_limit_burst'],
    ]);
    expect((await rateLimiter.hit({ kind: 'address', address: `${address}-other` }, now)).allowed).toBe(true);
    expect(await counter(`RATE#ADDR#${address}#2036-11-21`)).toBeUndefined();
    // One counter per address and minute, deleted (TTL) a little after the minute.
    expect(await counter(`RATE#ADDR#${address}#2036-11-21T13:00`)).toMatchObject({ requests: 3, expiresAt: minuteWindow(now).expiresAt });
    expect(minuteWindow(now).expiresAt).toBeGreaterThan(minuteWindow(now).resetAt);
  });

  it('admits exactly the limit of concurrent requests from one address', async () => {
    const rateLimiter = limiter({ perMinute: 25, perDay: 10_000 });
    const address = `2001:db8::${randomToken(4)}`;
    const now = new Date('2036-11-21T13:05:00.000Z');
    const decisions = await Promise.all(Array.from({ length: 80 }, () => rateLimiter.hit({ kind: 'address', address }, now)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(25);
  });
});

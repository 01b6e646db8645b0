/**
 * Overhead (run inside the `api` phase, right after GET at concurrency 1, so both see the same
 * DynamoDB Local): p50 of GET /posts/{id} over p50 of a bare GetItem of the same posts, with the
 * GET taken apart.
 */
import { GetItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { RunningStack } from '../../local/stack.js';
import type { LatencySummary } from '../load-protocol.js';
import { budget, BUDGETS, ms, type Budget } from '../report.js';
import { summarize } from '../stats.js';

export interface OverheadParts {
  bareGetItemMs: LatencySummary;
  overheadBreakdown: Record<string, number>;
}

interface OverheadFigures {
  getP50Ms: number;
  bareGetItemP50Ms: number;
  ratio: number;
  breakdownP50Ms: Record<string, number | undefined>;
}

/** A bare GetItem of the same posts on the same DynamoDB Local, and the GET's two DynamoDB calls timed alone. */
export async function measureOverheadParts(running: RunningStack, reader: DynamoDBClient, readable: string[]): Promise<OverheadParts> {
  const bare: number[] = [];
  for (let index = 0; index < 600; index++) {
    const begin = performance.now();
    await reader.send(new GetItemCommand({ TableName: running.tables.posts, Key: { id: { S: readable[index % readable.length] ?? '' } }, ConsistentRead: true }));
    if (index >= 100) bare.push(performance.now() - begin);
  }
  return { bareGetItemMs: summarize(bare), overheadBreakdown: await overheadBreakdown(running, reader, readable) };
}

/** The figures, budget and report lines, given the GET's p50 at concurrency 1. */
export function overheadOutcome(getP50: number, { bareGetItemMs: bare, overheadBreakdown: parts }: OverheadParts): { overhead: OverheadFigures; budget: Budget; report: string[] } {
  const rest = getP50 - Math.max(parts.rateLimitP50Ms ?? 0, parts.postStoreGetP50Ms ?? 0);
  const overhead: OverheadFigures = {
    getP50Ms: getP50,
    bareGetItemP50Ms: bare.p50,
    ratio: getP50 / bare.p50,
    breakdownP50Ms: {
      rateLimitCounters: parts.rateLimitP50Ms,
      postRead: parts.postStoreGetP50Ms,
      httpEventPipelineJson: rest,
      oneCounterUpdate: parts.oneCounterUpdateP50Ms,
    },
  };
  const out: string[] = [];
  out.push(`overhead: GET /posts/{id} p50 ${ms(overhead.getP50Ms)} ms / bare GetItem p50 ${ms(overhead.bareGetItemP50Ms)} ms = ${ms(overhead.ratio)}`);
  const shares = overhead.breakdownP50Ms;
  out.push(`  of which: rate-limit counter (overlaps the read) ${ms(shares.rateLimitCounters ?? NaN)} ms, post read ${ms(shares.postRead ?? NaN)} ms, HTTP + event + pipeline + JSON ${ms(shares.httpEventPipelineJson ?? NaN)} ms`);
  out.push(`  (one conditional counter UpdateItem alone: ${ms(shares.oneCounterUpdate ?? NaN)} ms)`, '');
  return { overhead, budget: budget('overhead: GET p50 / bare GetItem p50', getP50 / bare.p50, BUDGETS.overheadRatio, 'x'), report: out };
}

/**
 * Where the time of GET /posts/{id} goes: the two calls it makes to DynamoDB, each timed alone
 * with the service's own adapters (the rate limiter's counter update, the post store's read) on a
 * client of this process, and what is left for HTTP, the event, the pipeline and JSON. A GET's
 * count runs alongside its read, so the two overlap: the rest is the GET minus the longer one.
 */
async function overheadBreakdown(stack: RunningStack, db: DynamoDBClient, ids: string[]): Promise<Record<string, number>> {
  // Imported only now: these modules load the shared SDK client, which must see the stack's environment.
  const [{ DynamoDBDocumentClient }, { DynamoDbRateLimiter }, { DynamoDbPostStore }] = await Promise.all([
    import('@aws-sdk/lib-dynamodb'),
    import('../../lib/store/dynamodb-rate-limiter.js'),
    import('../../lib/store/dynamodb-post-store.js'),
  ]);
  const client = DynamoDBDocumentClient.from(db, { marshallOptions: { removeUndefinedValues: true } });
  const limiter = new DynamoDbRateLimiter({ limits: { perMinute: 1_000_000_000, perDay: 1_000_000_000 }, tableName: stack.tables.counters, client });
  const posts = new DynamoDbPostStore({ postsTable: stack.tables.posts, countersTable: stack.tables.counters, idempotencyTable: stack.tables.idempotency, client });
  const time = async (action: (index: number) => Promise<unknown>): Promise<number> => {
    const samples: number[] = [];
    for (let index = 0; index < 500; index++) {
      const begin = performance.now();
      await action(index);
      if (index >= 100) samples.push(performance.now() - begin);
    }
    return summarize(samples).p50;
  };
  const rateLimitMs = await time(() => limiter.hit({ kind: 'key', keyId: 'bench-overhead' }, new Date()));
  const getPostMs = await time((index) => posts.getPost(ids[index % ids.length] ?? ''));
  // A bare conditional counter update, for comparison with the limiter's own (one update per request).
  const oneCounterMs = await time((index) =>
    db.send(
      new UpdateItemCommand({
        TableName: stack.tables.counters,
        Key: { pk: { S: `BENCH#one-counter#${index % 10}` } },
        UpdateExpression: 'ADD #n :one',
        ConditionExpression: 'attribute_not_exists(#n) OR #n < :max',
        ExpressionAttributeNames: { '#n': 'n' },
        ExpressionAttributeValues: { ':one': { N: '1' }, ':max': { N: '1000000000' } },
        ReturnValues: 'UPDATED_NEW',
      }),
    ),
  );
  return { rateLimitP50Ms: rateLimitMs, postStoreGetP50Ms: getPostMs, oneCounterUpdateP50Ms: oneCounterMs };
}

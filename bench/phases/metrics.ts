/**
 * Phase `metrics` (issue 34): what collecting post metrics costs. Publishes posts across a few
 * accounts through the local stack (X personal accounts, a LinkedIn organization and a LinkedIn
 * member), makes their first collection due now (their byMetricsDue entry moved to this instant:
 * setup, not metered), runs the metrics collector's handler until every one is collected, and
 * counts what that took: the platform requests each sandbox answered on its metrics endpoints
 * (GET /sandbox/record's `metricsReads`, per account), and the collector's DynamoDB requests and
 * units (SDK metering, as the cost phase). Then every post's second collection is made due now
 * (on its metrics item, where the first one moved it) and metered the same way: the first
 * collection of a post also moves its metrics off the post item, the five after it write only the
 * metrics item. Figures per 1,000 posts collected; the bill per 1,000 posts tracked 30 days is
 * the first collection's units plus five times the second's.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { METRICS_COLLECTOR } from '../../functions/catalogue.js';
import { METRICS_SCHEDULE_MS } from '../../lib/domain/post-metrics.js';
import { metricsDueKeys } from '../../lib/store/post-item.js';
import { lambdaContext, loadHandler } from '../../local/lambda-runtime.js';
import type { PlatformRecord } from '../../local/sandbox/record.js';
import { createPosts, inParallel, log, sleep, type BenchContext, type BenchUser } from '../harness.js';
import { postsOf } from '../posts-table.js';
import { PRICES } from '../prices.js';
import { budget, BUDGETS, ms, table, type PhaseOutcome } from '../report.js';
import { round } from '../stats.js';
import { metered, type OperationCost } from './cost.js';

/** X accounts and posts on each: within X's 100 creates per account per 15 minutes. */
const X_ACCOUNTS = 4;
const X_POSTS_PER_ACCOUNT = 75;
const LINKEDIN_ORGANIZATION_POSTS = 40;
const LINKEDIN_MEMBER_POSTS = 10;
/** Collector runs before the phase gives up (each takes up to its per-shard limit). */
const MAX_RUNS = 20;

interface Platformed {
  accountId: string;
  kind: 'x' | 'linkedin organization' | 'linkedin member';
  posts: number;
}

export async function metricsPhase({ stack, db }: BenchContext): Promise<PhaseOutcome> {
  const { provisionUser } = await import('../../test/support/provision.js');
  // Imported here, not at the top: the store module makes the handlers' shared DynamoDB client when
  // first imported, and made before the stack set SDK_METERING it would count nothing.
  const { DynamoDbPostMetrics, metricsItemId } = await import('../../lib/store/dynamodb-post-metrics.js');
  const made = await provisionUser({
    quota: 1_000_000_000,
    accounts: [
      ...Array.from({ length: X_ACCOUNTS }, () => ({ platform: 'x' as const })),
      { platform: 'linkedin' as const, accountType: 'organization' as const },
      { platform: 'linkedin' as const, accountType: 'personal' as const },
    ],
  });
  const user: BenchUser = { userId: made.userId, apiKey: made.apiKey, workspaceId: made.workspaceIds[0] ?? '', accountIds: made.accounts.map((account) => account.id) };
  const accounts: Platformed[] = made.accounts.map((account, index) => ({
    accountId: account.id,
    kind: index < X_ACCOUNTS ? 'x' : index === X_ACCOUNTS ? 'linkedin organization' : 'linkedin member',
    posts: index < X_ACCOUNTS ? X_POSTS_PER_ACCOUNT : index === X_ACCOUNTS ? LINKEDIN_ORGANIZATION_POSTS : LINKEDIN_MEMBER_POSTS,
  }));
  const total = accounts.reduce((sum, account) => sum + account.posts, 0);

  log(`metrics: publishing ${total} posts on ${accounts.length} accounts`);
  const creates = accounts.flatMap((account) => Array.from({ length: account.posts }, (_, n) => () => createPosts(stack, user, { accounts: [account.accountId], text: `Metrics bench ${account.accountId} ${n}` })));
  await inParallel(creates, 8);
  const deadline = Date.now() + 180_000;
  let published = await postsOf(db, stack.tables.posts, user.userId);
  while (published.filter((post) => post.status === 'published').length < total) {
    const failed = published.filter((post) => post.status === 'failed');
    if (failed.length > 0) throw new Error(`metrics: ${failed.length} post(s) failed to publish: ${JSON.stringify(failed[0]?.error)}`);
    if (Date.now() > deadline) throw new Error(`metrics: ${published.filter((post) => post.status === 'published').length} of ${total} published after 3 minutes`);
    await sleep(500);
    published = await postsOf(db, stack.tables.posts, user.userId);
  }

  const readsBefore = await metricsReads(stack.sandboxOrigin, accounts);
  const handler = await loadHandler(METRICS_COLLECTOR.entry);
  const postIds = published.map((post) => post.id);
  /** Makes every post's entry due now (setup, not metered) and runs the collector, metered, until each is collected. */
  const collectAll = async (which: 'first' | 'second'): Promise<{ cost: OperationCost; runs: number; collectMs: number }> => {
    const dueNow = new Date();
    await inParallel(
      postIds.map((postId) => async () => {
        const keys = metricsDueKeys(postId, dueNow);
        await db.send(
          new UpdateItemCommand({
            TableName: stack.tables.posts,
            Key: { id: { S: which === 'first' ? postId : metricsItemId(postId) } },
            UpdateExpression: 'SET metricsDuePk = :pk, metricsDueSk = :sk',
            ExpressionAttributeValues: { ':pk': { S: keys.metricsDuePk }, ':sk': { S: keys.metricsDueSk } },
          }),
        );
      }),
      8,
    );
    log(`metrics: running the collector until every post's ${which} collection is done`);
    let runs = 0;
    let collected = 0;
    const startedAt = Date.now();
    const cost = await metered(`collect (${which})`, 1, async () => {
      while (runs < MAX_RUNS) {
        runs += 1;
        const result = (await handler({ 'detail-type': 'Scheduled Event', source: 'aws.events', time: new Date().toISOString(), detail: {} }, lambdaContext('MetricsCollector', 60_000))) as { collected?: number };
        collected += result.collected ?? 0;
        if (collected >= total) break;
      }
    });
    return { cost, runs, collectMs: Date.now() - startedAt };
  };
  const first = await collectAll('first');
  const { cost, runs, collectMs } = first;
  const readsAfter = await metricsReads(stack.sandboxOrigin, accounts);
  const store = new DynamoDbPostMetrics({ postsTable: stack.tables.posts, client: DynamoDBDocumentClient.from(db) });
  const collectedOnce = await store.latestMetrics(postIds);
  if (collectedOnce.size < total) throw new Error(`metrics: ${collectedOnce.size} of ${total} posts collected after ${runs} collector runs`);
  const later = await collectAll('second');
  const collectedTwice = [...(await store.latestMetrics(postIds)).entries()].filter(([postId, metrics]) => metrics.collectedAt !== collectedOnce.get(postId)?.collectedAt).length;
  if (collectedTwice < total) throw new Error(`metrics: ${collectedTwice} of ${total} posts collected a second time after ${later.runs} collector runs`);

  const byKind = new Map<Platformed['kind'], { posts: number; requests: number }>();
  for (const account of accounts) {
    const entry = byKind.get(account.kind) ?? { posts: 0, requests: 0 };
    entry.posts += account.posts;
    entry.requests += (readsAfter.get(account.accountId) ?? 0) - (readsBefore.get(account.accountId) ?? 0);
    byKind.set(account.kind, entry);
  }
  const perThousand = (requests: number, posts: number): number => round((requests / posts) * 1000);
  const requestsPerThousand = Object.fromEntries([...byKind].map(([kind, entry]) => [kind, { posts: entry.posts, requests: entry.requests, perThousandPosts: perThousand(entry.requests, entry.posts) }]));
  const xPerThousand = perThousand(byKind.get('x')?.requests ?? 0, byKind.get('x')?.posts ?? 1);
  const writeUnitsPerPost = cost.writeUnits / total;
  const readUnitsPerPost = cost.readUnits / total;
  const laterWriteUnitsPerPost = later.cost.writeUnits / total;
  const laterReadUnitsPerPost = later.cost.readUnits / total;
  const collections = METRICS_SCHEDULE_MS.length;
  const usdOf = (writeUnits: number, readUnits: number): number => 1000 * (writeUnits * PRICES.dynamodbWriteRequestUnit.usd + readUnits * PRICES.dynamodbReadRequestUnit.usd);
  // The six collections of 1,000 posts: the first as metered, the five after it as the second
  // (the last one removes the entry instead of moving it: about the same).
  const dynamodbUsd = usdOf(writeUnitsPerPost, readUnitsPerPost) + (collections - 1) * usdOf(laterWriteUnitsPerPost, laterReadUnitsPerPost);

  const budgets = [
    budget('X requests per 1,000 posts collected', xPerThousand, BUDGETS.metricsXRequestsPerThousand, 'requests'),
    budget('DynamoDB per 1,000 posts tracked 30 days', dynamodbUsd * 100, BUDGETS.metricsCentsPerThousandTracked, 'cents'),
  ];
  const report = [
    `Post metrics: ${total} posts collected in ${runs} collector run(s), ${ms(collectMs)} ms`,
    table([
      ['platform', 'posts', 'requests', 'per 1,000 posts'],
      ...[...byKind].map(([kind, entry]) => [kind, String(entry.posts), String(entry.requests), ms(perThousand(entry.requests, entry.posts))]),
    ]),
    `DynamoDB per post, first collection: ${round(cost.dynamodbRequests / total)} requests, ${round(writeUnitsPerPost)} WRU, ${round(readUnitsPerPost)} RRU (${round(cost.failedConditionalWrites)} failed conditional writes in all)`,
    `DynamoDB per post, a later collection: ${round(later.cost.dynamodbRequests / total)} requests, ${round(laterWriteUnitsPerPost)} WRU, ${round(laterReadUnitsPerPost)} RRU (${round(later.cost.failedConditionalWrites)} failed conditional writes in all)`,
    `DynamoDB per 1,000 posts tracked 30 days (${collections} collections as metered): $${dynamodbUsd.toFixed(4)}`,
    '',
  ];
  return {
    results: {
      metrics: {
        posts: total,
        collectorRuns: runs,
        collectMs,
        requests: requestsPerThousand,
        xRequestsPerThousandPosts: xPerThousand,
        dynamodbPerPostCollected: perPost(cost, total),
        dynamodbPerPostLaterCollection: perPost(later.cost, total),
        failedConditionalWrites: cost.failedConditionalWrites + later.cost.failedConditionalWrites,
        dynamodbUsdPerThousandPostsTracked30Days: round(dynamodbUsd * 10_000) / 10_000,
      },
    },
    budgets,
    report,
  };
}

function perPost(cost: OperationCost, posts: number) {
  return {
    requests: round(cost.dynamodbRequests / posts),
    writeUnits: round(cost.writeUnits / posts),
    readUnits: round(cost.readUnits / posts),
    byCommand: Object.fromEntries(Object.entries(cost.byCommand).map(([command, requests]) => [command, round(requests / posts)])),
  };
}

/** Metrics requests each sandbox answered per account so far (GET /sandbox/record). */
async function metricsReads(origin: string | null, accounts: Platformed[]): Promise<Map<string, number>> {
  if (origin === null) throw new Error('metrics: the stack has no sandbox platforms');
  const reads = new Map<string, number>();
  for (const account of accounts) {
    const response = await fetch(`${origin}/sandbox/record?accountId=${encodeURIComponent(account.accountId)}`);
    const record = (await response.json()) as { x: PlatformRecord; linkedin: PlatformRecord };
    const platform = account.kind === 'x' ? record.x : record.linkedin;
    reads.set(account.accountId, platform.accounts[account.accountId]?.metricsReads ?? 0);
  }
  return reads;
}

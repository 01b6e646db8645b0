/**
 * Phase `scale`: list page and get at concurrency 1 with 1,000 posts in the table, then with
 * 100,000 (most of them other users'), and the ratio.
 */
import { newId } from '../../lib/domain/ids.js';
import { log, type BenchContext } from '../harness.js';
import type { LatencySummary } from '../load-protocol.js';
import { postsOf } from '../posts-table.js';
import { budget, BUDGETS, ms, table, type PhaseOutcome } from '../report.js';
import { seedPosts, type SeedOwner } from '../seed.js';

interface ScaleFigures {
  at1k: Record<string, LatencySummary>;
  at100k: Record<string, LatencySummary>;
  ratioP50: Record<string, number>;
  ratioP99: Record<string, number>;
}

export async function scalePhase({ stack: running, db: reader, load, users }: BenchContext): Promise<PhaseOutcome> {
  const scaleUser = users.scale;
  const owners: SeedOwner[] = [{ userId: scaleUser.userId, workspaceId: scaleUser.workspaceId, accountIds: scaleUser.accountIds }];
  const others = (count: number, from: number): SeedOwner[] =>
    Array.from({ length: count }, (_, index) => ({ userId: `usr_bench${String(from + index).padStart(15, '0')}`, workspaceId: newId('ws'), accountIds: [newId('acct')] }));
  // 100 posts of the measured user (every 10th seed post) and 900 of 90 others.
  await seedPosts(reader, running.tables.posts, [...owners, ...others(9, 0)], 1_000);
  const ids = (await postsOf(reader, running.tables.posts, scaleUser.userId)).map((post) => post.id);
  const getPaths = ids.map((id) => `/api/v1/posts/${id}`);
  const measure = async (label: string) => {
    const base = { origin: running.origin, apiKey: scaleUser.apiKey, connections: 1, durationSeconds: 4 };
    const list = await load.run({ ...base, name: `list ${label}`, requests: { kind: 'get', paths: ['/api/v1/posts?limit=25'] } });
    const get = await load.run({ ...base, name: `get ${label}`, requests: { kind: 'get', paths: getPaths } });
    return { list: list.latency, get: get.latency };
  };
  log(`scale: ${ids.length} posts of the measured user among 1,000; warming up`);
  await load.run({ name: 'warm list', origin: running.origin, apiKey: scaleUser.apiKey, connections: 4, durationSeconds: 3, requests: { kind: 'get', paths: ['/api/v1/posts?limit=25'] } });
  await load.run({ name: 'warm get', origin: running.origin, apiKey: scaleUser.apiKey, connections: 4, durationSeconds: 3, requests: { kind: 'get', paths: getPaths } });
  const at1k = await measure('1k');
  const seedStart = Date.now();
  // 99,000 more posts of 990 other users, 100 each.
  await seedPosts(reader, running.tables.posts, others(990, 100), 99_000, { startIndex: 1_000 });
  const seedMs = Date.now() - seedStart;
  log(`scale: 99,000 more posts written in ${(seedMs / 1000).toFixed(1)} s (${Math.round(99_000 / (seedMs / 1000))}/s)`);
  const at100k = await measure('100k');
  const scale = {
    measuredUserPosts: ids.length,
    tablePosts: { small: 1_000, large: 100_000 },
    at1k,
    at100k,
    ratioP50: { list: at100k.list.p50 / at1k.list.p50, get: at100k.get.p50 / at1k.get.p50 },
    ratioP99: { list: at100k.list.p99 / at1k.list.p99, get: at100k.get.p99 / at1k.get.p99 },
    seedRatePerSecond: 99_000 / (seedMs / 1000),
  };
  return {
    results: { scale },
    budgets: [
      budget('scale: list page p50 at 100k / 1k', scale.ratioP50.list, BUDGETS.scaleRatio, 'x'),
      budget('scale: get p50 at 100k / 1k', scale.ratioP50.get, BUDGETS.scaleRatio, 'x'),
    ],
    report: scaleReport(scale),
  };
}

function scaleReport(scale: ScaleFigures): string[] {
  const out: string[] = [];
  out.push('Scale (concurrency 1): 1,000 vs 100,000 posts in the table');
  out.push(table([['', 'p50 1k', 'p50 100k', 'ratio', 'p99 1k', 'p99 100k', 'ratio'], ...(['list', 'get'] as const).map((name) => [name, ms(scale.at1k[name]?.p50 ?? NaN), ms(scale.at100k[name]?.p50 ?? NaN), ms(scale.ratioP50[name] ?? NaN), ms(scale.at1k[name]?.p99 ?? NaN), ms(scale.at100k[name]?.p99 ?? NaN), ms(scale.ratioP99[name] ?? NaN)])]), '');
  return out;
}

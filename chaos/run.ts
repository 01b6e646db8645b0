/**
 * `npm run chaos`: the crash test (not part of `npm test`). One stack, started as `npm start`
 * starts it (local/main.ts, sandbox platforms in their own process) but as a process group of its
 * own, on a free port, with a DATA_DIR of its own under the temp folder; one customer per cycle
 * (chaos/provision.ts: an `ok` and a `flaky` account per platform, an image in the media library).
 * Each cycle:
 *
 *   1. sends a burst of creates through the HTTP API, a few of them X threads, and deletes some
 *      posts while they are being sent (chaos/burst.ts), and kill -9s the whole group at a random
 *      moment of it (a thread's parts go out one after the other, so it may land between two);
 *   2. starts the stack again on the same DATA_DIR and port (that start is the next cycle's), sends
 *      again what lost its answer, waits for every post to settle, and checks the outcome against
 *      the sandbox platforms' own record, which survived the kill (chaos/verify.ts).
 *
 * Each cycle also registers a webhook endpoint for `post.published` and `post.failed` (through the
 * API) on a receiver this process runs (chaos/receiver.ts): it fails about half of what it gets and
 * is down for a few seconds after the restart. Every settled post must have had its event
 * delivered, signed, at least once, and no event may exist for a state a post never reached.
 *
 * The last cycle kill -9s only the stack's main process and checks that neither its DynamoDB
 * Local JVM nor its sandbox process survives it (their guards, local/child-guard.ts), before it
 * restarts and checks the posts the same way.
 *
 * Each cycle also starts CHAOS_IMPORTS (2) media imports from a URL during its burst
 * (chaos/imports.ts); after the last cycle every import must be ready with the whole file and one
 * media.ready event (CHAOS_IMPORT_DEADLINE_S, 300, after the last restart: a killed import waits
 * for its 3-minute lease).
 *
 * Each cycle also makes the first metrics collection of the posts earlier cycles published on its
 * `ok` accounts due just before its burst (chaos/metrics.ts); after the last cycle each must show
 * its metrics through the API, collected once (CHAOS_METRICS_DEADLINE_S, 240, after the last restart:
 * a killed collection waits for its 2-minute claim).
 *
 * Prints a table row per cycle, writes chaos/results.json, exits 1 when any cycle fails.
 * Everything listens on 127.0.0.1. Settings: CHAOS_CYCLES (10), CHAOS_CREATES (burst size, 16),
 * CHAOS_THREADS (X thread creates among them, 4; their parts are checked one by one, duplicated
 * and missing both 0 for a pass), CHAOS_THREAD_DEADLINE_S (120: how long after the restart a
 * thread may take to settle: on a `flaky` account each part meets one 503, again after a kill, and
 * the post's backoff grows with every one of them, 5 s, 10 s, 20 s, 40 s),
 * CHAOS_SEED, CHAOS_RECOVERY_DEADLINE_S (60: how long after the restart posts may take to settle),
 * CHAOS_WEBHOOK_DEADLINE_S (120: how long after the restart every settled post's event may take:
 * the receiver's down window and refusals cost an event up to two retries, 5 s and 30 s ± 20 %),
 * CHAOS_BUDGET_MINUTES (30: cycles not started by then count as failed; a cycle waits ~50-60 s after
 * its restart for the last webhook event, where its posts settle within ~25 s, so 11 take ~15 min).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT } from '../local/lambda-runtime.js';
import { Api, planBurst, planThreads, retryLost, runBurst, seededRng, type BurstState } from './burst.js';
import type { ChaosCustomer } from './provision.js';
import { killGroup, killMainOnly, groupMembers, restartablePort, startStack, stopStack, survivorsOf, type StackProcess } from './stack-process.js';
import { FlakyReceiver, MAX_DOWN_MS } from './receiver.js';
import { checkImports, ImportSource, resolveLostImports, startImports, type ImportCheck, type TrackedImport } from './imports.js';
import { checkMetrics, makeMetricsDue, type MetricsCheck, type TrackedMetrics } from './metrics.js';
import {
  awaitPlatformDeletions,
  awaitSettled,
  awaitWebhooks,
  checkCycle,
  checkEventsReadable,
  checkWebhooks,
  expectedPostEvents,
  type CycleCheck,
  type ListedEvent,
  type WebhookCheck,
} from './verify.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));

/** Every post event of the customer through GET /events, following nextCursor to the end. */
async function listedEvents(api: Api): Promise<ListedEvent[]> {
  const events: ListedEvent[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `?type=post.*&limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const answer = await api.request('GET', `/events${query}`);
    if (answer.status !== 200) throw new Error(`GET /events answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    events.push(...(answer.body.events as ListedEvent[]));
    cursor = (answer.body.nextCursor as string | null) ?? null;
  } while (cursor !== null);
  return events;
}
const RESULTS_FILE = join(HERE, 'results.json');

function intEnv(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a whole number; got "${value}"`);
  return parsed;
}

const CYCLES = intEnv('CHAOS_CYCLES', 10);
const CREATES = intEnv('CHAOS_CREATES', 16);
const THREADS = intEnv('CHAOS_THREADS', 4);
const SEED = intEnv('CHAOS_SEED', Date.now() % 2 ** 31);
const RECOVERY_DEADLINE_MS = intEnv('CHAOS_RECOVERY_DEADLINE_S', 60) * 1000;
const THREAD_DEADLINE_MS = intEnv('CHAOS_THREAD_DEADLINE_S', 120) * 1000;
const WEBHOOK_DEADLINE_MS = intEnv('CHAOS_WEBHOOK_DEADLINE_S', 120) * 1000;
const BUDGET_MS = intEnv('CHAOS_BUDGET_MINUTES', 30) * 60_000;
/** Media imports started in each cycle's burst (chaos/imports.ts). */
const IMPORTS = intEnv('CHAOS_IMPORTS', 2);
/**
 * How long after the last restart every import may take to settle: a killed worker's import waits
 * for its lease (lib/domain/media-import.ts, 3 minutes) before the sweeper queues it again.
 */
const IMPORT_DEADLINE_MS = intEnv('CHAOS_IMPORT_DEADLINE_S', 300) * 1000;
/** How long after the last restart every post whose first collection a cycle made due may take to show its metrics (chaos/metrics.ts). */
const METRICS_DEADLINE_MS = intEnv('CHAOS_METRICS_DEADLINE_S', 240) * 1000;

type KillKind = 'group' | 'main';

interface CycleResult {
  cycle: number;
  kill: KillKind;
  killAfterMs: number;
  /** Start of the second run: spawn to ready. */
  restartMs: number;
  /** Ready after the restart to the last post settled (p100 of the cycle), threads apart. */
  recoveryMs: number;
  /** Ready after the restart to the last thread settled. */
  threadRecoveryMs: number;
  survivors: string[];
  check: Omit<CycleCheck, 'problems' | 'recoveryMs'> | null;
  webhooks: (Omit<WebhookCheck, 'problems'> & { downAfterReadyMs: number; downMs: number }) | null;
  problems: string[];
  passed: boolean;
  dataDir: string;
}

const execFileAsync = promisify(execFile);

async function provision(dataDir: string, count: number): Promise<ChaosCustomer[]> {
  const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', 'chaos/provision.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATA_DIR: dataDir, CHAOS_CUSTOMERS: String(count) },
    timeout: 120_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ChaosCustomer[];
}

/**
 * The local stack imports each handler on its first request (seconds here, under tsx): without
 * this, the kill would mostly land before the first answers. These requests write nothing.
 */
async function warmUp(api: Api): Promise<void> {
  await api.request('GET', '/accounts');
  await api.request('POST', '/posts', { accounts: [] }, { 'Idempotency-Key': 'chaos-warm-up' });
  await api.request('GET', '/posts/post_warmUpWarmUpWarmUp00');
  await api.request('DELETE', '/posts/post_warmUpWarmUpWarmUp00');
}

/** One run: a stack that each cycle kills and starts again; the restart of one cycle is the start of the next. */
interface Run {
  dataDir: string;
  logFile: string;
  port: number;
  stack: StackProcess | null;
  /** Where the imports fetch their file, and every import of the run, checked after the last cycle. */
  importSource: ImportSource;
  imports: TrackedImport[];
  /** Published posts of finished cycles whose first metrics collection the next cycle makes due. */
  metricsPending: TrackedMetrics[];
  /** Posts whose collection a cycle made due: checked after the last cycle. */
  metricsTracked: TrackedMetrics[];
}

async function runCycle(run: Run, cycle: number, kill: KillKind, seed: number, customer: ChaosCustomer): Promise<CycleResult> {
  const rng = seededRng(seed);
  const result: CycleResult = { cycle, kill, killAfterMs: 0, restartMs: 0, recoveryMs: 0, threadRecoveryMs: 0, survivors: [], check: null, webhooks: null, problems: [], passed: false, dataDir: run.dataDir };
  // Its own generator, so the burst's plan for a seed stays what it was before webhooks.
  const receiver = new FlakyReceiver(seededRng(seed ^ 0x5eedf00d));
  let endpoint: { api: Api; id: string } | null = null;
  try {
    // A cycle before this one may have lost its stack (an aborted start): start one.
    run.stack ??= await startStack(run.dataDir, run.logFile, run.port);
    const first = run.stack;
    await warmUp(new Api(first.info.baseUrl, customer.apiKey));
    // Due now, so this cycle's kill may land while the collector is on them.
    run.metricsTracked.push(...(await makeMetricsDue(first.info, run.metricsPending.splice(0))));
    await receiver.up();
    endpoint = { api: new Api(first.info.baseUrl, customer.apiKey), id: await registerEndpoint(new Api(first.info.baseUrl, customer.apiKey), receiver) };
    const tag = `${seed.toString(36)}c${cycle}`;
    // The threads from a generator of their own, so the rest of a seed's plan is what it was before them.
    const creates = planThreads(seededRng(seed ^ 0x7b7ead5), customer, tag, planBurst(rng, customer, tag, CREATES), THREADS);
    const state: BurstState = { creates, posts: new Map(), pendingDeletes: [], problems: [] };

    // The kill comes at a random moment of the burst: before, during or after its requests.
    const killAfterMs = 300 + Math.floor(rng() * 4500);
    result.killAfterMs = killAfterMs;
    let killedAt = Number.POSITIVE_INFINITY;
    const killed = (async () => {
      await sleep(killAfterMs);
      killedAt = Date.now();
      if (kill === 'group') killGroup(first.pid);
      else killMainOnly(first.pid);
    })();
    const importing = startImports(new Api(first.info.baseUrl, customer.apiKey), customer.apiKey, run.importSource, cycle, IMPORTS);
    await runBurst(new Api(first.info.baseUrl, customer.apiKey), rng, customer, state);
    const imports = await importing;
    await killed;
    await first.exited;
    run.stack = null;

    result.survivors = (await survivorsOf(run.dataDir, kill === 'main' ? 10_000 : 5000)).map((left) => `${left.pid} ${left.cmdline}`);
    if (result.survivors.length > 0) {
      result.problems.push(`survived the kill: ${result.survivors.join('; ')}`);
      for (const left of result.survivors) killMainOnly(Number(left.split(' ')[0]));
    }
    // The kill of the main process alone must leave nothing of its group running either.
    const members = await groupMembers(first.pid);
    if (kill === 'main' && members.length > 0) result.problems.push(`processes of the killed stack still running: ${members.join(', ')}`);
    killGroup(first.pid);

    const stack = await startStack(run.dataDir, run.logFile, run.port);
    run.stack = stack;
    result.restartMs = stack.readyAt - stack.spawnedAt;
    const api = new Api(stack.info.baseUrl, customer.apiKey);
    endpoint = { api, id: endpoint.id };
    const deadline = stack.readyAt + RECOVERY_DEADLINE_MS;
    // Down for a few seconds while the restarted stack delivers what settles after the restart.
    const downAfterReadyMs = Math.floor(rng() * 15_000);
    const downMs = 2000 + Math.floor(rng() * (MAX_DOWN_MS - 2000));
    const downWindow = (async () => {
      await sleep(Math.max(0, stack.readyAt + downAfterReadyMs - Date.now()));
      await receiver.down();
      await sleep(downMs);
      await receiver.up();
    })();
    // Our own idempotency lock from a create the kill interrupted holds for up to 20 s (IDEMPOTENCY_LOCK_MS).
    await retryLost(api, customer, state, stack.readyAt + 35_000);
    result.problems.push(...(await resolveLostImports(api, imports, stack.readyAt + 35_000)));
    run.imports.push(...imports);
    const settled = await awaitSettled(api, state, stack.readyAt, Math.max(deadline, Date.now() + 5000), Math.max(stack.readyAt + THREAD_DEADLINE_MS, Date.now() + 5000));
    const deletions = await awaitPlatformDeletions(stack.info.sandboxOrigin ?? '', state, Math.max(deadline, Date.now() + 5000));
    result.recoveryMs = Math.max(settled.lastSettledAt, deletions.doneAt ?? 0) - stack.readyAt;
    result.threadRecoveryMs = settled.lastThreadSettledAt - stack.readyAt;
    const check = await checkCycle({
      state,
      views: settled.views,
      record: deletions.record,
      info: stack.info,
      userId: customer.userId,
      accountIds: new Set(customer.accounts.map((account) => account.id)),
      recoveryMs: result.recoveryMs,
    });
    const okAccounts = new Set(customer.accounts.filter((account) => account.sandbox === 'ok').map((account) => account.id));
    for (const [postId, view] of settled.views) {
      if (view.status === 'published' && okAccounts.has(view.accountId) && state.posts.get(postId)?.deletion === null) run.metricsPending.push({ postId, apiKey: customer.apiKey, cycle });
    }
    const { problems, recoveryMs: _recoveryMs, ...figures } = check;
    result.check = figures;
    result.problems.push(...problems);

    await downWindow;
    const { expected, finals } = await expectedPostEvents(stack.info, state);
    // A thread may settle late (CHAOS_THREAD_DEADLINE_S): its event gets the same ~60 s as the others'.
    await awaitWebhooks(receiver.requests, expected, Math.max(stack.readyAt + WEBHOOK_DEADLINE_MS, settled.lastThreadSettledAt + 60_000, Date.now() + 5000));
    // A moment more, so an event sent twice or invented just after the last expected one is seen.
    await sleep(1000);
    const { problems: webhookProblems, ...webhookFigures } = checkWebhooks({ state, requests: receiver.requests, expected, finals, readyAt: stack.readyAt, killedAt });
    result.webhooks = { ...webhookFigures, downAfterReadyMs, downMs };
    result.problems.push(...webhookProblems);
    // Every settled post's event is also readable back, whatever the receiver got.
    result.problems.push(...checkEventsReadable(expected, await listedEvents(api)));
  } catch (error) {
    result.problems.push(`cycle aborted: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Nothing more for this cycle's receiver: the endpoint's pending retries are cancelled with it.
  if (endpoint) {
    try {
      const answer = await endpoint.api.request('DELETE', `/webhook_endpoints/${endpoint.id}`);
      if (answer.status !== 200) result.problems.push(`webhook endpoint not deleted: ${answer.status}`);
    } catch (error) {
      result.problems.push(`webhook endpoint not deleted: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  await receiver.down();
  const w = result.webhooks;
  const c = result.check;
  result.passed =
    result.problems.length === 0 &&
    c !== null &&
    c.lost === 0 &&
    c.duplicates === 0 &&
    c.unknown === 0 &&
    c.mismatched === 0 &&
    c.liveAfterDelete === 0 &&
    c.sentAfterCancel === 0 &&
    c.allowance.ok &&
    c.threads.duplicated === 0 &&
    c.threads.missing === 0 &&
    w !== null &&
    w.missing === 0 &&
    w.invented === 0 &&
    w.unverified === 0;
  return result;
}

const COLUMNS = ['cycle', 'kill', 'kill@ms', 'restart s', 'recovery s', 'posts', 'published', 'failed', 'deleted', 'lost', 'dup', 'unknown', 'mismatch', 'live-del', 'allowance', 'threads', 'thread s', 'part dup', 'part miss', 'survivors', 'events', 'wh-missing', 'wh-invented', 'per event', 'wh last s', 'result'];

function row(result: CycleResult): string[] {
  const c = result.check;
  return [
    String(result.cycle),
    result.kill,
    String(result.killAfterMs),
    (result.restartMs / 1000).toFixed(1),
    (result.recoveryMs / 1000).toFixed(1),
    ...(c
      ? [c.posts, c.published, c.failed, c.deleted, c.lost, c.duplicates, c.unknown, c.mismatched + c.sentAfterCancel, c.liveAfterDelete].map(String)
      : Array.from({ length: 9 }, () => '-')),
    c ? (c.allowance.ok ? `ok ${c.allowance.used}` : `${c.allowance.used}≠${c.allowance.expectedMin}`) : '-',
    ...(c ? [String(c.threads.threads), (result.threadRecoveryMs / 1000).toFixed(1), String(c.threads.duplicated), String(c.threads.missing)] : ['-', '-', '-', '-']),
    String(result.survivors.length),
    ...(result.webhooks
      ? [
          `${result.webhooks.delivered}/${result.webhooks.expected}`,
          String(result.webhooks.missing),
          String(result.webhooks.invented),
          `${result.webhooks.deliveriesPerEvent.mean.toFixed(2)}/${result.webhooks.deliveriesPerEvent.max}`,
          result.webhooks.lastDeliveredMs === null ? '-' : (result.webhooks.lastDeliveredMs / 1000).toFixed(1),
        ]
      : Array.from({ length: 5 }, () => '-')),
    result.passed ? 'PASS' : 'FAIL',
  ];
}

function printRow(cells: string[]): void {
  console.log(cells.map((cell, index) => cell.padStart(Math.max(COLUMNS[index]?.length ?? 0, 4))).join(' | '));
}

async function main(): Promise<void> {
  const startedAt = new Date();
  console.log(`npm run chaos: ${CYCLES} cycles killing the whole stack + 1 killing its main process only; seed ${SEED}`);
  const plan: KillKind[] = [...Array.from({ length: CYCLES }, (): KillKind => 'group'), 'main'];
  const results: CycleResult[] = [];
  const dataDir = await mkdtemp(join(tmpdir(), 'chaos-'));
  const run: Run = { dataDir, logFile: join(dataDir, 'stack.log'), port: 0, stack: null, importSource: new ImportSource(), imports: [], metricsPending: [], metricsTracked: [] };
  let imports: ImportCheck | null = null;
  let metrics: MetricsCheck | null = null;
  await run.importSource.start();
  console.log(`DATA_DIR ${dataDir}; the stack's output goes to ${run.logFile}`);
  try {
    // Kept for every restart: media URLs (and so the bodies sent again) carry the API's origin.
    run.port = await restartablePort();
    run.stack = await startStack(dataDir, run.logFile, run.port);
    const customers = await provision(dataDir, plan.length);
    printRow(COLUMNS);
    for (const [index, kill] of plan.entries()) {
      const cycle = index + 1;
      const customer = customers[index];
      if (!customer || Date.now() - startedAt.getTime() > BUDGET_MS) {
        const skipped: CycleResult = { cycle, kill, killAfterMs: 0, restartMs: 0, recoveryMs: 0, threadRecoveryMs: 0, survivors: [], check: null, webhooks: null, problems: ['not run: the time budget was spent'], passed: false, dataDir };
        results.push(skipped);
        printRow(row(skipped));
        continue;
      }
      const result = await runCycle(run, cycle, kill, SEED + cycle, customer);
      results.push(result);
      printRow(row(result));
      for (const problem of result.problems.slice(0, 8)) console.log(`      ${problem}`);
      if (result.problems.length > 8) console.log(`      ... and ${result.problems.length - 8} more (chaos/results.json)`);
    }
    if (run.stack) {
      console.log(`checking the ${run.imports.length} media imports of the run (a killed one waits for its lease)`);
      imports = await checkImports(run.stack.info.baseUrl, run.imports, run.importSource.body.byteLength, run.stack.readyAt + IMPORT_DEADLINE_MS);
      for (const problem of imports.problems.slice(0, 8)) console.log(`      ${problem}`);
      console.log(`checking the metrics of the ${run.metricsTracked.length} posts whose collection a cycle made due`);
      metrics = await checkMetrics(run.stack.info.baseUrl, run.metricsTracked, run.stack.readyAt + METRICS_DEADLINE_MS);
      for (const problem of metrics.problems.slice(0, 8)) console.log(`      ${problem}`);
    }
  } finally {
    if (run.stack) await stopStack(run.stack);
    await run.importSource.stop();
  }
  const importsPassed = imports !== null && imports.problems.length === 0 && imports.ready === imports.started;
  const metricsPassed = metrics !== null && metrics.tracked > 0 && metrics.problems.length === 0 && metrics.collected === metrics.tracked;
  if (results.length > 0 && results.every((result) => result.passed) && importsPassed && metricsPassed) await rm(dataDir, { recursive: true, force: true });
  else console.log(`\nKept for a look: ${dataDir} (stack.log, sandbox/*.jsonl)`);
  const recoveries = results.filter((result) => result.check !== null).map((result) => result.recoveryMs);
  const total = (pick: (check: NonNullable<CycleResult['check']>) => number): number =>
    results.reduce((sum, result) => sum + (result.check ? pick(result.check) : 0), 0);
  const summary = {
    cycles: results.length,
    passed: results.filter((result) => result.passed).length,
    recoveryP100Ms: recoveries.length > 0 ? Math.max(...recoveries) : null,
    threadRecoveryP100Ms: recoveries.length > 0 ? Math.max(...results.filter((result) => result.check !== null).map((result) => result.threadRecoveryMs)) : null,
    posts: total((check) => check.posts),
    lost: total((check) => check.lost),
    duplicates: total((check) => check.duplicates),
    unknown: total((check) => check.unknown),
    mismatched: total((check) => check.mismatched + check.sentAfterCancel),
    liveAfterDelete: total((check) => check.liveAfterDelete),
    survivors: results.reduce((sum, result) => sum + result.survivors.length, 0),
    threadParts: { threads: total((check) => check.threads.threads), duplicated: total((check) => check.threads.duplicated), missing: total((check) => check.threads.missing) },
    webhooks: webhookSummary(results),
    imports,
    metrics,
  };
  const finishedAt = new Date();
  await writeFile(
    RESULTS_FILE,
    `${JSON.stringify({ startedAt, finishedAt, durationS: Math.round((finishedAt.getTime() - startedAt.getTime()) / 1000), seed: SEED, settings: { cycles: CYCLES, creates: CREATES, threads: THREADS, imports: IMPORTS, recoveryDeadlineS: RECOVERY_DEADLINE_MS / 1000, webhookDeadlineS: WEBHOOK_DEADLINE_MS / 1000 }, summary, results }, null, 2)}\n`,
  );
  console.log(
    `\n${summary.passed}/${summary.cycles} cycles passed in ${Math.round((finishedAt.getTime() - startedAt.getTime()) / 1000)} s; ` +
      `recovery p100 ${summary.recoveryP100Ms === null ? '-' : (summary.recoveryP100Ms / 1000).toFixed(1)} s; ` +
      `${summary.posts} posts, lost ${summary.lost}, duplicates ${summary.duplicates}, unknown ${summary.unknown}, ` +
      `mismatched ${summary.mismatched}, live after delete ${summary.liveAfterDelete}, survivors ${summary.survivors}; ` +
      `webhook events expected ${summary.webhooks.expected}, delivered ${summary.webhooks.delivered}, missing ${summary.webhooks.missing}, invented ${summary.webhooks.invented}, ` +
      `unverified ${summary.webhooks.unverified}; deliveries per event mean ${summary.webhooks.deliveriesPerEvent.mean}, max ${summary.webhooks.deliveriesPerEvent.max} ` +
      `(receiver refused ${summary.webhooks.refusedByReceiver} of ${summary.webhooks.requests} requests; ` +
      `${summary.webhooks.seenBeforeKill} event(s) reached it before a kill, ${summary.webhooks.acrossKill} delivered only after the restart). Results: chaos/results.json`,
  );
  console.log(
    `thread parts: ${summary.threadParts.threads} threads, duplicated ${summary.threadParts.duplicated}, missing ${summary.threadParts.missing}` +
      ` (threads settled within ${summary.threadRecoveryP100Ms === null ? '-' : (summary.threadRecoveryP100Ms / 1000).toFixed(1)} s of a restart)`,
  );
  console.log(
    imports === null
      ? 'media imports: not checked (no stack after the last cycle)'
      : `media imports: ${imports.started} started, ${imports.ready} ready with the whole file, failed ${imports.failed}, stuck ${imports.stuck}, ` +
          `media.ready events missing ${imports.eventsMissing}, duplicated ${imports.eventsDuplicated}`,
  );
  console.log(
    metrics === null
      ? 'post metrics: not checked (no stack after the last cycle)'
      : `post metrics: ${metrics.tracked} posts made due across kills, ${metrics.collected} collected, missing ${metrics.missing}, collected twice ${metrics.collectedTwice}`,
  );
  process.exitCode = summary.passed === summary.cycles && importsPassed && metricsPassed ? 0 : 1;
}

/** Registers the cycle's endpoint through the API (the local stack accepts http to 127.0.0.1); its id. */
async function registerEndpoint(api: Api, receiver: FlakyReceiver): Promise<string> {
  const answer = await api.request('POST', '/webhook_endpoints', { url: receiver.url, enabledEvents: ['post.published', 'post.failed'], description: 'chaos receiver' });
  const { id, secret } = answer.body;
  if (answer.status !== 201 || typeof id !== 'string' || typeof secret !== 'string') throw new Error(`webhook endpoint not created: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
  receiver.useSecret(secret);
  return id;
}

function webhookSummary(results: readonly CycleResult[]) {
  const checked = results.flatMap((result) => (result.webhooks ? [result.webhooks] : []));
  const sum = (pick: (webhooks: (typeof checked)[number]) => number): number => checked.reduce((total, webhooks) => total + pick(webhooks), 0);
  // Weighted by each cycle's events: the mean over every event of the run.
  const events = checked.reduce((total, webhooks) => total + (webhooks.deliveriesPerEvent.mean > 0 ? Math.round(webhooks.requests / webhooks.deliveriesPerEvent.mean) : 0), 0);
  const lastDelivered = checked.flatMap((webhooks) => (webhooks.lastDeliveredMs === null ? [] : [webhooks.lastDeliveredMs]));
  return {
    expected: sum((webhooks) => webhooks.expected),
    delivered: sum((webhooks) => webhooks.delivered),
    missing: sum((webhooks) => webhooks.missing),
    invented: sum((webhooks) => webhooks.invented),
    unverified: sum((webhooks) => webhooks.unverified),
    requests: sum((webhooks) => webhooks.requests),
    refusedByReceiver: sum((webhooks) => webhooks.refusedByReceiver),
    seenBeforeKill: sum((webhooks) => webhooks.seenBeforeKill),
    acrossKill: sum((webhooks) => webhooks.acrossKill),
    deliveriesPerEvent: {
      mean: events > 0 ? Math.round((sum((webhooks) => webhooks.requests) / events) * 100) / 100 : 0,
      max: checked.length > 0 ? Math.max(...checked.map((webhooks) => webhooks.deliveriesPerEvent.max)) : 0,
    },
    lastDeliveredP100Ms: lastDelivered.length > 0 ? Math.max(...lastDelivered) : null,
  };
}

main().catch((error: unknown) => {
  console.error('npm run chaos failed:', error);
  process.exitCode = 1;
});

/**
 * `npm run bench`: the performance figures of issue 6 against the local stack, with budgets.
 * One module per phase in bench/phases/; this file starts what they need, runs them in order,
 * prints the report and writes bench/results.json.
 *
 *   cold     phases/cold.ts      minified bundle size and import time of every function
 *   text     phases/text-rules.ts CPU of the per-target text rules on hostile texts (no stack)
 *   scale    phases/scale.ts     list page and get with 1,000 and with 100,000 posts in the table
 *   burst    phases/burst.ts     publish lag: 500 posts due at the same second
 *   spread   phases/spread.ts    publish lag: 200 posts spread over two minutes
 *   api      phases/api.ts       create (1 and 25 targets), get, list, delete at concurrency 1 and
 *                                16; inside it phases/overhead.ts: p50 of GET /posts/{id} over p50
 *                                of a bare GetItem
 *   cost     phases/cost.ts      DynamoDB requests and capacity units, SQS and Scheduler calls, per
 *                                operation; the AWS bill per 1,000 published posts
 *
 * The stack runs in this process (DynamoDB Local as a JVM child with its full JIT, in memory; the
 * sandbox platforms as a child process keeping no record on disk, as X and LinkedIn run apart from
 * the service; fauxqs, the Scheduler stand-in, the queue pollers and the API server here), with its
 * own data folder (.bench-data, wiped at start). Load comes from autocannon in a
 * child process (bench/load-worker.ts), so the server never shares its event loop with the load.
 * Results: a table on stdout and bench/results.json.
 *
 * BENCH_ONLY=cold,text,scale,burst,spread,api,cost runs a subset (for working on one figure); the
 * stack is started only when a phase other than `cold` runs.
 *
 * A busy machine makes every figure noise: the run measures the load first (bench/machine-load.ts)
 * and, above the threshold there, still prints its figures but calls itself INVALID, writes them to
 * bench/results.invalid.json instead of bench/results.json, and exits 2 — unless BENCH_ALLOW_LOAD=1
 * (for before/after comparisons on a shared machine; the results file still says `valid: false`).
 */
import { cpus, totalmem } from 'node:os';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ENV } from '../lib/config.js';
import { SWEEPER, WEBHOOK_ROUTER } from '../functions/catalogue.js';
import { dynamoDbClientFor, startDynamoDbLocal, type DynamoDbLocal } from '../local/dynamodb-local.js';
import { startFauxqsServer, type Fauxqs } from '../local/messaging.js';
import { startSweeper, type Runner } from '../local/queue-consumers.js';
import { startStackServices, type RunningStack } from '../local/stack.js';
import { routerFilters, routerIdleIntervals, startStreamRouter, type StreamRouter } from '../local/stream-router.js';
import { log, provisionUsers, started, type BenchContext } from './harness.js';
import { LoadGenerator } from './load-generator.js';
import { describeLoad, machineLoad } from './machine-load.js';
import { apiPhase } from './phases/api.js';
import { burstPhase } from './phases/burst.js';
import { coldPhase } from './phases/cold.js';
import { costPhase } from './phases/cost.js';
import { scalePhase } from './phases/scale.js';
import { spreadPhase } from './phases/spread.js';
import { textRulesPhase } from './phases/text-rules.js';
import { table, type Budget, type PhaseOutcome } from './report.js';
import { round } from './stats.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const DATA_DIR = resolve('.bench-data');
const RESULTS_FILE = join(HERE, 'results.json');
/** Where an INVALID run's figures go, so results.json only ever holds a run on a quiet machine. */
const INVALID_RESULTS_FILE = join(HERE, 'results.invalid.json');
const allowLoad = process.env.BENCH_ALLOW_LOAD === '1';
/** The order the phases run in. */
const PHASES = ['cold', 'text', 'scale', 'burst', 'spread', 'api', 'cost'] as const;
type Phase = (typeof PHASES)[number];
/** The order their sections are printed in (the budgets follow, in the order the phases ran). */
const REPORT_ORDER: readonly Phase[] = ['burst', 'spread', 'api', 'scale', 'cost', 'cold', 'text'];

const only = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
const runs = (phase: Phase): boolean => only.length === 0 || only.includes(phase);

/** The local stack the phases other than `cold` run against, and everything to stop afterwards. */
interface BenchStack {
  context: BenchContext;
  /** The sweeper at AWS's cadence (every minute); the cost phase pauses it to meter it alone. */
  pauseSweeper: () => Promise<void>;
  /**
   * Starts the webhook router (once), reading the streams from now on: not during `scale`, whose
   * 100,000 seeded posts it would otherwise read through while list and get are measured on the
   * same DynamoDB Local (the ratios went from 1.5 to 3.1 and 3.75 when it did).
   */
  startRouter: () => Promise<void>;
  stop: () => Promise<void>;
}

async function startBenchStack(): Promise<BenchStack> {
  let dynamo: DynamoDbLocal | undefined;
  let fauxqs: Fauxqs | undefined;
  let stack: RunningStack | undefined;
  let load: LoadGenerator | undefined;
  let sweeper: Runner | undefined;
  let router: StreamRouter | undefined;
  let db: DynamoDBClient | undefined;
  const stop = async (): Promise<void> => {
    load?.stop();
    await sweeper?.stop();
    await router?.stop();
    db?.destroy();
    await stack?.stop().catch((error: unknown) => log(`stopping the stack failed: ${String(error)}`));
    await fauxqs?.stop().catch(() => undefined);
    await dynamo?.stop().catch(() => undefined);
  };
  try {
    log('starting the local stack (DynamoDB Local in memory, full JIT)');
    // The full JIT (fastStart off): the JVM's peak speed, as a long-running stack would have it.
    dynamo = await startDynamoDbLocal({ dataDir: null, fastStart: false });
    fauxqs = await startFauxqsServer({ mediaMirror: false });
    stack = await startStackServices({
      endpoints: { dynamodbEndpoint: dynamo.endpoint, s3Endpoint: fauxqs.endpoint, sqsEndpoint: fauxqs.sqsEndpoint },
      dataDir: DATA_DIR,
      consumers: true,
      // The sandbox platforms in a process of their own, as X and LinkedIn are apart from the
      // service: in this one they took a share of the one Node thread the publish worker sends a
      // burst's creates on (each create was parsed and answered on it too), with no record on disk
      // (memory only, as in-process) so no fsync per create is measured either.
      sandbox: 'process',
      sandboxRecord: false,
      // The bench never changes an account's sandbox behaviour: the stand-in reads it once a
      // minute, not once per create behind the burst's own writes (local/sandbox/directory-behaviour.ts).
      sandboxBehaviourReuseMs: 60_000,
      // The webhook router on the posts and directory streams (burst and spread measure webhook lag)
      // is started by startRouter below, after `scale`.
      streams: false,
      // Started below at AWS's cadence (every minute), so the cost phase can pause it.
      sweeper: false,
      env: {
        // Local-only overrides: no rate limit gets in the way of the load, every request is metered.
        [ENV.rateLimitPerMinute]: '1000000000',
        [ENV.rateLimitPerDay]: '1000000000',
        [ENV.sdkMetering]: '1',
      },
    });
    sweeper = startSweeper({ ...SWEEPER, intervalMs: 60_000 });
    db = dynamoDbClientFor(dynamo.endpoint);
    load = new LoadGenerator();
    const users = await provisionUsers();
    log(`stack up at ${stack.baseUrl}; users provisioned`);
    return {
      context: { stack, db, load, users, jvmPid: dynamo.pid ?? null },
      pauseSweeper: async () => {
        await sweeper?.stop();
        sweeper = undefined;
      },
      startRouter: async () => {
        const running = stack!;
        router ??= await startStreamRouter({
          dynamodbEndpoint: running.info.dynamodbEndpoint,
          tables: WEBHOOK_ROUTER.tables.map((name) => running.tables[name]),
          checkpointDir: join(DATA_DIR, 'streams'),
          entry: WEBHOOK_ROUTER.entry,
          name: WEBHOOK_ROUTER.name,
          startAt: 'latest',
          filters: routerFilters(running.tables),
          idleIntervalsMs: routerIdleIntervals(running.tables),
          log: (message, error) => log(`streams: ${message}${error === undefined ? '' : ` ${String(error)}`}`),
        });
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function main(): Promise<number> {
  const unknown = only.filter((name) => !(PHASES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown phase(s) ${unknown.join(', ')}; known: ${PHASES.join(', ')}`);
  const loadAtStart = await machineLoad(true);
  log(`machine at start: ${describeLoad(loadAtStart)}${loadAtStart.problems.length > 0 ? ` — TOO BUSY: ${loadAtStart.problems.join('; ')}` : ''}`);
  await rm(DATA_DIR, { recursive: true, force: true });
  await mkdir(DATA_DIR, { recursive: true });
  const results: Record<string, unknown> = {
    generatedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '', memoryGb: round(totalmem() / 2 ** 30), node: process.version, platform: process.platform },
    // Anything else busy on the machine skews every figure: the load before and after (machine-load.ts).
    loadAverageAtStart: loadAtStart.loadAverage1m,
    machineLoadAtStart: loadAtStart,
    phasesRun: only.length === 0 ? [...PHASES] : only,
  };
  const outcomes = new Map<Phase, PhaseOutcome>();

  if (runs('cold')) outcomes.set('cold', await coldPhase());
  if (runs('text')) outcomes.set('text', await textRulesPhase());

  const bench = PHASES.some((phase) => phase !== 'cold' && phase !== 'text' && runs(phase)) ? await startBenchStack() : undefined;
  try {
    if (bench) {
      const { context } = bench;
      if (runs('scale')) outcomes.set('scale', await scalePhase(context));
      if ((['burst', 'spread', 'api', 'cost'] as const).some(runs)) await bench.startRouter();
      if (runs('burst')) outcomes.set('burst', await burstPhase(context));
      if (runs('spread')) outcomes.set('spread', await spreadPhase(context));
      let apiP50: Record<string, number> = {};
      if (runs('api')) {
        const api = await apiPhase(context);
        apiP50 = api.apiP50;
        outcomes.set('api', api);
      }
      if (runs('cost')) {
        await bench.pauseSweeper();
        outcomes.set('cost', await costPhase(context, apiP50));
      }
    }
  } finally {
    await bench?.stop();
  }

  const ran = PHASES.flatMap((phase) => outcomes.get(phase) ?? []);
  const budgets: Budget[] = ran.flatMap((outcome) => outcome.budgets);
  for (const outcome of ran) Object.assign(results, outcome.results);
  results.durationSeconds = round((Date.now() - started) / 1000);
  // The load at the end includes the bench's own work, so only the start decides validity; the
  // end figure is kept to show how much the run itself loaded the machine.
  const loadAtEnd = await machineLoad(false);
  results.loadAverageAtEnd = loadAtEnd.loadAverage1m;
  const valid = loadAtStart.problems.length === 0;
  results.valid = valid;
  results.invalidBecause = loadAtStart.problems;
  results.budgets = budgets;
  results.notes = ran.flatMap((outcome) => outcome.notes ?? []);

  const out: string[] = ['', `npm run bench — ${new Date().toISOString()} — ${cpus().length} cores, Node ${process.version}, ${round((Date.now() - started) / 1000)} s, ${describeLoad(loadAtStart)} at start`, ''];
  for (const phase of REPORT_ORDER) out.push(...(outcomes.get(phase)?.report ?? []));
  out.push('Budgets');
  out.push(table([['budget', 'measured', 'limit', '', ''], ...budgets.map((entry) => [entry.name, String(entry.measured), String(entry.limit), entry.unit, entry.pass ? 'PASS' : 'MISS'])]));
  if (!valid) {
    out.push('', `RUN INVALID: the machine was too busy at start (${loadAtStart.problems.join('; ')}); the figures above are noise, not results.`);
    if (allowLoad) out.push('BENCH_ALLOW_LOAD=1: exiting 0 anyway (figures for relative comparisons only).');
  }
  console.log(out.join('\n'));
  const file = valid ? RESULTS_FILE : INVALID_RESULTS_FILE;
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
  log(`results written to ${file}`);
  return valid || allowLoad ? 0 : 2;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('bench failed:', error);
    process.exit(1);
  },
);

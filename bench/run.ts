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
 *   metrics  phases/metrics.ts   post metrics: platform requests and DynamoDB units per 1,000 posts
 *                                collected, the bill per 1,000 posts tracked 30 days
 *   media    phases/media.ts     completing a 5 MB image and a 200 MB video uploaded through the
 *                                API: latency, bytes read from S3, the bill per 1,000 media
 *
 * The stack runs in this process (DynamoDB Local as a JVM child with its full JIT, in memory; the
 * sandbox platforms as a child process keeping no record on disk, as X and LinkedIn run apart from
 * the service; the functions that are not the API, queue consumers, sweeper and webhook router, in
 * the functions host, a child process of their own (local/functions-host.ts), as each Lambda
 * function has a CPU of its own; fauxqs, the Scheduler stand-in and the API server here), with its
 * own data folder (.bench-data, wiped at start). The bursts' floors are sent from a process of
 * their own too (bench/floor-process.ts), so figure and floor keep one process shape. Load comes
 * from autocannon in a child process (bench/load-worker.ts), so the server never shares its event
 * loop with the load.
 *
 * For A/B runs of that layout: BENCH_LAYOUT=in-process runs every function (and the floors) in
 * this process, as before issue 30's process split (docs/performance.md).
 * Results: a table on stdout and bench/results.json.
 *
 * BENCH_ONLY=cold,text,scale,burst,spread,api,cost,metrics,media runs a subset (for working on one figure); the
 * stack is started only when a phase that needs it runs.
 *
 * Every timing budget is a ratio to a floor the phase measures in the same run (issue 30; the
 * table prints figure, floor, ratio and limit, and the absolute limit each figure had before).
 * BENCH_REPEAT=3 runs the timing phases three times (each repeat of a stack phase on users of its
 * own) and holds the median of each budget's ratio; the other phases run once. A phase that throws
 * is reported as failed (a MISS in the budgets, its error in the results) and the others still run;
 * a run with a failed phase writes its figures to results.invalid.json and exits 1.
 *
 * A new phase is one entry of PHASES below.
 *
 * The machine's load at start (bench/machine-load.ts) is recorded and printed; since the timing
 * budgets are ratios to floors of the same run, it no longer invalidates a run (issue 30). A run
 * in which every phase ran to its end writes bench/results.json; one with a failed phase writes
 * bench/results.invalid.json and exits 1. After each phase the figures so far are written to
 * bench/results.invalid.json (`partial: true`), so a run stopped before its end keeps them.
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
import { routerFilters, routerIdleIntervals, startStreamRouter } from '../local/stream-router.js';
import { log, provisionUsers, started, type BenchContext } from './harness.js';
import { FloorProcess } from './floor-process.js';
import { LoadGenerator } from './load-generator.js';
import { meterFunctionsHost } from './meter.js';
import { startS3Meter, type S3Meter } from './s3-meter.js';
import { describeLoad, machineLoad } from './machine-load.js';
import { apiPhase } from './phases/api.js';
import { burstPhase } from './phases/burst.js';
import { coldPhase } from './phases/cold.js';
import { costPhase } from './phases/cost.js';
import { mediaPhase } from './phases/media.js';
import { metricsPhase } from './phases/metrics.js';
import { scalePhase } from './phases/scale.js';
import { spreadPhase } from './phases/spread.js';
import { textRulesPhase } from './phases/text-rules.js';
import { budgetTable, type Budget, type PhaseOutcome } from './report.js';
import { median, round } from './stats.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const DATA_DIR = resolve('.bench-data');
const RESULTS_FILE = join(HERE, 'results.json');
/** Where an incomplete run's figures go, so results.json only ever holds a run of every phase it ran. */
const INVALID_RESULTS_FILE = join(HERE, 'results.invalid.json');
/** BENCH_LAYOUT=in-process: every function and the floors in this process, as before the functions host (for A/B runs). */
const functionsInProcess = process.env.BENCH_LAYOUT === 'in-process';
const repeat = Math.max(1, Math.min(5, Number(process.env.BENCH_REPEAT ?? '1') || 1));

/** What a phase is given: the stack, started on first use (none for `cold` and `text`), and what earlier phases handed on. */
interface BenchRun {
  stack(): Promise<BenchStack>;
  /** The p50 at concurrency 1 of each API operation, from `api`, for `cost`. */
  apiP50: Record<string, number>;
}

interface PhaseSpec {
  name: string;
  /** A timing phase: run BENCH_REPEAT times, its budgets the median of the runs. */
  timing: boolean;
  /** `round` counts the repeats from 0. */
  run(bench: BenchRun, round: number): Promise<PhaseOutcome>;
}

/** The phases, in the order they run; their sections are printed in the same order. */
const PHASES: readonly PhaseSpec[] = [
  { name: 'cold', timing: true, run: () => coldPhase() },
  { name: 'text', timing: true, run: () => textRulesPhase() },
  { name: 'scale', timing: false, run: async (bench) => scalePhase((await bench.stack()).context) },
  {
    name: 'burst',
    timing: true,
    run: async (bench, round) => {
      const stack = await bench.stack();
      await stack.startRouter();
      // The emulator's JIT is warm after the first round's unmeasured burst.
      return burstPhase(await stack.contextFor(round), { warmUp: round === 0 });
    },
  },
  {
    name: 'spread',
    timing: true,
    run: async (bench, round) => {
      const stack = await bench.stack();
      await stack.startRouter();
      return spreadPhase(await stack.contextFor(round));
    },
  },
  {
    name: 'api',
    timing: true,
    run: async (bench, round) => {
      const stack = await bench.stack();
      await stack.startRouter();
      const api = await apiPhase(await stack.contextFor(round));
      bench.apiP50 = api.apiP50;
      return api;
    },
  },
  {
    name: 'cost',
    timing: false,
    run: async (bench) => {
      const stack = await bench.stack();
      await stack.startRouter();
      await stack.pauseSweeper();
      return costPhase(stack.context, bench.apiP50);
    },
  },
  { name: 'metrics', timing: false, run: async (bench) => metricsPhase((await bench.stack()).context) },
  { name: 'media', timing: false, run: async (bench) => mediaPhase((await bench.stack()).context) },
];
const STACKLESS = new Set(['cold', 'text']);

const only = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
const runs = (phase: PhaseSpec): boolean => only.length === 0 || only.includes(phase.name);

/** The local stack the phases other than `cold` run against, and everything to stop afterwards. */
interface BenchStack {
  context: BenchContext;
  /** The context for a repeat: round 0 is `context`; a later round gets users of its own (X's limits are per account and window). */
  contextFor(round: number): Promise<BenchContext>;
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
  let s3: S3Meter | undefined;
  let stack: RunningStack | undefined;
  let load: LoadGenerator | undefined;
  let floors: FloorProcess | undefined;
  let sweeper: Runner | undefined;
  let router: Runner | undefined;
  let db: DynamoDBClient | undefined;
  const stop = async (): Promise<void> => {
    load?.stop();
    floors?.stop();
    await sweeper?.stop();
    await router?.stop();
    db?.destroy();
    await stack?.stop().catch((error: unknown) => log(`stopping the stack failed: ${String(error)}`));
    await s3?.stop().catch(() => undefined);
    await fauxqs?.stop().catch(() => undefined);
    await dynamo?.stop().catch(() => undefined);
  };
  try {
    log('starting the local stack (DynamoDB Local in memory, full JIT)');
    // The full JIT (fastStart off): the JVM's peak speed, as a long-running stack would have it.
    dynamo = await startDynamoDbLocal({ dataDir: null, fastStart: false });
    fauxqs = await startFauxqsServer({ mediaMirror: false });
    // The stack reaches S3 through the meter, which counts what the media phase reads.
    s3 = await startS3Meter(fauxqs.endpoint);
    stack = await startStackServices({
      endpoints: { dynamodbEndpoint: dynamo.endpoint, s3Endpoint: s3.endpoint, sqsEndpoint: fauxqs.sqsEndpoint },
      dataDir: DATA_DIR,
      consumers: true,
      // The sandbox platforms in a process of their own, as X and LinkedIn are apart from the
      // service: in this one they took a share of the one Node thread the publish worker sends a
      // burst's creates on (each create was parsed and answered on it too), with no record on disk
      // (memory only, as in-process) so no fsync per create is measured either.
      sandbox: 'process',
      sandboxRecord: false,
      // The functions that are not the API in a process of their own (local/functions-host.ts).
      ...(functionsInProcess ? {} : { functions: 'process' as const }),
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
    meterFunctionsHost(stack.functions);
    sweeper = stack.functions ? await stack.functions.startSweeper({ ...SWEEPER, intervalMs: 60_000 }) : startSweeper({ ...SWEEPER, intervalMs: 60_000 });
    // Standard retries, as on AWS: a reset connection from the emulator under a burst is transient.
    db = dynamoDbClientFor(dynamo.endpoint, { retries: 'standard' });
    load = new LoadGenerator();
    // The floors' sends from a process of their own when the worker's are (bench/floor-process.ts).
    if (stack.functions) floors = new FloorProcess(stack.env);
    const users = await provisionUsers();
    log(`stack up at ${stack.baseUrl}; users provisioned`);
    const context: BenchContext = { stack, db, load, users, jvmPid: dynamo.pid ?? null, s3, floors: floors ?? null };
    const rounds = new Map<number, BenchContext>([[0, context]]);
    return {
      context,
      contextFor: async (round) => {
        const known = rounds.get(round);
        if (known) return known;
        const fresh = { ...context, users: await provisionUsers() };
        rounds.set(round, fresh);
        return fresh;
      },
      pauseSweeper: async () => {
        await sweeper?.stop();
        sweeper = undefined;
      },
      startRouter: async () => {
        const running = stack!;
        if (router) return;
        const routing = {
          dynamodbEndpoint: running.info.dynamodbEndpoint,
          tables: WEBHOOK_ROUTER.tables.map((name) => running.tables[name]),
          checkpointDir: join(DATA_DIR, 'streams'),
          entry: WEBHOOK_ROUTER.entry,
          name: WEBHOOK_ROUTER.name,
          startAt: 'latest' as const,
          filters: routerFilters(running.tables),
          idleIntervalsMs: routerIdleIntervals(running.tables),
        };
        router = running.functions
          ? await running.functions.startStreamRouter(routing)
          : await startStreamRouter({ ...routing, log: (message, error) => log(`streams: ${message}${error === undefined ? '' : ` ${String(error)}`}`) });
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function main(): Promise<number> {
  const known = PHASES.map((phase) => phase.name);
  const unknown = only.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown phase(s) ${unknown.join(', ')}; known: ${known.join(', ')}`);
  const loadAtStart = await machineLoad(true);
  log(`machine at start: ${describeLoad(loadAtStart)}${loadAtStart.problems.length > 0 ? ` — busy: ${loadAtStart.problems.join('; ')}` : ''}`);
  await rm(DATA_DIR, { recursive: true, force: true });
  await mkdir(DATA_DIR, { recursive: true });
  const selected = PHASES.filter(runs);
  const results: Record<string, unknown> = {
    generatedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '', memoryGb: round(totalmem() / 2 ** 30), node: process.version, platform: process.platform },
    // Anything else busy on the machine skews every figure: the load before and after (machine-load.ts).
    loadAverageAtStart: loadAtStart.loadAverage1m,
    machineLoadAtStart: loadAtStart,
    phasesRun: selected.map((phase) => phase.name),
    repeat,
  };

  let stack: BenchStack | undefined;
  let stackFailure: unknown;
  const bench: BenchRun = {
    stack: async () => {
      if (stack) return stack;
      // A stack that failed to start fails every phase that needs it, with the same error, once.
      if (stackFailure !== undefined) throw stackFailure;
      try {
        stack = await startBenchStack();
        return stack;
      } catch (error) {
        stackFailure = error;
        throw error;
      }
    },
    apiP50: {},
  };
  /** Each phase's outcome per round (a failed round has none), and its failures. */
  const outcomes = new Map<string, PhaseOutcome[]>();
  const failures: { phase: string; round: number; error: string }[] = [];
  try {
    for (let round = 0; round < repeat; round++) {
      for (const phase of selected) {
        if (round > 0 && !phase.timing) continue;
        if (round > 0 || repeat > 1) log(`${phase.name}: round ${round + 1} of ${phase.timing ? repeat : 1}`);
        if (!STACKLESS.has(phase.name) && round === 0 && !stack && stackFailure === undefined) log('starting the stack');
        try {
          const outcome = await phase.run(bench, round);
          outcomes.set(phase.name, [...(outcomes.get(phase.name) ?? []), outcome]);
        } catch (error) {
          const message = error instanceof Error ? `${error.message}${error.cause ? ` (cause: ${String(error.cause)})` : ''}` : String(error);
          log(`${phase.name} FAILED (round ${round + 1}): ${message}`);
          failures.push({ phase: phase.name, round, error: message });
        }
        // What is measured so far, kept should the run be stopped before its end (a slow hour, a timeout).
        const partial = { ...results, partial: true, failedPhases: failures };
        for (const [name, rounds] of outcomes) Object.assign(partial, rounds[rounds.length - 1]?.results, { [`budgets:${name}`]: rounds.map((outcome) => outcome.budgets) });
        await writeFile(INVALID_RESULTS_FILE, `${JSON.stringify(partial, null, 2)}\n`).catch(() => undefined);
      }
    }
  } finally {
    await stack?.stop();
  }

  const budgets: Budget[] = [];
  const out: string[] = [];
  for (const phase of selected) {
    const rounds = outcomes.get(phase.name) ?? [];
    const last = rounds[rounds.length - 1];
    if (last) {
      Object.assign(results, last.results);
      out.push(...last.report);
      budgets.push(...(rounds.length > 1 ? medianBudgets(rounds.map((outcome) => outcome.budgets)) : last.budgets));
    }
    for (const failure of failures.filter((entry) => entry.phase === phase.name)) {
      budgets.push({ name: `phase ${phase.name} ran to its end (round ${failure.round + 1})`, measured: 0, limit: 1, unit: 'runs', pass: false });
      out.push(`Phase ${phase.name} FAILED in round ${failure.round + 1}: ${failure.error}`, '');
    }
  }
  if (repeat > 1) results.repeats = Object.fromEntries([...outcomes].map(([name, rounds]) => [name, rounds.map((outcome) => outcome.budgets)]));
  results.failedPhases = failures;
  results.durationSeconds = round((Date.now() - started) / 1000);
  // The end figure includes the bench's own work: kept to show how much the run itself loaded the machine.
  const loadAtEnd = await machineLoad(false);
  results.loadAverageAtEnd = loadAtEnd.loadAverage1m;
  const valid = failures.length === 0;
  results.valid = valid;
  results.busyAtStart = loadAtStart.problems;
  results.budgets = budgets;
  results.notes = selected.flatMap((phase) => (outcomes.get(phase.name) ?? []).slice(-1).flatMap((outcome) => outcome.notes ?? []));

  const header = ['', `npm run bench — ${new Date().toISOString()} — ${cpus().length} cores, Node ${process.version}, ${round((Date.now() - started) / 1000)} s, ${describeLoad(loadAtStart)} at start${repeat > 1 ? `, timing phases ${repeat} times (medians)` : ''}`, ''];
  out.unshift(...header);
  out.push(repeat > 1 ? `Budgets (timing budgets: the median of ${repeat} runs)` : 'Budgets');
  out.push(budgetTable(budgets));
  if (loadAtStart.problems.length > 0) out.push('', `Busy machine at start (${loadAtStart.problems.join('; ')}): the ratios hold figure and floor alike; absolute figures are this hour's.`);
  if (!valid) out.push('', `RUN INCOMPLETE: ${failures.length} phase run(s) failed (${[...new Set(failures.map((entry) => entry.phase))].join(', ')}); the other phases' figures are above.`);
  console.log(out.join('\n'));
  const file = valid ? RESULTS_FILE : INVALID_RESULTS_FILE;
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
  log(`results written to ${file}`);
  return valid ? 0 : 1;
}

/** One budget per name: the median of its runs' figure, floor and ratio; PASS when the median ratio (or figure) is within the limit. */
function medianBudgets(rounds: readonly (readonly Budget[])[]): Budget[] {
  const first = rounds[0] ?? [];
  return first.map((entry) => {
    const same = rounds.map((budgets) => budgets.find((other) => other.name === entry.name)).filter((other): other is Budget => other !== undefined);
    const of = (pick: (budget: Budget) => number | undefined): number => median(same.map(pick).filter((value): value is number => value !== undefined));
    const measured = of((budget) => budget.measured);
    if (entry.ratio === undefined) {
      return { ...entry, measured: round(measured), pass: Number.isFinite(measured) && measured <= entry.limit, runs: same.map((budget) => budget.measured) };
    }
    const ratio = of((budget) => budget.ratio);
    return {
      ...entry,
      measured: round(measured),
      floor: round(of((budget) => budget.floor)),
      ratio: round(ratio),
      pass: Number.isFinite(ratio) && ratio <= entry.limit,
      ...(entry.formerLimit === undefined ? {} : { withinFormerLimit: measured <= entry.formerLimit }),
      runs: same.map((budget) => budget.ratio ?? Number.NaN),
    };
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('bench failed:', error);
    process.exit(1);
  },
);

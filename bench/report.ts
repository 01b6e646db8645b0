/** The budgets every phase is held to, and the pieces of the printed report. */
import { round } from './stats.js';

/**
 * The budgets decided for the service. A timing budget is a RATIO to a floor the same run measures
 * on the same machine with the same parts, minus the service's own logic (issue 30): a slower hour
 * moves figure and floor together. docs/performance.md says how each floor is made. The absolute
 * limits these figures had before are kept (FORMER_LIMITS) and printed beside, never decisive.
 */
export const BUDGETS = {
  /** Bursts of 500 and 2,000 due at once: p99 lag over the bare sends and outcome writes (phases/burst-floor.ts). */
  publishLagRatio: 1.5,
  /** The spread run measures polling intervals, not CPU: its p99 stays absolute (decisions.md: within 1 s). */
  publishLagP99Ms: 1000,
  /** The burst's stretch goal: printed beside the budget, not a budget of its own. */
  publishLagStretchP99Ms: 250,
  /** Webhook lag, 500 events to one endpoint and across 50: p99 over its floor (bench/webhook-floor.ts). */
  webhookLagRatio: 1.5,
  /** Issue 18: a post's state change to its webhook at the receiver, p99, in the spread run. */
  webhookLagP99Ms: 1000,
  scaleRatio: 1.5,
  createDynamoRequests: 8,
  /**
   * Median `import()` of each bundle in a fresh Node process, source maps on (as deployed), over
   * the import of a reference bundle holding only the AWS SDK clients the function bundles and an
   * empty handler: the cold start the function adds to what its clients cost anyway.
   */
  importRatio: 1.5,
  /** CPU of the per-target text rules over twitter-text's own parse of the same texts. */
  textRulesRatio: 1.5,
  overheadRatio: 3,
  /** The worker's DynamoDB write units for one publish: today's 13 came from indexes copying claim writes. */
  publishWriteUnitsPerPost: 10,
  /** The AWS bill per 1,000 published posts, every scenario of the cost phase. */
  costPerThousandPublishedUsd: 0.05,
  /** Issue 18: the AWS bill per 1,000 webhook events (one endpoint each), every scenario of the cost phase. */
  costPerThousandWebhookEventsUsd: 0.05,
  /** Issue 34: X requests per 1,000 posts collected, at 100 ids a request (phases/metrics.ts). */
  metricsXRequestsPerThousand: 20,
  /** Issue 34: our side's DynamoDB bill per 1,000 published posts tracked 30 days, in US cents (phases/metrics.ts). */
  metricsCentsPerThousandTracked: 2,
};

/** The absolute limits the ratio budgets replaced (issue 30), printed beside the figures for the record. */
export const FORMER_LIMITS = {
  importMs: 60,
  importMsAssistantServer: 80,
  publishLagP99Ms: 1000,
  publishLagP99Ms2000: 2000,
  webhookLagP99Ms: 1000,
  textRulesMs: 50,
};

/** What one phase hands back to bench/run.ts. */
export interface PhaseOutcome {
  /** Entries of bench/results.json, under the keys earlier runs used. */
  results: Record<string, unknown>;
  budgets: Budget[];
  /** The phase's section of the printed report (empty when it has nothing to show). */
  report: string[];
  notes?: string[];
}

export interface Budget {
  name: string;
  /** The figure (for a ratio budget, in `unit`: the absolute value, e.g. the p99 in ms). */
  measured: number;
  /** The limit: for a ratio budget, of `ratio`; otherwise of `measured`, in `unit`. */
  limit: number;
  unit: string;
  pass: boolean;
  /** A ratio budget's floor, measured in the same run, in `unit`. */
  floor?: number;
  /** measured ÷ floor: what a ratio budget holds to `limit`. */
  ratio?: number;
  /** The absolute limit the figure had before it became a ratio (not decisive), and whether it is within it. */
  formerLimit?: number;
  withinFormerLimit?: boolean;
  /** With BENCH_REPEAT: each run's ratio (or figure); `measured`, `floor` and `ratio` are their medians. */
  runs?: number[];
}

/** A function's import budget, as a ratio to its reference bundle. */
export function importRatioBudget(): number {
  return BUDGETS.importRatio;
}

/** The absolute import limit a function had before (printed beside). */
export function formerImportLimitMs(functionName: string): number {
  return functionName === 'Mcp' ? FORMER_LIMITS.importMsAssistantServer : FORMER_LIMITS.importMs;
}

export function budget(name: string, measured: number, limit: number, unit: string): Budget {
  return { name, measured: round(measured), limit, unit, pass: Number.isFinite(measured) && measured <= limit };
}

/**
 * A ratio budget: `measured` over the `floor` the same run measured, held to `limit`. `pairedRatio`,
 * when given, is the ratio held instead: the median of each run's own ratio, for figures measured
 * in pairs (each run of the figure beside a run of its floor), which a load that comes and goes
 * moves less than it moves either median.
 */
export function ratioBudget(name: string, measured: number, floor: number, limit: number, unit: string, formerLimit?: number, pairedRatio?: number): Budget {
  const ratio = pairedRatio ?? measured / floor;
  return {
    name,
    measured: round(measured),
    floor: round(floor),
    ratio: round(ratio),
    limit,
    unit,
    pass: Number.isFinite(ratio) && ratio <= limit,
    ...(formerLimit === undefined ? {} : { formerLimit, withinFormerLimit: Number.isFinite(measured) && measured <= formerLimit }),
  };
}

/** The budgets table: figure, floor, ratio and limit side by side, the former absolute limit last. */
export function budgetTable(budgets: readonly Budget[]): string {
  return table([
    ['budget', 'figure', 'floor', 'ratio', 'limit', 'unit', '', 'former limit'],
    ...budgets.map((entry) => [
      entry.name,
      String(entry.measured),
      entry.floor === undefined ? '' : String(entry.floor),
      entry.ratio === undefined ? '' : `${entry.ratio}x`,
      entry.ratio === undefined ? String(entry.limit) : `${entry.limit}x`,
      entry.unit,
      entry.pass ? 'PASS' : 'MISS',
      entry.formerLimit === undefined ? '' : `${entry.formerLimit} ${entry.unit} (${entry.withinFormerLimit ? 'within' : 'over'})`,
    ]),
  ]);
}

export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ')).join('\n');
}

export const ms = (value: number): string => (Number.isFinite(value) ? `${round(value)}` : '-');

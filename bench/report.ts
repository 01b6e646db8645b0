/** The budgets every phase is held to, and the pieces of the printed report. */
import { round } from './stats.js';

/** The budgets decided for the service: each is printed PASS or MISS beside its figure. */
export const BUDGETS = {
  /** decisions.md: a post goes out within 1 s of its time, p99; for a burst of 500 and for 200 spread out. */
  publishLagP99Ms: 1000,
  /** Issue 23: 2,000 posts due at one second (80 creates of 25 targets, created 17 s ahead), p99. */
  publishLagP99Ms2000: 2000,
  /** The burst's stretch goal: printed beside the budget, not a budget of its own. */
  publishLagStretchP99Ms: 250,
  /** Issue 18: a post's state change to its webhook at the receiver, p99, burst and spread alike. */
  webhookLagP99Ms: 1000,
  scaleRatio: 1.5,
  createDynamoRequests: 8,
  /**
   * Median `import()` of each bundle in a fresh Node process, source maps on (as deployed): the
   * cold-start budget. Bundle size is reported, not budgeted (bench/bundle-ceilings.ts says why).
   */
  importMs: 60,
  /** The assistant server's import budget: the MCP SDK and zod come with the protocol. */
  importMsAssistantServer: 80,
  overheadRatio: 3,
  /** The worker's DynamoDB write units for one publish: today's 13 came from indexes copying claim writes. */
  publishWriteUnitsPerPost: 10,
  /** The AWS bill per 1,000 published posts, every scenario of the cost phase. */
  costPerThousandPublishedUsd: 0.05,
  /** Issue 18: the AWS bill per 1,000 webhook events (one endpoint each), every scenario of the cost phase. */
  costPerThousandWebhookEventsUsd: 0.05,
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
  measured: number;
  limit: number;
  unit: string;
  pass: boolean;
}

/** A function's cold-start budget: its import time. */
export function importBudgetMs(functionName: string): number {
  return functionName === 'Mcp' ? BUDGETS.importMsAssistantServer : BUDGETS.importMs;
}

export function budget(name: string, measured: number, limit: number, unit: string): Budget {
  return { name, measured: round(measured), limit, unit, pass: Number.isFinite(measured) && measured <= limit };
}

export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ')).join('\n');
}

export const ms = (value: number): string => (Number.isFinite(value) ? `${round(value)}` : '-');

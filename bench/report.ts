/** The budgets every phase is held to, and the pieces of the printed report. */
import { round } from './stats.js';

export const BUDGETS = {
  publishLagP99Ms: 1000,
  scaleRatio: 1.5,
  createDynamoRequests: 8,
  bundleBytes: 500_000,
  importMs: 150,
  overheadRatio: 3,
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

export function budget(name: string, measured: number, limit: number, unit: string): Budget {
  return { name, measured: round(measured), limit, unit, pass: Number.isFinite(measured) && measured <= limit };
}

export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ')).join('\n');
}

export const ms = (value: number): string => (Number.isFinite(value) ? `${round(value)}` : '-');

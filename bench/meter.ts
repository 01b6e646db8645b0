/**
 * The bench's SDK meter (lib/store/sdk-metering.ts) over every process the stack's functions run
 * in: this one (the API, the handlers a phase invokes itself) and, when the stack has one, the
 * functions host (local/functions-host.ts: the workers, the router, the sweeper), whose counts are
 * read over its IPC channel. A phase resets and reads it here, never one process's alone.
 */
import { sdkMeter, type CommandMeter } from '../lib/store/sdk-metering.js';
import type { FunctionsHost } from '../local/functions-host.js';

let host: FunctionsHost | null = null;

/** The bench stack's functions host (null: every function runs in this process). */
export function meterFunctionsHost(functions: FunctionsHost | null): void {
  host = functions;
}

/** Whether SDK_METERING reached the handlers (it is set in this process's environment as in the host's). */
export function meteringOn(): boolean {
  return sdkMeter() !== null;
}

export async function resetMeter(): Promise<void> {
  sdkMeter()?.reset();
  await host?.meter(true);
}

/** The counts since the last reset, of this process and the functions host together (a copy). */
export async function meterCommands(): Promise<Record<string, CommandMeter>> {
  const merged: Record<string, CommandMeter> = {};
  mergeInto(merged, sdkMeter()?.commands ?? {});
  if (host) mergeInto(merged, (await host.meter(false)) ?? {});
  return merged;
}

/** Adds one run's counters to `merged`, command by command. */
export function mergeInto(merged: Record<string, CommandMeter>, run: Record<string, CommandMeter>): void {
  for (const [key, value] of Object.entries(run)) {
    const total = (merged[key] ??= { requests: 0, failures: {}, reportedCapacityUnits: 0, capacityUnits: 0, entries: 0, tables: {}, unitsByTable: {} });
    total.requests += value.requests;
    total.reportedCapacityUnits += value.reportedCapacityUnits;
    total.capacityUnits += value.capacityUnits;
    total.entries += value.entries;
    for (const [name, count] of Object.entries(value.failures)) total.failures[name] = (total.failures[name] ?? 0) + count;
    for (const [table, count] of Object.entries(value.tables)) total.tables[table] = (total.tables[table] ?? 0) + count;
    for (const [table, units] of Object.entries(value.unitsByTable)) total.unitsByTable[table] = (total.unitsByTable[table] ?? 0) + units;
  }
}

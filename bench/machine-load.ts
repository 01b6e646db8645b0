/**
 * Is this machine quiet enough for the figures to mean anything? Every timing of the bench is
 * skewed by whatever else runs here, so a run measures the load before it starts and after it
 * ends, and calls itself INVALID (printed, in results.json, and a non-zero exit unless
 * BENCH_ALLOW_LOAD=1) when either check fails:
 *
 * - the 1-minute load average per core is above MAX_LOAD_PER_CORE: the kernel's own count of
 *   runnable tasks, which lags by a minute but sees everything, including processes of others;
 * - a 2-second probe of /proc/stat finds the cores busier than MAX_BUSY_SHARE (or a hypervisor
 *   stealing more than MAX_STEAL_SHARE) before any of the bench's own work started: what the load
 *   average has not caught up with yet.
 */
import { readFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { round } from './stats.js';

export const MAX_LOAD_PER_CORE = 1.0;
export const MAX_BUSY_SHARE = 0.5;
export const MAX_STEAL_SHARE = 0.05;
const PROBE_MS = 2_000;

export interface MachineLoad {
  cores: number;
  loadAverage1m: number;
  loadPerCore: number;
  /** Share of all cores' time busy (user, system, steal...) during the probe; null off Linux. */
  busyShare: number | null;
  stealShare: number | null;
  /** Why the machine is too busy; empty when quiet. */
  problems: string[];
}

interface CpuTimes {
  total: number;
  idle: number;
  steal: number;
}

async function cpuTimes(): Promise<CpuTimes | null> {
  try {
    // First line of /proc/stat: "cpu  user nice system idle iowait irq softirq steal guest guest_nice".
    const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0] ?? '';
    const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
    return { total: user + nice + system + idle + iowait + irq + softirq + steal, idle: idle + iowait, steal };
  } catch {
    return null;
  }
}

/** `probe`: also sample /proc/stat for two seconds (at the start, when the bench itself is idle). */
export async function machineLoad(probe: boolean): Promise<MachineLoad> {
  const cores = cpus().length;
  const loadAverage1m = loadavg()[0] ?? Number.NaN;
  const loadPerCore = loadAverage1m / cores;
  let busyShare: number | null = null;
  let stealShare: number | null = null;
  if (probe) {
    const before = await cpuTimes();
    await sleep(PROBE_MS);
    const after = await cpuTimes();
    if (before && after && after.total > before.total) {
      const total = after.total - before.total;
      busyShare = 1 - (after.idle - before.idle) / total;
      stealShare = (after.steal - before.steal) / total;
    }
  }
  const problems: string[] = [];
  if (!(loadPerCore <= MAX_LOAD_PER_CORE)) problems.push(`1-min load average ${round(loadAverage1m)} on ${cores} cores (${round(loadPerCore)} per core, limit ${MAX_LOAD_PER_CORE})`);
  if (busyShare !== null && busyShare > MAX_BUSY_SHARE) problems.push(`cores ${Math.round(busyShare * 100)}% busy before the bench started (limit ${MAX_BUSY_SHARE * 100}%)`);
  if (stealShare !== null && stealShare > MAX_STEAL_SHARE) problems.push(`${Math.round(stealShare * 100)}% of CPU time stolen by the hypervisor (limit ${MAX_STEAL_SHARE * 100}%)`);
  return { cores, loadAverage1m: round(loadAverage1m), loadPerCore: round(loadPerCore), busyShare: busyShare === null ? null : round(busyShare), stealShare: stealShare === null ? null : round(stealShare), problems };
}

export function describeLoad(load: MachineLoad): string {
  const probe = load.busyShare === null ? '' : `, cores ${Math.round(load.busyShare * 100)}% busy, steal ${Math.round((load.stealShare ?? 0) * 100)}%`;
  return `load average ${load.loadAverage1m} on ${load.cores} cores (${load.loadPerCore} per core)${probe}`;
}

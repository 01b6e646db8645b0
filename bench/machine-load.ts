/**
 * How busy this machine is when a run starts: the 1-minute load average per core (the kernel's
 * count of runnable tasks, lagging a minute but seeing everything, including processes of others)
 * and a 2-second probe of /proc/stat (cores busy, CPU stolen by a hypervisor) before any of the
 * bench's own work. Recorded in the results and printed; `problems` names what is above the
 * thresholds below.
 *
 * It no longer decides whether a run counts (issue 30): every timing budget is a ratio to a floor
 * the same run measures, so a busy hour slows figure and floor together, and a run on this shared
 * machine at any hour is a result. The load says how much to trust the few absolute figures left
 * (the spread run's p99, the API latencies).
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

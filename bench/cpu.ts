/** CPU use of this process and of DynamoDB Local's JVM over a window (Linux /proc). */
import { readFile } from 'node:fs/promises';

export interface CpuSnapshot {
  at: number;
  /** Core-seconds used so far. */
  node: number;
  jvm: number | null;
}

const CLOCK_TICKS_PER_SECOND = 100;

export async function cpuSnapshot(jvmPid: number | null): Promise<CpuSnapshot> {
  const usage = process.cpuUsage();
  let jvm: number | null = null;
  if (jvmPid !== null) {
    try {
      // /proc/<pid>/stat: utime and stime are fields 14 and 15 (after the parenthesised name).
      const stat = await readFile(`/proc/${jvmPid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      jvm = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
    } catch {
      jvm = null;
    }
  }
  return { at: Date.now(), node: (usage.user + usage.system) / 1e6, jvm };
}

export interface CpuUse {
  wallSeconds: number;
  /** Cores busy on average over the window. */
  nodeCores: number;
  jvmCores: number | null;
}

export function cpuUse(from: CpuSnapshot, to: CpuSnapshot): CpuUse {
  const wallSeconds = (to.at - from.at) / 1000;
  return {
    wallSeconds,
    nodeCores: (to.node - from.node) / wallSeconds,
    jvmCores: from.jvm === null || to.jvm === null ? null : (to.jvm - from.jvm) / wallSeconds,
  };
}

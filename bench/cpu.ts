/** CPU use of this process, of the functions host (when the stack has one) and of DynamoDB Local's JVM over a window (Linux /proc). */
import { readFile } from 'node:fs/promises';

export interface CpuSnapshot {
  at: number;
  /** Core-seconds used so far. */
  node: number;
  /** The functions host's (local/functions-host.ts), or null without one. */
  functions: number | null;
  jvm: number | null;
}

const CLOCK_TICKS_PER_SECOND = 100;

/** Core-seconds another process has used so far, or null when it cannot be read. */
async function coreSeconds(pid: number | null): Promise<number | null> {
  if (pid === null) return null;
  try {
    // /proc/<pid>/stat: utime and stime are fields 14 and 15 (after the parenthesised name).
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

export async function cpuSnapshot(jvmPid: number | null, functionsPid: number | null = null): Promise<CpuSnapshot> {
  const usage = process.cpuUsage();
  const [jvm, functions] = await Promise.all([coreSeconds(jvmPid), coreSeconds(functionsPid)]);
  return { at: Date.now(), node: (usage.user + usage.system) / 1e6, functions, jvm };
}

export interface CpuUse {
  wallSeconds: number;
  /** Cores busy on average over the window. */
  nodeCores: number;
  /** The functions host's, or null without one. */
  functionsCores: number | null;
  jvmCores: number | null;
}

export function cpuUse(from: CpuSnapshot, to: CpuSnapshot): CpuUse {
  const wallSeconds = (to.at - from.at) / 1000;
  return {
    wallSeconds,
    nodeCores: (to.node - from.node) / wallSeconds,
    functionsCores: from.functions === null || to.functions === null ? null : (to.functions - from.functions) / wallSeconds,
    jvmCores: from.jvm === null || to.jvm === null ? null : (to.jvm - from.jvm) / wallSeconds,
  };
}

// CPU time and memory of processes, read from /proc (Linux only; the harness is Linux-only too).
import { readFileSync } from 'node:fs';

/** User + system CPU seconds the process has used so far; undefined once it is gone. */
export function cpuSecondsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the ")" that closes the command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

/** A `Vm*` line of /proc/<pid>/status in MB (VmRSS now, VmHWM the peak); undefined when gone. */
export function memoryMbOf(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return m ? Math.round(Number(m[1]) / 102.4) / 10 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU seconds per named process at one moment. */
export type CpuSnapshot = Record<string, number>;

export function cpuSnapshot(pids: Readonly<Record<string, number>>): CpuSnapshot {
  const out: CpuSnapshot = {};
  for (const [name, pid] of Object.entries(pids)) {
    const s = cpuSecondsOf(pid);
    if (s !== undefined) out[name] = s;
  }
  return out;
}

/** CPU seconds each process used between two snapshots, rounded to 10 ms. */
export function cpuUsed(before: CpuSnapshot, after: CpuSnapshot): CpuSnapshot {
  const out: CpuSnapshot = {};
  for (const [name, s] of Object.entries(after))
    if (before[name] !== undefined) out[name] = Math.round((s - before[name]) * 100) / 100;
  return out;
}

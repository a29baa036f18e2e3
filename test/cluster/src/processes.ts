import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** A process the harness started. startTicks guards against acting on a recycled PID. */
export interface ProcessRecord {
  name: string;
  pid: number;
  startTicks: string;
  exe: string;
  logFile: string;
}

/**
 * Starts `exe` in its own session with output appended to `logFile`, and lets it outlive this
 * Node process (the CLI exits after `up`; the cluster keeps running until `down`).
 */
export function startDetached(
  name: string,
  exe: string,
  args: string[],
  logFile: string,
): ProcessRecord {
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(exe, args, { detached: true, stdio: ['ignore', fd, fd] });
    child.unref();
    if (child.pid === undefined) throw new Error(`spawn ${exe} returned no pid`);
    // Swallow the async spawn error; isRunning() reports the failure with the log tail.
    child.on('error', () => undefined);
    return { name, pid: child.pid, startTicks: startTicksOf(child.pid) ?? '', exe, logFile };
  } finally {
    closeSync(fd);
  }
}

/** Field 22 of /proc/<pid>/stat (start time since boot): stable for the life of a process. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; everything after its ')' is space-separated.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // no such process
  }
}

function startTicksOf(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/** True while the recorded process (same PID, same start time) exists and is not a zombie. */
export function isRunning(record: ProcessRecord): boolean {
  const fields = statFields(record.pid);
  if (!fields || fields[0] === 'Z') return false;
  return record.startTicks === '' || fields[19] === record.startTicks;
}

/** SIGTERM, wait up to graceMs, then SIGKILL; resolves once the process is gone. */
export async function stopProcess(record: ProcessRecord, graceMs = 15_000): Promise<void> {
  if (!isRunning(record)) return;
  signal(record.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isRunning(record) && Date.now() < deadline) await sleep(100);
  if (!isRunning(record)) return;
  signal(record.pid, 'SIGKILL');
  while (isRunning(record)) await sleep(50);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (err: unknown) {
    // ESRCH: it exited between the check and the signal, which is what we wanted.
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/** Last lines of a component's log, for error messages. */
export function logTail(logFile: string, lines = 20): string {
  if (!existsSync(logFile)) return '(no log written)';
  return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}

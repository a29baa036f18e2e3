// Runs one command to completion with buffered output (gRPC Execute, legacy /execute). The child
// leads its own session and process group, so a timeout or a cancelled request kills the whole
// group with SIGKILL, grandchildren included (unless they left the group themselves).
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { errnoCode, sandboxdError } from './errors.ts';

export interface RunOptions {
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** 0 or absent = no limit */
  timeoutMs?: number;
  /** Aborting kills the process group. */
  signal?: AbortSignal;
  /** Output beyond this many bytes per stream is dropped (the tail is kept). @default 64 MiB */
  maxOutputBytes?: number;
  /** How long pipes held open by grandchildren may outlive the child. @default 10_000 */
  drainMs?: number;
}

export interface RunResult {
  /** The exit status, or -1 when a signal ended it. */
  exitCode: number;
  /** The signal number that ended it, if any. */
  signal?: number;
  stdout: Buffer;
  stderr: Buffer;
  timedOut: boolean;
}

/** Sends `signal` to the child's process group, falling back to the child itself. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone: nothing to signal
    }
  }
}

/** Maps a spawn failure to NotFound / PermissionDenied / Internal with `prefix`. */
export function spawnError(err: unknown, prefix: string, argv0: string) {
  const code = errnoCode(err);
  if (code === 'ENOENT') {
    return sandboxdError('NotFound', `${prefix}: command or path not found: ${argv0}`, err);
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return sandboxdError('PermissionDenied', `${prefix}: permission denied: ${argv0}`, err);
  }
  return sandboxdError('Internal', `${prefix}: ${String(err)}`, err);
}

class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly cap: number) {}
  push(b: Buffer): void {
    this.chunks.push(b);
    this.size += b.length;
    while (this.size > this.cap && this.chunks.length > 1) this.size -= this.chunks.shift()!.length;
  }
  bytes(): Buffer {
    const all = Buffer.concat(this.chunks);
    return all.length > this.cap ? all.subarray(all.length - this.cap) : all;
  }
}

/** Spawns and waits. Rejects (SandboxdError) only when the command could not start. */
export function runToCompletion(options: RunOptions): Promise<RunResult> {
  const argv0 = options.argv[0] ?? '';
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(argv0, options.argv.slice(1), {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err: unknown) {
      reject(spawnError(err, 'failed to execute command', argv0));
      return;
    }
    const cap = options.maxOutputBytes ?? 64 * 1024 * 1024;
    const out = new Tail(cap);
    const errOut = new Tail(cap);
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => errOut.push(b));
    let timedOut = false;
    const kill = () => signalGroup(child, 'SIGKILL');
    const timer =
      options.timeoutMs && options.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            kill();
          }, options.timeoutMs)
        : undefined;
    options.signal?.addEventListener('abort', kill, { once: true });
    child.once('error', (err) => {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', kill);
      reject(spawnError(err, 'failed to execute command', argv0));
    });
    child.once('exit', () => {
      const drain = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, options.drainMs ?? 10_000);
      drain.unref();
      child.once('close', () => clearTimeout(drain));
    });
    child.once('close', (code, sig) => {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', kill);
      const signalNumber = sig ? signalNumberOf(sig) : undefined;
      resolve({
        exitCode: code ?? -1,
        ...(signalNumber === undefined ? {} : { signal: signalNumber }),
        stdout: out.bytes(),
        stderr: errOut.bytes(),
        timedOut,
      });
    });
  });
}

export function signalNumberOf(sig: NodeJS.Signals): number {
  return (constants.signals as Record<string, number>)[sig] ?? 0;
}

/** The child's environment: the daemon's, plus the request's vars (which win) when any. */
export function childEnv(base: NodeJS.ProcessEnv, extra: Record<string, string> | undefined) {
  return extra && Object.keys(extra).length > 0 ? { ...base, ...extra } : base;
}

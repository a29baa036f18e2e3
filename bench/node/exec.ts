// The node bench's exec round trips. `kubectl exec` reaches the streaming server's backend,
// which forks through the in-sandbox daemon when it can (ADR 0037) and runs the runtime's exec
// (`runc exec` / `runsc exec` / nested bwrap) otherwise: `throughBackend` times that choice and
// says which path each exec took. run.ts times the runtime's exec command beside it (the path a
// Pod without the daemon gets), so both are measured in the same run.
import type { ExecPath, StreamingBackend } from '@agent-sandbox/kubelet';

export interface ExecSample {
  ms: number;
  path: ExecPath;
  /** Settles once the process has ended (the sample resolves at its output, before that). */
  exited: Promise<unknown>;
}

/** How much of a failed exec's stderr the error quotes. */
const STDERR_TAIL = 2048;

/** ms from the backend's exec call to `hi` on the process's stdout, and the path it took. */
export async function throughBackend(
  backend: StreamingBackend,
  lastPath: () => ExecPath | undefined,
  pod: string,
): Promise<ExecSample> {
  const t0 = performance.now();
  const p = await backend.exec({ namespace: 'default', pod, container: 'main' }, ['echo', 'hi'], {
    stdin: false,
    stdout: true,
    stderr: true,
    tty: false,
  });
  const path = lastPath();
  if (!path) throw new Error(`exec into ${pod}: the backend reported no path`);
  // Kept for the error below: bwrap, nsenter or the prologue say there why an exec failed.
  let err = '';
  p.stderr?.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-STDERR_TAIL)));
  const ms = await new Promise<number>((resolve, reject) => {
    let out = '';
    p.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('hi')) resolve(performance.now() - t0);
    });
    // The readables end after the last byte (StreamProcess contract), maybe after `exited`.
    p.stdout?.once('end', () => {
      if (!out.includes('hi'))
        void p.exited.then((exit) =>
          reject(
            new Error(
              `exec into ${pod} (${path}): no output, ${JSON.stringify(exit)}, ` +
                `stderr ${JSON.stringify(err.trim())}`,
            ),
          ),
        );
    });
  });
  return { ms, path, exited: p.exited };
}

/** Execs until one takes the daemon path (it registers after the container runs), or `ms` passes. */
export async function untilDaemonPath(
  exec: () => Promise<ExecSample>,
  ms = 15_000,
): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const s = await exec();
    await s.exited;
    if (s.path === 'daemon') return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** `daemon 20/20` style: how many of the samples took each path. */
export function pathCounts(samples: readonly ExecSample[]): string {
  const n = (p: ExecPath) => samples.filter((s) => s.path === p).length;
  return (['daemon', 'runtime'] as const)
    .filter((p) => n(p) > 0)
    .map((p) => `${p} ${n(p)}/${samples.length}`)
    .join(', ');
}

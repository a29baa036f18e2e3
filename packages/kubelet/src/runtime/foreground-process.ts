// A runtime's foreground process (`runc run`, `runsc run`, `bwrap`): piped stdio the node agent
// keeps, and an exit status that is the container's (128+n when the process died of a signal).
import { spawn, type ChildProcess } from 'node:child_process';
import { RuntimeError } from '../errors.ts';
import type { ContainerProcess, ExitStatus } from './container-runtime.ts';

/** The whole environment of runtime processes on the host: nothing of the agent's leaks in. */
export const PATH_ENV = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' };

export interface ForegroundOptions {
  id: string;
  stdin: boolean;
  env: Record<string, string>;
  /** Pipes beyond stdio (fd 3, …), e.g. bwrap's --json-status-fd. @default 0 */
  extraPipes?: number;
  /** The error text when the binary cannot even be spawned (names what to install). */
  cannotRun(e: Error): string;
  /** An exit code the process reported itself (bwrap's status fd), preferred at exit. */
  reportedExitCode?(): number | undefined;
}

/** Spawns `argv`; resolves once it runs, rejects with RuntimeError when it cannot be spawned. */
export async function spawnForeground(
  argv: readonly string[],
  o: ForegroundOptions,
): Promise<{ child: ChildProcess; process: ContainerProcess }> {
  const child = spawn(argv[0] as string, argv.slice(1), {
    stdio: [
      o.stdin ? 'pipe' : 'ignore',
      'pipe',
      'pipe',
      ...Array.from({ length: o.extraPipes ?? 0 }, () => 'pipe' as const),
    ],
    env: o.env,
  });
  const exited = new Promise<ExitStatus>((resolve) => {
    child.on('error', () => resolve({ exitCode: 128 }));
    child.on('close', (code, signal) => {
      const reported = o.reportedExitCode?.();
      if (reported !== undefined) resolve({ exitCode: reported });
      else resolve(signal ? { exitCode: 128 + 9, signal } : { exitCode: code ?? 128 });
    });
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (e) => reject(new RuntimeError('Runtime', o.cannotRun(e))));
  });
  if (!child.stdout || !child.stderr) throw new RuntimeError('Runtime', 'runtime stdio missing');
  return {
    child,
    process: {
      id: o.id,
      stdout: child.stdout,
      stderr: child.stderr,
      stdin: child.stdin ?? undefined,
      exited,
    },
  };
}

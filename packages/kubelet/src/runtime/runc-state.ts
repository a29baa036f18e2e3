// Whether a runc container has started, read from runc's state directory instead of running
// `runc state`: a Go process start per poll (20–40 ms on a loaded machine) was most of the wait
// between `runc run` and a Pod shown Running. The test is runc's own (libcontainer `runType`,
// runc 1.1): state.json is saved once the init process waits on exec.fifo, and `run` removes the
// fifo when it lets init exec the workload; from then on, while init lives, runc says "running".
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** True when container `id` under runc root `stateDir` has started and its init is alive. */
export async function runcStarted(stateDir: string, id: string): Promise<boolean> {
  const dir = join(stateDir, id);
  let pid: unknown;
  try {
    pid = (JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')) as Record<string, unknown>)[
      'init_process_pid'
    ];
  } catch {
    return false; // not saved yet (runc writes it by rename, so a read is whole or absent)
  }
  if (typeof pid !== 'number' || pid <= 0) return false;
  if (await exists(join(dir, 'exec.fifo'))) return false; // created, not started
  return exists(`/proc/${pid}`);
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

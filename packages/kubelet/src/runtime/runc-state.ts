// Whether a runc or runsc container has started, read from the runtime's state directory instead
// of running `runc state` / `runsc state`: a Go process start per poll (20–100 ms on a loaded
// machine) was most of the wait between `run` and a Pod shown Running. Each test is the runtime's
// own. runc (libcontainer `runType`, 1.1): state.json is saved once the init process waits on
// exec.fifo, and `run` removes the fifo when it lets init exec the workload; from then on, while
// init lives, runc says "running". runsc: `<id>_sandbox:<sandbox id>.state` holds the status it
// reports, "running" once started, and the sandbox process that must still be alive.
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

/** True when single-container sandbox `id` under runsc root `stateDir` runs and is alive. */
export async function runscStarted(stateDir: string, id: string): Promise<boolean> {
  type RunscState = { status?: unknown; sandbox?: { pid?: unknown } };
  let state: RunscState;
  try {
    const file = join(stateDir, `${id}_sandbox:${id}.state`);
    state = JSON.parse(await readFile(file, 'utf8')) as RunscState;
  } catch {
    return false; // not created yet, or read while runsc rewrote it: the next poll tells
  }
  const pid = state.sandbox?.pid;
  if (state.status !== 'running' || typeof pid !== 'number' || pid <= 0) return false;
  return exists(`/proc/${pid}`);
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

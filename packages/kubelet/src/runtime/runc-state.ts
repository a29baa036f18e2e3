// Whether a runc or runsc container has started, read from the runtime's state directory instead
// of running `runc state` / `runsc state`: a Go process start per poll (20–100 ms on a loaded
// machine) was most of the wait between `run` and a Pod shown Running. Each test is the runtime's
// own. runc (libcontainer `runType`, 1.1): state.json is saved once the init process waits on
// exec.fifo, and `run` removes the fifo when it lets init exec the workload; from then on, while
// init lives, runc says "running". runsc: `<id>_sandbox:<sandbox id>.state` holds the status it
// reports, "running" once started, and the sandbox process that must still be alive.
// runc's test reads its files synchronously: a few kB on a local disk take microseconds, while
// each promise call was a threadpool job answered a loop turn later, three per poll, on the
// agent's busy loop. watchRuncStart tells the poller when runc's directory changes (inotify), so
// the start is seen when runc removes the fifo rather than at the next poll.
import { existsSync, mkdirSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** True when container `id` under runc root `stateDir` has started and its init is alive. */
export function runcStarted(stateDir: string, id: string): Promise<boolean> {
  return Promise.resolve(runcStartedSync(stateDir, id));
}

function runcStartedSync(stateDir: string, id: string): boolean {
  const dir = join(stateDir, id);
  let pid: unknown;
  try {
    pid = (JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as Record<string, unknown>)[
      'init_process_pid'
    ];
  } catch {
    return false; // not saved yet (runc writes it by rename, so a read is whole or absent)
  }
  if (typeof pid !== 'number' || pid <= 0) return false;
  if (existsSync(join(dir, 'exec.fifo'))) return false; // created, not started
  return existsSync(`/proc/${pid}`);
}

/**
 * Calls `onChange` whenever an entry of container `id`'s state directory under runc root
 * `stateDir` is made, renamed or removed (state.json saved, exec.fifo removed at the start),
 * until the returned function is called. runc makes that directory after `run` is spawned: until
 * then the root is watched for it. A hint only, never the answer: the caller still asks
 * runcStarted, and keeps polling, since a watch that cannot be set (inotify limits) is skipped.
 */
export function watchRuncStart(stateDir: string, id: string, onChange: () => void): () => void {
  let inner: FSWatcher | undefined;
  const open = (path: string, listener: (name: string | null) => void): FSWatcher | undefined => {
    try {
      const w = watch(path, { persistent: false }, (_event, name) => listener(name));
      w.on('error', () => w.close());
      return w;
    } catch {
      return undefined; // gone already, or no inotify watch left: the poll still answers
    }
  };
  const watchInner = (): void => {
    inner ??= open(join(stateDir, id), () => onChange());
    if (inner) outer?.close();
  };
  // runc makes the root with mode 0700 itself; made first, it can be watched before runc runs.
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const outer = open(stateDir, (name) => {
    if (name !== id) return;
    watchInner();
    onChange();
  });
  watchInner(); // the directory may be there already
  return () => {
    outer?.close();
    inner?.close();
  };
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

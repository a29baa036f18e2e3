// How soon the node agent sees a runc container started (ContainerInstance's until-running), A/B
// in one process: the agent's runtime (runcRuntime) runs `sh -c 'echo hi; exec sleep 3600'` from
// our bundle, and each arm waits for the start its own way, while the container's `hi` on stdout
// marks when it really ran. `poll (promise fs)` is the wait before 2026-12-03 (state files read
// with promise fs calls every 5 ms), `watch + sync check` the agent's now (ContainerInstance with
// watchStart). Both with this process's loop idle and kept busy, as the agent's shared loop is
// during a start (a 3 ms spin every 4 ms).
import { mkdirSync, writeFileSync } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContainerRuntime } from '../../packages/kubelet/src/runtime/container-runtime.ts';
import { runcRuntime } from '../../packages/kubelet/src/runtime/runc-runtime.ts';
import type { RuncWorld } from './runc-world.ts';

type Samples = Map<string, number[]>;

/** The runc start test before 2026-12-03: promise fs, three threadpool jobs per poll. */
async function startedBefore(stateDir: string, id: string): Promise<boolean> {
  const dir = join(stateDir, id);
  const ok = (p: string) =>
    access(p).then(
      () => true,
      () => false,
    );
  try {
    const state = JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')) as {
      init_process_pid?: unknown;
    };
    const pid = state.init_process_pid;
    if (typeof pid !== 'number' || (await ok(join(dir, 'exec.fifo')))) return false;
    return ok(`/proc/${pid}`);
  } catch {
    return false;
  }
}

/** Waits as ContainerInstance does now: the runtime's watch hint or the 5 ms poll. */
async function untilWatched(rt: ContainerRuntime, id: string): Promise<void> {
  let wake: (() => void) | undefined;
  let pending = false;
  const stop = rt.watchStart?.(id, () => (wake ? wake() : (pending = true)));
  try {
    while (!(await rt.isRunning(id))) {
      if (pending) {
        pending = false;
        continue;
      }
      await new Promise<void>((r) => {
        const t = setTimeout(() => wake?.(), 5);
        wake = () => (clearTimeout(t), (wake = undefined), r());
      });
    }
  } finally {
    stop?.();
  }
}

async function untilPolled(stateDir: string, id: string): Promise<void> {
  while (!(await startedBefore(stateDir, id))) await new Promise((r) => setTimeout(r, 5));
}

/** Keeps this process's loop busy (3 ms of every 4) until the returned function is called. */
function busyLoop(): () => void {
  const timer = setInterval(() => {
    const end = performance.now() + 3;
    while (performance.now() < end);
  }, 4);
  return () => clearInterval(timer);
}

/** One start: ms from spawn to `hi` and to the arm's verdict. */
async function once(
  rt: ContainerRuntime,
  stateDir: string,
  bundle: string,
  id: string,
  watched: boolean,
): Promise<{ output: number; seen: number }> {
  const t0 = performance.now();
  const p = await rt.start({ id, bundleDir: bundle, stdin: false });
  const output = new Promise<number>((r) => p.stdout.once('data', () => r(performance.now() - t0)));
  p.stderr.resume();
  await (watched ? untilWatched(rt, id) : untilPolled(stateDir, id));
  const seen = performance.now() - t0;
  const out = { output: await output, seen };
  await rt.kill(id, 'SIGKILL');
  await p.exited;
  await rt.remove(id);
  return out;
}

/** Per arm: ms from spawn to seen started, and seen less the `hi`'s arrival. */
export async function detectRows(
  world: RuncWorld,
  dir: string,
  rounds: number,
): Promise<{ seen: Samples; lag: Samples }> {
  const stateDir = join(dir, 'runc-detect');
  const rt = runcRuntime(stateDir);
  const bundle = join(dir, 'bundles', 'detect');
  mkdirSync(bundle, { recursive: true });
  const config = world.config(['sh', '-c', 'echo hi; exec sleep 3600'], world.cgroupPath('det'));
  writeFileSync(join(bundle, 'config.json'), JSON.stringify(config));
  const seen: Samples = new Map();
  const lag: Samples = new Map();
  const push = (m: Samples, k: string, v: number) => m.set(k, [...(m.get(k) ?? []), v]);
  let n = 0;
  for (let r = 0; r < rounds; r++)
    for (const busy of [false, true])
      for (const watched of r % 2 ? [true, false] : [false, true]) {
        const stop = busy ? busyLoop() : () => undefined;
        const s = await once(rt, stateDir, bundle, `det${process.pid}-${n++}`, watched);
        stop();
        const arm = `${watched ? 'watch + sync check' : 'poll (promise fs)'}, ${busy ? 'busy' : 'idle'} loop`;
        push(seen, arm, s.seen);
        push(lag, arm, s.seen - s.output);
      }
  return { seen, lag };
}

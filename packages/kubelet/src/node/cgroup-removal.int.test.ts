// removeCgroups on real cgroups (root, the pids v1 hierarchy): a cgroup whose last task is still
// exiting is removed once it exits, within the attempts; one that stays busy is left (for the
// leak check to name) after them.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { removeCgroups } from './cgroup-removal.ts';

const PARENT = `asb-rmtest-${process.pid}`;
const POD = join('/sys/fs/cgroup/pids', PARENT, 'podx');
const CONTAINER = join(POD, 'c-0');
let sleeper: ChildProcess | undefined;

/** A `sleep` in a container cgroup of a pod under PARENT. */
function busyCgroup(): ChildProcess {
  mkdirSync(CONTAINER, { recursive: true });
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  writeFileSync(join(CONTAINER, 'cgroup.procs'), String(child.pid));
  return child;
}

afterEach(async () => {
  sleeper?.kill('SIGKILL');
  await removeCgroups(PARENT, '', { attempts: 10, firstDelayMs: 20 });
  expect(existsSync(join('/sys/fs/cgroup/pids', PARENT))).toBe(false);
});

it('removes a pod cgroup whose task exits while it is being removed', async () => {
  sleeper = busyCgroup();
  setTimeout(() => sleeper?.kill('SIGKILL'), 30);
  await removeCgroups(PARENT, 'podx');
  expect(existsSync(POD)).toBe(false);
  expect(existsSync(join('/sys/fs/cgroup/pids', PARENT))).toBe(true); // `sub` narrowed it
});

it('leaves a cgroup that stays busy after its attempts', async () => {
  sleeper = busyCgroup();
  await removeCgroups(PARENT, '', { attempts: 3, firstDelayMs: 10 });
  expect(existsSync(CONTAINER)).toBe(true);
});

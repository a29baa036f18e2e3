import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runcStarted, runscStarted, watchRuncStart } from './runc-state.ts';

describe('runcStarted', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'runc-state-'));
    await mkdir(join(root, 'c1'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));
  const state = (pid: unknown) =>
    writeFile(join(root, 'c1', 'state.json'), JSON.stringify({ id: 'c1', init_process_pid: pid }));

  it('is false until state.json is saved', async () => {
    expect(await runcStarted(root, 'c1')).toBe(false);
    expect(await runcStarted(root, 'missing')).toBe(false);
  });

  it('is false while exec.fifo exists (created, not started)', async () => {
    await state(process.pid);
    await writeFile(join(root, 'c1', 'exec.fifo'), '');
    expect(await runcStarted(root, 'c1')).toBe(false);
  });

  it('is true once the fifo is gone and init lives', async () => {
    await state(process.pid);
    expect(await runcStarted(root, 'c1')).toBe(true);
  });

  it('is false when init is gone or the pid is not a number', async () => {
    await state(2 ** 22 + 1); // above pid_max's ceiling: never a live process
    expect(await runcStarted(root, 'c1')).toBe(false);
    await state('12');
    expect(await runcStarted(root, 'c1')).toBe(false);
    await writeFile(join(root, 'c1', 'state.json'), '{');
    expect(await runcStarted(root, 'c1')).toBe(false);
  });
});

describe('watchRuncStart', () => {
  let base: string;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'runc-watch-'));
  });
  afterEach(() => rm(base, { recursive: true, force: true }));
  /** Resolves once `count()` is above `n` (an inotify event arrives a loop turn later). */
  const until = async (count: () => number, n: number) => {
    for (let i = 0; i < 500 && count() <= n; i++) await new Promise((r) => setTimeout(r, 10));
    expect(count()).toBeGreaterThan(n);
  };

  it('hears the container directory made after the watch, then its fifo removed', async () => {
    const root = join(base, 'root'); // not there yet: runc would make it
    let changes = 0;
    const stop = watchRuncStart(root, 'c1', () => changes++);
    try {
      await mkdir(join(root, 'c1'));
      await until(() => changes, 0);
      await writeFile(join(root, 'c1', 'exec.fifo'), '');
      await new Promise((r) => setTimeout(r, 50));
      const before = changes;
      await unlink(join(root, 'c1', 'exec.fifo'));
      await until(() => changes, before);
    } finally {
      stop();
    }
  });

  it('watches a directory already there, and stops when told', async () => {
    await mkdir(join(base, 'c1'), { recursive: true });
    let changes = 0;
    const stop = watchRuncStart(base, 'c1', () => changes++);
    await writeFile(join(base, 'c1', 'state.json'), '{}');
    await until(() => changes, 0);
    stop();
    const seen = changes;
    await writeFile(join(base, 'c1', 'exec.fifo'), '');
    await unlink(join(base, 'c1', 'exec.fifo'));
    await new Promise((r) => setTimeout(r, 100));
    expect(changes).toBe(seen);
  });
});

describe('runscStarted', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'runsc-state-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));
  const state = (body: string) => writeFile(join(root, 'c1_sandbox:c1.state'), body);

  it('is true only for a running sandbox whose process lives', async () => {
    expect(await runscStarted(root, 'c1')).toBe(false);
    await state(JSON.stringify({ status: 'created', sandbox: { pid: process.pid } }));
    expect(await runscStarted(root, 'c1')).toBe(false);
    await state(JSON.stringify({ status: 'running', sandbox: { pid: process.pid } }));
    expect(await runscStarted(root, 'c1')).toBe(true);
    expect(await runscStarted(root, 'c2')).toBe(false);
  });

  it('is false for a dead sandbox, a missing pid or a half-written file', async () => {
    await state(JSON.stringify({ status: 'running', sandbox: { pid: 2 ** 22 + 1 } }));
    expect(await runscStarted(root, 'c1')).toBe(false);
    await state(JSON.stringify({ status: 'running' }));
    expect(await runscStarted(root, 'c1')).toBe(false);
    await state('{"status":"runn');
    expect(await runscStarted(root, 'c1')).toBe(false);
  });
});

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runcStarted, runscStarted } from './runc-state.ts';

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

// ContainerInstance on real runc with the busybox test image: a stop asked for before the
// process exists (a Pod deleted, or the node stopped, mid-start) stops it once it does (66414d5:
// the worker waited on it for ever), and a stop under way only gets shorter.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImageStore } from '../images/image-store.ts';
import { loadOciLayout } from '../images/oci-layout.ts';
import { removeCgroups } from './cgroup-removal.ts';
import { buildOciSpec } from '../runtime/oci-spec.ts';
import { runcRuntime } from '../runtime/runc-runtime.ts';
import { runcStarted, watchRuncStart } from '../runtime/runc-state.ts';
import { findLeaks } from '../testing/leak-check.ts';
import { buildTestImage } from '../testing/test-image.ts';
import { ContainerInstance } from './container-instance.ts';

// This run's own: afterAll removes the whole parent, which must not be another run's.
const CGROUP_PARENT = `asb-instancetest-${process.pid}`;
let dir: string;
let rootfs: string;
let imageConfig: Parameters<typeof buildOciSpec>[0]['image'];
let n = 0;
const started: ContainerInstance[] = [];

beforeAll(async () => {
  if (spawnSync('runc', ['--version']).status !== 0)
    throw new Error('runc is missing: apt-get install runc (CI must have it)');
  dir = await mkdtemp(join(tmpdir(), 'asb-instance-'));
  const store = new ImageStore(join(dir, 'images'));
  const record = await loadOciLayout(
    store,
    (await buildTestImage(join(dir, 'build'))).layoutDir,
    'localhost/test/instance:v1',
  );
  rootfs = await store.rootfs(record);
  imageConfig = record.config;
});

afterAll(async () => {
  // A test that failed midway leaves its container running: stop it so nothing leaks.
  await Promise.all(started.map(async (c) => (await c.stop(0), await c.cleanup())));
  await removeCgroups(CGROUP_PARENT, '');
  const leaks = dir
    ? findLeaks({
        dataDir: dir,
        runtimeStateDirs: [join(dir, 'runc')],
        netnsPrefix: `${CGROUP_PARENT}-`,
        cgroupParent: CGROUP_PARENT,
      })
    : [];
  await rm(dir, { recursive: true, force: true });
  expect(leaks).toEqual([]);
});

/**
 * An instance of `sh -c script` with its own (empty) network namespace; `vol` is bind-mounted
 * at /vol (as a Pod's volume directory is).
 */
function instance(script: string, o: { gated?: boolean; vol?: string } = {}): ContainerInstance {
  const name = `c${n++}`;
  const cgroupsPath = `/${CGROUP_PARENT}/${name}`;
  const container = { name, image: 'x', command: ['sh', '-c', script] };
  const pod = {
    metadata: { name, namespace: 'default', uid: name },
    spec: { containers: [container] },
  };
  const c = new ContainerInstance({
    runtime: runcRuntime(join(dir, 'runc')),
    dir: join(dir, 'instances', name),
    imageRootfs: rootfs,
    logPath: join(dir, 'logs', `${name}.log`),
    cgroupsPath,
    stdin: false,
    ...(o.gated ? { gated: true } : {}),
    config: (root, terminationLog) =>
      buildOciSpec({
        pod,
        container,
        image: imageConfig,
        rootfs: root,
        netnsPath: '',
        cgroupsPath,
        hostname: name,
        env: [],
        mounts: [
          { destination: '/dev/termination-log', source: terminationLog, readOnly: false },
          ...(o.vol ? [{ destination: '/vol', source: o.vol, readOnly: false }] : []),
        ],
      }),
  });
  started.push(c);
  return c;
}

describe('ContainerInstance on runc', () => {
  it('a stop asked for before start() spawned the process stops the process once it exists', async () => {
    const c = instance('trap "" TERM; exec sleep 600');
    const stopped = c.stop(0);
    await stopped; // remembered, nothing to signal yet
    await c.start();
    const exit = await c.wait();
    expect(exit.exitCode).toBe(137);
  });

  it("runc's start is heard from its state directory: a change hint finds the container started", async () => {
    const c = instance('exec sleep 600');
    // What start() waits on (watchStart's hint), asked as start() asks: not the 5 ms poll.
    let hinted = false;
    const stop = watchRuncStart(join(dir, 'runc'), c.id, () => {
      void runcStarted(join(dir, 'runc'), c.id).then((v) => (hinted ||= v));
    });
    try {
      await c.start();
      for (let i = 0; i < 500 && !hinted; i++) await new Promise((r) => setTimeout(r, 10));
    } finally {
      stop();
    }
    expect(hinted).toBe(true);
    expect(await c.spec.runtime.isRunning(c.id)).toBe(true);
    await c.stop(0);
    expect((await c.wait()).exitCode).toBe(137);
  });

  it('a stop asked for during start() (the bundle is being made) also ends the process', async () => {
    const c = instance('trap "" TERM; exec sleep 600');
    const starting = c.start();
    await c.stop(0);
    await starting;
    expect((await c.wait()).exitCode).toBe(137);
  });

  it('SIGTERM first; a shorter stop that comes later brings the SIGKILL forward', async () => {
    const trapped = instance('trap "echo got-term" TERM; while :; do sleep 0.1; done');
    await trapped.start();
    const first = trapped.stop(600_000);
    // The trap answers each TERM; the container keeps running until the KILL.
    const log = () =>
      existsSync(trapped.spec.logPath) ? readFileSync(trapped.spec.logPath, 'utf8') : '';
    for (let i = 0; i < 200 && !log().includes('got-term'); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(log()).toContain('got-term');
    await trapped.stop(0);
    await first;
    expect((await trapped.wait()).exitCode).toBe(137);
  });
});

describe('a container created ahead of its volumes (start gate)', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const volume = async () => {
    const vol = join(dir, 'volumes', `v${n}`);
    await mkdir(vol, { recursive: true });
    return vol;
  };

  it('runs its process only at start(), and sees the files written after create()', async () => {
    const vol = await volume();
    const c = instance('touch /vol/ran; cat /vol/data', { gated: true, vol });
    await c.create();
    // Long enough for runc to have made the container and be waiting in the hook.
    await sleep(500);
    expect(existsSync(join(vol, 'ran'))).toBe(false);
    expect(await c.spec.runtime.isRunning(c.id)).toBe(false);
    await writeFile(join(vol, 'data'), 'filled-after-create\n');
    await c.start();
    const exit = await c.wait();
    expect(exit.exitCode).toBe(0);
    expect(existsSync(join(vol, 'ran'))).toBe(true);
    expect(readFileSync(c.spec.logPath, 'utf8')).toContain('filled-after-create');
  });

  it('stopped before start(), its process never runs and runc removes the container', async () => {
    const vol = await volume();
    const c = instance('touch /vol/ran; sleep 600', { gated: true, vol });
    await c.create();
    await sleep(300);
    await c.stop(0);
    const exit = await c.wait();
    expect(exit.exitCode).not.toBe(0);
    expect(existsSync(join(vol, 'ran'))).toBe(false);
    expect(await c.spec.runtime.list()).not.toContain(c.id);
  });

  it('a stop asked for before create() spawned runc fails the create the same way', async () => {
    const vol = await volume();
    const c = instance('touch /vol/ran; sleep 600', { gated: true, vol });
    await c.stop(0);
    await c.create();
    expect((await c.wait()).exitCode).not.toBe(0);
    expect(existsSync(join(vol, 'ran'))).toBe(false);
  });
});

// The node agent's root pool with real runc Pods (root): the first Pod of an image mounts its own
// root, the pool then keeps roots for that image, the next Pod runs on one (its overlay's upper
// was made in the pool) without seeing what the first wrote, and the agent's stop leaves no
// mount (NodeWorld's leak check).
import { PODS, type KubeClient } from '@agent-sandbox/kube';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startNodeWorld, type NodeWorld } from '../testing/node-world.ts';
import { testPod, type PodObject } from '../testing/test-pod.ts';
import { mountsUnder } from './container-rootfs.ts';
import { rootPoolDir } from './root-pool.ts';

let world: NodeWorld | undefined;
let client: KubeClient;
let dataDir: string;

beforeAll(async () => {
  if (spawnSync('runc', ['--version']).status !== 0)
    throw new Error('runc is missing: apt-get install runc (CI must have it)');
  world = await startNodeWorld({ tag: 'rootpool' });
  client = world.client;
  dataDir = join(world.dir, 'node');
});

afterAll(async () => {
  const leaks = await world?.close();
  expect(leaks).toEqual([]);
});

async function eventually<T>(f: () => Promise<T | undefined>, what: string): Promise<T> {
  const end = Date.now() + 60_000;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function running(name: string): Promise<PodObject> {
  return eventually(async () => {
    const p = await client.get<PodObject>(PODS, 'default', name);
    return p.status?.containerStatuses?.[0]?.state?.running ? p : undefined;
  }, `${name} running`);
}

/** The overlay mounted at `mountPoint`: its upper directory, from mountinfo. */
function upperOf(mountPoint: string): string | undefined {
  const line = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .find((l) => l.split(' ')[4] === mountPoint);
  return /upperdir=([^,]+)/.exec(line ?? '')?.[1];
}

/** Pod `uid`'s first run of container c: where its root is mounted. */
const rootOf = (uid: string) => join(dataDir, 'pods', uid, 'containers', 'c-0', 'fs', 'merged');

it('runs the next Pod of an image on a root mounted ahead, fresh, and drains at stop', async () => {
  const pool = rootPoolDir(dataDir);
  const first = testPod('pool-a', { command: ['sh', '-c', 'echo a > /marker; sleep 60'] });
  await client.create(PODS, first);
  const a = await running('pool-a');
  // The first Pod of the image mounted its own root, in its own directory.
  const rootA = rootOf(a.metadata.uid ?? '');
  expect(upperOf(rootA)).toBe(
    join(dataDir, 'pods', a.metadata.uid ?? '', 'containers', 'c-0', 'fs', 'upper'),
  );
  // Once no start is under way, the pool mounts roots for the image that started.
  await eventually(
    async () => ((await mountsUnder(pool)).length === 2 ? true : undefined),
    'two roots mounted ahead',
  );
  const ahead = (await mountsUnder(pool)).map((m) => upperOf(m));
  await client.create(PODS, testPod('pool-b'));
  const b = await running('pool-b');
  const rootB = rootOf(b.metadata.uid ?? '');
  // B's root is one of those: its upper was made in the pool, and it was moved into B's directory.
  expect(ahead).toContain(upperOf(rootB));
  expect(upperOf(rootB)?.startsWith(`${pool}/`)).toBe(true);
  expect(existsSync(join(rootB, 'bin', 'busybox'))).toBe(true);
  expect(existsSync(join(rootA, 'marker'))).toBe(true);
  expect(existsSync(join(rootB, 'marker'))).toBe(false); // what A wrote stays A's
  for (const name of ['pool-a', 'pool-b']) await client.delete(PODS, 'default', name);
  await eventually(async () => {
    const left = await client.list(PODS, 'default');
    return left.items.length === 0 ? true : undefined;
  }, 'Pods gone');
  // B's root went with B (it is no longer the pool's), and nothing is left of either Pod.
  expect(await mountsUnder(join(dataDir, 'pods'))).toEqual([]);
  expect((await mountsUnder(pool)).length).toBeGreaterThan(0); // refilled; the stop drains it
});

// RootPool with real overlay mounts (root): takes move fresh roots out of the pool, refills
// follow idle(), a removed, replaced or evicted image's entries go, a pool left by a killed agent
// is cleaned by the next start, and drain leaves no mount. Lower directories are plain
// directories here: the pool keys on the image's unpacked root and never reads the store.
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountsUnder, removeMountedDir } from './container-rootfs.ts';
import { removePooledRoots, RootPool, rootPoolDir, type RootPoolOptions } from './root-pool.ts';

let dir: string;
let n = 0;
const pools: RootPool[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'asb-rootpool-'));
});

afterAll(async () => {
  await Promise.all(pools.map((p) => p.drain()));
  const left = dir ? await mountsUnder(dir) : [];
  if (dir) await removeMountedDir(dir);
  expect(left).toEqual([]);
});

/** A fresh image root with one file. */
async function lowerDir(name: string): Promise<string> {
  const lower = join(dir, 'images', `${name}-${n++}`);
  await mkdir(lower, { recursive: true });
  await writeFile(join(lower, 'image-file'), name);
  return lower;
}

/** A started pool in its own data dir (never busy: refills follow idle() at once). */
async function pool(o: Partial<RootPoolOptions> = {}) {
  const dataDir = join(dir, `node-${n++}`);
  const errors: unknown[] = [];
  const p = new RootPool({
    dir: rootPoolDir(dataDir),
    size: 2,
    maxImages: 3,
    idleMs: 600_000,
    idleRefillDelayMs: 0,
    refillDelayMs: 60_000,
    busy: () => false,
    onError: (err) => errors.push(err),
    ...o,
  });
  pools.push(p);
  await p.start();
  return { p, dataDir, errors, poolDir: rootPoolDir(dataDir) };
}

async function eventually(ok: () => boolean | Promise<boolean>): Promise<void> {
  const end = Date.now() + 20_000;
  while (!(await ok()) && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

/** Takes until one comes from the pool (the first take of an image only asks for entries). */
async function filled(p: RootPool, lower: string, count = 2): Promise<void> {
  p.idle();
  await eventually(() => p.readyCount(lower) === count);
  expect(p.readyCount(lower)).toBe(count);
}

describe('RootPool', () => {
  it('moves a fresh root to the container, once per entry, and refills after idle()', async () => {
    const { p, poolDir } = await pool();
    const lower = await lowerDir('a');
    const image = { name: 'test/a:v1', lower };
    expect(p.take(image, join(dir, 'c0', 'fs'))).toBeUndefined(); // first start: none ready yet
    await filled(p, lower);
    const [t1, t2] = [join(dir, 'c1', 'fs'), join(dir, 'c2', 'fs')];
    const r1 = p.take(image, t1);
    const r2 = p.take(image, t2);
    expect(r1).toEqual({ path: join(t1, 'merged'), mode: 'overlay' });
    expect(r2?.path).toBe(join(t2, 'merged'));
    expect(await mountsUnder(poolDir)).toEqual([]);
    expect(await mountsUnder(t1)).toEqual([join(t1, 'merged')]);
    // Each is the image with an upper of its own: what one container writes, no other sees.
    await writeFile(join(t1, 'merged', 'secret'), 'from c1');
    expect(readdirSync(join(t2, 'merged')).sort()).toEqual(['image-file']);
    expect(readdirSync(join(t1, 'upper'))).toEqual(['secret']);
    expect(p.take(image, join(dir, 'c3', 'fs'))).toBeUndefined(); // both taken
    await filled(p, lower);
    await removeMountedDir(join(dir, 'c1')); // the container's cleanup
    await removeMountedDir(join(dir, 'c2'));
    expect(await mountsUnder(join(dir, 'c1'))).toEqual([]);
    await p.drain();
    expect(await mountsUnder(poolDir)).toEqual([]);
    expect(p.take(image, join(dir, 'c4', 'fs'))).toBeUndefined(); // drained: serves nothing
  });

  it('while starts never stop, makes the one entry a take is owed after refillDelayMs', async () => {
    let busy = true;
    const { p } = await pool({ refillDelayMs: 50, busy: () => busy });
    const lower = await lowerDir('busy');
    p.take({ name: 'test/busy:v1', lower }, join(dir, `y${n++}`, 'fs'));
    p.idle(); // a start began meanwhile: the idle refill makes nothing...
    await eventually(() => p.readyCount(lower) === 1); // ...the owed one comes all the same
    expect(p.readyCount(lower)).toBe(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(p.readyCount(lower)).toBe(1); // no more while busy
    busy = false;
    p.idle();
    await eventually(() => p.readyCount(lower) === 2);
    expect(p.readyCount(lower)).toBe(2);
  });

  it('drops the entries of an image removed (`image rm`) or unpacked again at the same path', async () => {
    const { p, dataDir, poolDir, errors } = await pool();
    const lower = await lowerDir('b');
    const image = { name: 'test/b:v1', lower };
    p.take(image, join(dir, 'b0', 'fs'));
    await filled(p, lower);
    expect(await removePooledRoots(dataDir, lower)).toBe(2); // what `image rm` does first
    expect(await mountsUnder(poolDir)).toEqual([]);
    expect(p.take(image, join(dir, 'b1', 'fs'))).toBeUndefined(); // gone from outside: dropped
    await filled(p, lower, 2);
    // Removed and unpacked again at the same path: another directory, whose files old overlays miss.
    await rm(lower, { recursive: true });
    await mkdir(lower);
    await writeFile(join(lower, 'image-file'), 'b again');
    expect(p.take(image, join(dir, 'b2', 'fs'))).toBeUndefined();
    expect(p.readyCount(lower)).toBe(0);
    await eventually(async () => (await mountsUnder(poolDir)).length === 0);
    expect(await mountsUnder(poolDir)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('drops a replaced image’s entries and the least recently started image’s beyond maxImages', async () => {
    const { p, poolDir } = await pool({ maxImages: 2, size: 1 });
    const [v1, v2, other, third] = await Promise.all(['v1', 'v2', 'o', 't'].map(lowerDir));
    const take = (name: string, lower: string) =>
      p.take({ name, lower }, join(dir, `x${n++}`, 'fs'));
    take('test/other:v1', other as string);
    take('test/c:v1', v1 as string);
    await filled(p, v1 as string, 1);
    await filled(p, other as string, 1);
    take('test/c:v1', v2 as string); // the name now means another image (a newer pull)
    expect(p.readyCount(v1 as string)).toBe(0);
    expect(p.readyCount(other as string)).toBe(1); // two images still: other stays
    await filled(p, v2 as string, 1);
    take('test/third:v1', third as string); // three images, two kept: `other` is the oldest
    expect(p.readyCount(other as string)).toBe(0);
    expect(p.readyCount(v2 as string)).toBe(1);
    await filled(p, third as string, 1);
    await eventually(async () => (await mountsUnder(poolDir)).length === 2);
    expect((await mountsUnder(poolDir)).length).toBe(2);
  });

  it('removes an idle image’s entries, and forgets those removed from outside', async () => {
    let clock = 0;
    const { p, dataDir, poolDir } = await pool({ idleMs: 100, now: () => clock });
    const [idle, kept] = await Promise.all(['idle', 'kept'].map(lowerDir));
    p.take({ name: 'test/idle:v1', lower: idle as string }, join(dir, `i${n++}`, 'fs'));
    await filled(p, idle as string);
    clock = 60;
    p.take({ name: 'test/kept:v1', lower: kept as string }, join(dir, `i${n++}`, 'fs'));
    await filled(p, kept as string);
    clock = 120; // idle for 120 ms, kept for 60: the sweep (every idleMs) drops idle's
    await eventually(() => p.readyCount(idle as string) === 0);
    expect(p.readyCount(idle as string)).toBe(0);
    await eventually(async () => (await mountsUnder(poolDir)).length === 2);
    expect(await removePooledRoots(dataDir, kept as string)).toBe(2);
    await eventually(() => p.readyCount(kept as string) === 0);
    expect(p.readyCount(kept as string)).toBe(0);
  });

  it('removes the entries an agent killed without drain left, at the next start', async () => {
    const { p, dataDir, poolDir } = await pool();
    const lower = await lowerDir('d');
    p.take({ name: 'test/d:v1', lower }, join(dir, 'd0', 'fs'));
    await filled(p, lower);
    const next = new RootPool({
      dir: rootPoolDir(dataDir),
      size: 2,
      maxImages: 3,
      idleMs: 600_000,
      busy: () => false,
      onError: () => undefined,
    });
    await next.start(); // the first pool is never drained: as after a SIGKILL
    expect(await mountsUnder(poolDir)).toEqual([]);
    expect(readdirSync(poolDir)).toEqual([]);
    await next.drain();
  });

  it('turns itself off where the overlay cannot be mounted, leaving nothing', async () => {
    const { p, poolDir, errors } = await pool();
    const notADir = join(dir, `file-${n++}`);
    await writeFile(notADir, 'an overlay cannot sit on a file');
    p.take({ name: 'test/e:v1', lower: notADir }, join(dir, 'e0', 'fs'));
    p.idle();
    await eventually(() => errors.length > 0);
    expect(String(errors[0])).toMatch(/the root pool is off: an overlay of .* cannot be mounted/);
    const lower = await lowerDir('e');
    expect(p.take({ name: 'test/e2:v1', lower }, join(dir, 'e1', 'fs'))).toBeUndefined();
    p.idle();
    await new Promise((r) => setTimeout(r, 50));
    expect(p.readyCount(lower)).toBe(0);
    expect(existsSync(poolDir) ? await mountsUnder(poolDir) : []).toEqual([]);
  });
});

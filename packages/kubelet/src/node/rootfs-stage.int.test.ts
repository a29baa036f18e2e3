// RootfsStage with the real image store and overlay mounts (root): a staged root is taken when
// it matches, removed when it does not, nothing is staged for an image that is not present, and
// a root the pool mounted ahead is taken instead of a mount of its own.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImageService } from '../images/image-service.ts';
import { ImageStore } from '../images/image-store.ts';
import { loadOciLayout } from '../images/oci-layout.ts';
import { RegistryClient } from '../images/registry-client.ts';
import { buildTestImage } from '../testing/test-image.ts';
import { mountsUnder, removeMountedDir } from './container-rootfs.ts';
import { RootPool } from './root-pool.ts';
import { RootfsStage } from './rootfs-stage.ts';

const IMAGE = 'localhost/test/busybox:stage';
let dir: string;
let images: ImageService;
let lower: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'asb-stage-'));
  const store = new ImageStore(join(dir, 'images'));
  const record = await loadOciLayout(
    store,
    (await buildTestImage(join(dir, 'build'))).layoutDir,
    IMAGE,
  );
  images = new ImageService(store, new RegistryClient());
  lower = await store.rootfs(record);
});

afterAll(async () => {
  if (dir) await removeMountedDir(dir);
  expect(dir ? await mountsUnder(dir) : []).toEqual([]);
});

describe('RootfsStage', () => {
  it('hands over the mounted root when the instance directory and image root match', async () => {
    const inst = join(dir, 'pod-a', 'c-0');
    const stage = new RootfsStage(images, { name: 'c', image: IMAGE }, inst);
    const root = await stage.take(inst, lower);
    expect(root?.path).toBe(join(inst, 'fs', 'merged'));
    expect(existsSync(join(root?.path ?? '', 'bin', 'busybox'))).toBe(true);
    expect(await mountsUnder(join(inst, 'fs'))).toEqual([join(inst, 'fs', 'merged')]);
    await removeMountedDir(join(dir, 'pod-a'));
  });

  it('removes the staged root when the image root changed or the run is another', async () => {
    for (const [i, [takeDir, takeLower]] of [
      [join(dir, 'pod-b', 'c-1'), lower],
      [join(dir, 'pod-b', 'c-0'), join(dir, 'another-image-root')],
    ].entries()) {
      const inst = join(dir, 'pod-b', 'c-0');
      const stage = new RootfsStage(images, { name: 'c', image: IMAGE }, inst);
      expect(await stage.take(takeDir as string, takeLower as string), `case ${i}`).toBeUndefined();
      expect(await mountsUnder(join(dir, 'pod-b'))).toEqual([]);
      expect(existsSync(join(inst, 'fs'))).toBe(false);
    }
  });

  it('stages nothing for an image that is not present (staging never pulls)', async () => {
    const inst = join(dir, 'pod-c', 'c-0');
    const stage = new RootfsStage(images, { name: 'c', image: 'localhost/test/absent:v1' }, inst);
    await stage.settled();
    expect(await stage.take(inst, lower)).toBeUndefined();
    expect(existsSync(inst)).toBe(false);
    await rm(join(dir, 'pod-c'), { recursive: true, force: true });
  });

  it('takes a root the pool mounted ahead for the image, moved to the instance directory', async () => {
    const pool = new RootPool({
      dir: join(dir, 'pool'),
      size: 1,
      maxImages: 1,
      idleMs: 600_000,
      idleRefillDelayMs: 0,
      busy: () => false,
      onError: () => undefined,
    });
    await pool.start();
    const record = await images.store.get(IMAGE);
    pool.take({ name: record?.name ?? '', lower }, join(dir, 'pod-d', 'c-0', 'fs')); // asks for one
    pool.idle();
    for (let i = 0; i < 400 && pool.readyCount(lower) === 0; i++)
      await new Promise((r) => setTimeout(r, 25));
    const ahead = await mountsUnder(join(dir, 'pool'));
    expect(ahead).toHaveLength(1);
    const inst = join(dir, 'pod-e', 'c-0');
    const stage = new RootfsStage(images, { name: 'c', image: IMAGE }, inst, pool);
    const root = await stage.take(inst, lower);
    expect(root?.path).toBe(join(inst, 'fs', 'merged'));
    const upper = /upperdir=([^,]+)/.exec(
      readFileSync('/proc/self/mountinfo', 'utf8')
        .split('\n')
        .find((l) => l.split(' ')[4] === root?.path) ?? '',
    )?.[1];
    expect(upper?.startsWith(join(dir, 'pool'))).toBe(true); // the pool's, not a mount of its own
    expect(existsSync(join(root?.path ?? '', 'bin', 'busybox'))).toBe(true);
    await pool.drain();
    await removeMountedDir(join(dir, 'pod-d'));
    await removeMountedDir(join(dir, 'pod-e'));
  });
});

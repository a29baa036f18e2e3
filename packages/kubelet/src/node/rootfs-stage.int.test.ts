// RootfsStage with the real image store and overlay mounts (root): a staged root is taken when
// it matches, removed when it does not, and nothing is staged for an image that is not present.
import { existsSync } from 'node:fs';
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
});

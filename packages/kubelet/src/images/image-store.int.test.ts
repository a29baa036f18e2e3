import { existsSync, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestImage, hasBusybox, type TestImage } from '../testing/test-image.ts';
import { ImageStore } from './image-store.ts';
import { loadDockerArchive, loadOciLayout } from './oci-layout.ts';

let dir: string;
let image: TestImage;

beforeAll(async () => {
  if (!hasBusybox()) throw new Error('/bin/busybox is missing: apt-get install busybox-static');
  dir = await mkdtemp(join(tmpdir(), 'asb-images-'));
  image = await buildTestImage(dir);
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

function expectBusyboxRootfs(rootfs: string): void {
  expect(lstatSync(join(rootfs, 'bin/sh')).isSymbolicLink()).toBe(true);
  expect(lstatSync(join(rootfs, 'bin/busybox')).mode & 0o777).toBe(0o755);
  expect(lstatSync(join(rootfs, 'tmp')).mode & 0o7777).toBe(0o1777);
  // The top layer's whiteout and opaque directory hide lower content.
  expect(existsSync(join(rootfs, 'etc/removed-later'))).toBe(false);
  expect(readdirSync(join(rootfs, 'opaque'))).toEqual(['upper']);
  expect(readFileSync(join(rootfs, 'etc/image-release'), 'utf8')).toContain('test image');
}

describe('ImageStore', () => {
  it('loads an OCI layout, unpacks one shared rootfs with whiteouts, lists and removes it', async () => {
    const store = new ImageStore(join(dir, 'store-layout'));
    const rec = await loadOciLayout(store, image.layoutDir, 'localhost/test/busybox:latest');
    expect(rec.digest).toBe(image.manifestDigest);
    expect(rec.imageId).toBe(`localhost/test/busybox@${image.manifestDigest}`);
    expect(rec.config.config?.Cmd).toEqual(['sh']);
    const rootfs = await store.rootfs(rec);
    expectBusyboxRootfs(rootfs);
    expect(await store.rootfs(rec)).toBe(rootfs);
    expect((await store.list()).map((i) => i.name)).toEqual(['localhost/test/busybox:latest']);
    expect(await store.get(`localhost/test/busybox@${image.manifestDigest}`)).toMatchObject({
      name: rec.name,
    });
    await store.remove('localhost/test/busybox');
    expect(await store.list()).toEqual([]);
    expect(await store.blobs.list()).toEqual([]);
    expect(existsSync(rootfs)).toBe(false);
    await expect(store.remove('localhost/test/busybox')).rejects.toThrow('is not on this node');
  });

  it('sees what another store on the same root (another process: `image load`, `image rm`) wrote', async () => {
    const root = join(dir, 'store-shared');
    const agent = new ImageStore(root);
    const cli = new ImageStore(root);
    expect(await agent.list()).toEqual([]);
    await loadOciLayout(cli, image.layoutDir, 'localhost/test/a:v1');
    expect((await agent.list()).map((i) => i.name)).toEqual(['localhost/test/a:v1']);
    await loadOciLayout(cli, image.layoutDir, 'localhost/test/b:v1');
    expect((await agent.get('localhost/test/b:v1'))?.name).toBe('localhost/test/b:v1');
    await cli.remove('localhost/test/a:v1');
    expect((await agent.list()).map((i) => i.name)).toEqual(['localhost/test/b:v1']);
    await rm(join(root, 'images.json'));
    expect(await agent.list()).toEqual([]);
  });

  it('loads a docker-archive tarball by its RepoTags', async () => {
    const store = new ImageStore(join(dir, 'store-archive'));
    const rec = await loadDockerArchive(store, image.dockerArchive);
    expect(rec.name).toBe('docker.io/test/busybox:v1');
    expectBusyboxRootfs(await store.rootfs(rec));
  });

  it('refuses a layout whose blob does not match its digest, naming the blob', async () => {
    const store = new ImageStore(join(dir, 'store-bad'));
    const bad = await buildTestImage(join(dir, 'bad'));
    const layer = bad.layers[1]!;
    await writeFile(join(bad.layoutDir, 'blobs/sha256', layer.digest.slice(7)), 'tampered');
    await expect(loadOciLayout(store, bad.layoutDir, 'x:latest')).rejects.toThrow(
      expect.objectContaining({
        code: 'DigestMismatch',
        message: expect.stringContaining(layer.digest),
      }),
    );
  });
});

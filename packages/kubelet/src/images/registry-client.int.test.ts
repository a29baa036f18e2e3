import { lstatSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestImage, type TestImage } from '../testing/test-image.ts';
import { freePort, startTestRegistry, type TestRegistry } from '../testing/test-registry.ts';
import { ImageStore } from './image-store.ts';
import { ImageService } from './image-service.ts';
import { RegistryClient } from './registry-client.ts';

let dir: string;
let image: TestImage;
let open: TestRegistry;
let tokened: TestRegistry;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'asb-pull-'));
  image = await buildTestImage(dir);
  [open, tokened] = await Promise.all([startTestRegistry(), startTestRegistry({ auth: 'token' })]);
  await open.push('test/busybox', 'v1', image);
  await tokened.push('test/busybox', 'v1', image);
});
afterAll(async () => {
  await Promise.all([open?.close(), tokened?.close()]);
  await rm(dir, { recursive: true, force: true });
});

describe('RegistryClient against a real docker-registry on loopback', () => {
  it('pulls anonymously by tag, verifies digests and records the imageID', async () => {
    const store = new ImageStore(join(dir, 's1'));
    const events: boolean[] = [];
    const rec = await new RegistryClient().pull(`${open.host}/test/busybox:v1`, store, (e) =>
      events.push(e.cached),
    );
    expect(rec.imageId).toBe(`${open.host}/test/busybox@${image.manifestDigest}`);
    expect(events).toEqual([false, false]);
    expect(lstatSync(join(await store.rootfs(rec), 'bin/busybox')).isFile()).toBe(true);
    // By digest, layers already present are not fetched again.
    const again: boolean[] = [];
    await new RegistryClient().pull(
      `${open.host}/test/busybox@${image.manifestDigest}`,
      store,
      (e) => again.push(e.cached),
    );
    expect(again).toEqual([true, true]);
  });

  it('pulls through the bearer-token flow', async () => {
    const store = new ImageStore(join(dir, 's2'));
    const rec = await new RegistryClient().pull(`${tokened.host}/test/busybox:v1`, store);
    expect(rec.digest).toBe(image.manifestDigest);
    expect(
      tokened.tokenRequests.some(
        (r) => r.scope === 'repository:test/busybox:pull' && r.service === 'asb-test-registry',
      ),
    ).toBe(true);
  });

  it('fails with ErrImagePull-worthy messages for unknown tags and unreachable registries', async () => {
    const store = new ImageStore(join(dir, 's3'));
    await expect(
      new RegistryClient().pull(`${open.host}/test/busybox:nope`, store),
    ).rejects.toThrow(
      expect.objectContaining({
        code: 'ImagePull',
        message: expect.stringContaining('MANIFEST_UNKNOWN'),
      }),
    );
    await expect(
      new RegistryClient().pull(`127.0.0.1:${await freePort()}/x:y`, store),
    ).rejects.toThrow(
      expect.objectContaining({
        code: 'ImagePull',
        message: expect.stringContaining('ECONNREFUSED'),
      }),
    );
    const wrong = `sha256:${'0'.repeat(64)}`;
    await expect(
      new RegistryClient().pull(`${open.host}/test/busybox@${wrong}`, store),
    ).rejects.toThrow(/failed to pull image/);
  });

  it('honours imagePullPolicy through ImageService', async () => {
    const images = new ImageService(new ImageStore(join(dir, 's4')), new RegistryClient());
    const ref = `${open.host}/test/busybox:v1`;
    await expect(images.ensure(ref, 'Never')).rejects.toThrow(
      expect.objectContaining({
        code: 'ImageNotPresent',
        message: `Container image "${ref}" is not present with pull policy of Never`,
      }),
    );
    expect((await images.ensure(ref, undefined)).pulled).toBe(true);
    expect((await images.ensure(ref, 'IfNotPresent')).pulled).toBe(false);
    expect((await images.ensure(ref, 'Never')).pulled).toBe(false);
    expect((await images.ensure(ref, 'Always')).pulled).toBe(true);
    await expect(images.ensure('Not/Valid', undefined)).rejects.toThrow(
      expect.objectContaining({ code: 'InvalidImageName' }),
    );
  });
});

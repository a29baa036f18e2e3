// A container's writable root mounted ahead of its start, while the pod's sandbox (network,
// volumes, files) is still being set up: the first run of a Pod's first containers need not wait
// for its `mount` after the sandbox (bench/node: 10–25 ms of a cold start). Only an image already
// present is staged, so staging never pulls; a failure leaves nothing staged and the container's
// own start prepares its root (and reports what fails) as before.
import type { Container } from '@agent-sandbox/kube-types';
import { join } from 'node:path';
import type { ImageService } from '../images/image-service.ts';
import type { ImageRecord } from '../images/image-store.ts';
import { prepareRootfs, removeMountedDir, type ContainerRootfs } from './container-rootfs.ts';
import type { RootPool } from './root-pool.ts';

interface Staged {
  lower: string;
  rootfs: ContainerRootfs;
}

export class RootfsStage {
  readonly #dir: string;
  readonly #staged: Promise<Staged | undefined>;
  /**
   * The image record when it is present, looked up beside the sandbox set-up: the first run's
   * pull step (image-pull.ts) takes it instead of reading the store again after the set-up.
   */
  readonly image: Promise<ImageRecord | undefined>;

  /**
   * Starts staging `c`'s root in instance directory `dir` (`dir/fs`, as ContainerInstance uses):
   * one from `pool` when it has one ready for the image (no mount then), else mounted here.
   */
  constructor(images: ImageService, c: Container, dir: string, pool?: RootPool) {
    this.#dir = dir;
    const found = images.ensure(c.image ?? '', 'Never').then((r) => r.record);
    this.image = found.catch(() => undefined);
    this.#staged = (async () => {
      const record = await found;
      const lower = await images.store.rootfs(record);
      const target = join(dir, 'fs');
      const pooled = pool?.take({ name: record.name, lower }, target);
      return { lower, rootfs: pooled ?? (await prepareRootfs(lower, target)) };
    })().catch(() => undefined);
  }

  /**
   * The staged root when it was made for instance `dir` over `lower`; otherwise it is removed
   * (the image changed under a pull policy of Always) and the instance prepares its own.
   */
  async take(dir: string, lower: string): Promise<ContainerRootfs | undefined> {
    const staged = await this.#staged;
    if (!staged) return undefined;
    if (dir === this.#dir && staged.lower === lower) return staged.rootfs;
    await removeMountedDir(join(this.#dir, 'fs'));
    return undefined;
  }

  /** Resolves once staging ended either way, so the pod's directory can be removed after it. */
  async settled(): Promise<void> {
    await this.#staged;
  }
}

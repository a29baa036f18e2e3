// What the pod worker asks of images: "make `image` present under this pull policy" (§5.7).
// Failures keep their ImageError code; the worker maps them to waiting reasons
// (InvalidImageName, ErrImageNeverPull, ErrImagePull then ImagePullBackOff).
import { ImageError } from '../errors.ts';
import type { ImageRecord, ImageStore, ImportProgress } from './image-store.ts';
import {
  defaultPullPolicy,
  formatReference,
  parseReference,
  type PullPolicy,
} from './reference.ts';
import type { RegistryClient } from './registry-client.ts';

export class ImageService {
  readonly store: ImageStore;
  readonly #registry: RegistryClient;
  readonly #inflight = new Map<string, Promise<ImageRecord>>();

  constructor(store: ImageStore, registry: RegistryClient) {
    this.store = store;
    this.#registry = registry;
  }

  /** The image for a container, pulled if the policy says so; `pulled` tells whether it was. */
  async ensure(
    image: string,
    policy: PullPolicy | undefined,
    progress?: ImportProgress,
  ): Promise<{ record: ImageRecord; pulled: boolean }> {
    const ref = formatReference(parseReference(image)); // throws InvalidImageName
    const effective = policy ?? defaultPullPolicy(image);
    const present = await this.store.get(ref);
    if (present && effective !== 'Always') return { record: present, pulled: false };
    if (effective === 'Never') {
      throw new ImageError(
        'ImageNotPresent',
        `Container image "${image}" is not present with pull policy of Never`,
      );
    }
    let p = this.#inflight.get(ref);
    if (!p) {
      p = this.#registry.pull(ref, this.store, progress).finally(() => this.#inflight.delete(ref));
      this.#inflight.set(ref, p);
    }
    return { record: await p, pulled: true };
  }
}

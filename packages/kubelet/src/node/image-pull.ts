// A container's image, pulled under its imagePullPolicy with the kubelet's waiting reasons
// (kubelet-and-oci §1.6): ErrImagePull, then ImagePullBackOff while the back-off runs;
// InvalidImageName and ErrImageNeverPull as the image service reports them.
import type { Container } from '@agent-sandbox/kube-types';
import { errorMessage, isKubeletError } from '../errors.ts';
import type { ImageRecord } from '../images/image-store.ts';
import type { ImageService } from '../images/image-service.ts';
import { defaultPullPolicy } from '../images/reference.ts';
import { restartBackoffMs, type ContainerRecord } from '../lifecycle/container-record.ts';

/** The worker's side of a pull: its termination flag, its interruptible sleep, its status write. */
export interface PullHooks {
  terminating(): boolean;
  /** Sleeps; false when termination started meanwhile. */
  sleep(ms: number): Promise<boolean>;
  publish(): Promise<void>;
  backoffBaseMs: number;
  /**
   * The image as already found present (looked up beside the sandbox set-up, rootfs-stage.ts):
   * taken as is unless the policy is Always, as the store would answer the same.
   */
  present?: Promise<ImageRecord | undefined>;
}

/** The image record, or undefined when the pod is terminating or the name is invalid. */
export async function pullImage(
  images: ImageService,
  c: Container,
  record: ContainerRecord,
  hooks: PullHooks,
): Promise<ImageRecord | undefined> {
  const present = await presentUnlessAlways(c, hooks.present);
  if (present) {
    record.imageID = present.imageId;
    record.image = present.name;
    return present;
  }
  let attempts = 0;
  while (!hooks.terminating()) {
    try {
      const { record: image } = await images.ensure(
        c.image ?? '',
        c.imagePullPolicy as 'Always' | 'IfNotPresent' | 'Never' | undefined,
      );
      record.imageID = image.imageId;
      record.image = image.name;
      return image;
    } catch (e) {
      const reason = pullFailureReason(e);
      record.state = { kind: 'waiting', reason, message: errorMessage(e) };
      await hooks.publish();
      if (reason === 'InvalidImageName') return undefined;
      const delay = restartBackoffMs(++attempts, hooks.backoffBaseMs);
      if (reason === 'ErrImagePull') {
        // The first failure shows ErrImagePull; the wait that follows shows ImagePullBackOff.
        if (!(await hooks.sleep(Math.min(delay, 1000)))) return undefined;
        record.state = {
          kind: 'waiting',
          reason: 'ImagePullBackOff',
          message: `Back-off pulling image "${c.image}"`,
        };
        await hooks.publish();
      }
      if (!(await hooks.sleep(delay))) return undefined;
    }
  }
  return undefined;
}

/** The image found present (`present`), unless the policy is Always. */
export async function presentUnlessAlways(
  c: Container,
  present: Promise<ImageRecord | undefined> | undefined,
): Promise<ImageRecord | undefined> {
  if (!present) return undefined;
  const policy = c.imagePullPolicy ?? safeDefaultPolicy(c.image ?? '');
  return policy === 'Always' ? undefined : present;
}

/** The default policy; Always for a name that does not parse (the pull then reports it). */
function safeDefaultPolicy(image: string): string {
  try {
    return defaultPullPolicy(image);
  } catch {
    return 'Always';
  }
}

function pullFailureReason(e: unknown): 'InvalidImageName' | 'ErrImageNeverPull' | 'ErrImagePull' {
  const code = isKubeletError(e) ? e.code : 'ImagePull';
  if (code === 'InvalidImageName') return 'InvalidImageName';
  return code === 'ImageNotPresent' ? 'ErrImageNeverPull' : 'ErrImagePull';
}

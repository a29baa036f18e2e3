// The Pod step of a pass as data (spec §11.5 steps 1–7): given what the reconciler read, which
// write to make. The I/O reconciler executes the plan; these rules are where bug #265 is kept out
// (a Pod the Sandbox does not own is never patched or deleted).
import { Annotations, nameHash } from '@agent-sandbox/api';
import type { v1beta1 } from '@agent-sandbox/api';
import type { Pod } from '@agent-sandbox/kube-types';
import { MultiplePodsError, type ControllersError } from '../errors.ts';
import { desiredPod, podMetadataPatch, type PodMetadataPatch } from './desired-pod.ts';
import {
  checkOwnership,
  isAdoptable,
  isOwnedBySandbox,
  notAdoptableError,
  ownedByOtherError,
  sandboxOwnedPods,
} from './ownership.ts';

type Sandbox = v1beta1.Sandbox;

/** What to do to the Pod this pass. */
export type PodWrite =
  | { readonly action: 'None' }
  | { readonly action: 'Create'; readonly pod: Pod }
  /** Metadata-only merge patch of an existing Pod (adoption sets the controller ref too). */
  | {
      readonly action: 'Patch';
      readonly name: string;
      readonly patch: PodMetadataPatch;
      readonly adopt: boolean;
    }
  /** Suspended mode: delete the owned Pod (graceful). */
  | { readonly action: 'Delete'; readonly name: string };

/** The net change to the Sandbox's `agents.x-k8s.io/pod-name` annotation (one merge patch). */
export type PodNameAnnotationChange =
  { readonly action: 'Remove' } | { readonly action: 'Set'; readonly value: string };

export interface PodPlan {
  readonly write: PodWrite;
  readonly podNameAnnotation?: PodNameAnnotationChange;
  /** The Pod for status and conditions (the desired Pod for a create, until the server answers). */
  readonly pod?: Pod;
  readonly podOwned: boolean;
  readonly ownedPodCount: number;
  /** MultiplePods (surfaced, not returned), a refusal to use a Pod, or a read failure. */
  readonly error?: ControllersError | Error;
}

export interface PodObservation {
  /** Pods in the namespace whose tracking label equals hash(sandbox name) (the cache index). */
  indexedPods: readonly Pod[];
  /** The Pod under the resolved pod name; undefined when NotFound. */
  fetchedPod?: Pod | undefined;
}

function hasPodNameAnnotation(sandbox: Sandbox): boolean {
  return Object.hasOwn(sandbox.metadata.annotations ?? {}, Annotations.PodName);
}

/** The plan for one pass of the Pod step. */
export function planPod(sandbox: Sandbox, observation: PodObservation): PodPlan {
  const owned = sandboxOwnedPods(observation.indexedPods, sandbox);
  let pod = observation.fetchedPod;
  const annotated = hasPodNameAnnotation(sandbox);
  // Step 2: the annotation points at a Pod that is gone → remove it to recover.
  let clearAnnotation = pod === undefined && annotated;

  // Step 3: a tracked Pod may be missing from the index; count it once.
  if (pod !== undefined && isOwnedBySandbox(pod, sandbox)) {
    const name = pod.metadata?.name;
    if (!owned.some((p) => p.metadata?.name === name)) owned.push(pod);
  }
  if (owned.length > 1) {
    // Fail closed: no create, no delete (TestReconcilePodFailsClosedForMultipleOwnedPods).
    return {
      write: { action: 'None' },
      podOwned: false,
      ownedPodCount: owned.length,
      error: new MultiplePodsError(owned.length),
      ...annotationChange(clearAnnotation, undefined, sandbox),
    };
  }
  // Step 4: owner UID beats a missing or stale annotation.
  const only = owned[0];
  if (only !== undefined && (pod === undefined || pod.metadata?.name !== only.metadata?.name)) {
    if (annotated) clearAnnotation = true;
    pod = only;
  }
  const ownedPodCount = owned.length;

  if (sandbox.spec.operatingMode === 'Suspended') {
    if (pod !== undefined && isOwnedBySandbox(pod, sandbox)) {
      // Step 5: delete unless already terminating; return it so conditions show "terminating".
      const write: PodWrite =
        pod.metadata?.deletionTimestamp === undefined
          ? { action: 'Delete', name: pod.metadata?.name ?? '' }
          : { action: 'None' };
      return {
        write,
        pod,
        podOwned: true,
        ownedPodCount,
        ...annotationChange(clearAnnotation, undefined, sandbox),
      };
    }
    // Unowned or foreign: leave it alone; drop the annotation.
    return {
      write: { action: 'None' },
      ...(pod !== undefined ? { pod } : {}),
      podOwned: false,
      ownedPodCount,
      ...annotationChange(annotated, undefined, sandbox),
    };
  }

  if (pod !== undefined) {
    const { clearAnnotation: refused, ...existing } = planExistingPod(sandbox, pod);
    return {
      ...existing,
      ownedPodCount,
      ...annotationChange(
        clearAnnotation || refused,
        existing.error === undefined ? pod.metadata?.name : undefined,
        sandbox,
      ),
    };
  }
  // Step 7: no Pod → create one named after the Sandbox.
  const created = desiredPod(sandbox);
  return {
    write: { action: 'Create', pod: created },
    pod: created,
    podOwned: true,
    ownedPodCount,
    ...annotationChange(clearAnnotation, created.metadata?.name, sandbox),
  };
}

/**
 * "Reconcile existing" (§11.5 step 6), also the path after a create hit AlreadyExists: refuse a
 * foreign Pod (and drop the annotation), adopt an authorised unowned one, else patch metadata.
 * A terminating owned Pod takes the same path; no replacement is made until it is gone.
 */
export function planExistingPod(
  sandbox: Sandbox,
  pod: Pod,
): Omit<PodPlan, 'ownedPodCount' | 'podNameAnnotation'> & { clearAnnotation: boolean } {
  const name = pod.metadata?.name ?? '';
  const ownership = checkOwnership(pod, sandbox);
  if (ownership.state === 'OwnedByOther') {
    return {
      write: { action: 'None' },
      podOwned: false,
      clearAnnotation: true,
      error: ownedByOtherError('pod', name, ownership.controllerRef, sandbox),
    };
  }
  const adopt = ownership.state === 'Unowned';
  if (adopt && !isAdoptable(pod, nameHash(sandbox.metadata.name ?? ''))) {
    return {
      write: { action: 'None' },
      podOwned: false,
      clearAnnotation: false,
      error: notAdoptableError('pod', name),
    };
  }
  const patch = podMetadataPatch(pod, sandbox, { adopt });
  const write: PodWrite =
    patch === undefined ? { action: 'None' } : { action: 'Patch', name, patch, adopt };
  return { write, pod, podOwned: true, clearAnnotation: false };
}

/**
 * The net annotation change: removal requested earlier in the pass, then "ensure = pod name when
 * absent" (never overwriting a different existing value).
 */
function annotationChange(
  clear: boolean,
  ensure: string | undefined,
  sandbox: Sandbox,
): { podNameAnnotation?: PodNameAnnotationChange } {
  const present = hasPodNameAnnotation(sandbox) && !clear;
  if (ensure !== undefined && ensure !== '' && !present) {
    return { podNameAnnotation: { action: 'Set', value: ensure } };
  }
  if (clear && hasPodNameAnnotation(sandbox)) return { podNameAnnotation: { action: 'Remove' } };
  return {};
}

/** The merge patch of the Sandbox for a pod-name annotation change. */
export function podNameAnnotationPatch(change: PodNameAnnotationChange): {
  metadata: { annotations: Record<string, string | null> };
} {
  return {
    metadata: {
      annotations: { [Annotations.PodName]: change.action === 'Set' ? change.value : null },
    },
  };
}

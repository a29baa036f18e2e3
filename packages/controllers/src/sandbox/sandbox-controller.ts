// The runtime Controller of the Sandbox kind (spec §11.1): `for` Sandboxes, `owns` the Pods,
// Services and PersistentVolumeClaims it creates, with `--sandbox-concurrent-workers` workers.
// A Pod event also wakes the Sandbox whose pod-name annotation names the Pod: an adoptable warm
// Pod is not owned yet, so no owner reference leads from it to the Sandbox that is to adopt it.
import { Annotations } from '@agent-sandbox/api';
import {
  InvalidArgumentError,
  PERSISTENT_VOLUME_CLAIMS,
  PODS,
  SERVICES,
  type Clock,
  type KubeClient,
} from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { Controller, type InformerSource, type Request } from '@agent-sandbox/runtime';
import type { AdoptionsInFlight } from '../warm-queue/adoptions-in-flight.ts';
import { SANDBOXES, SandboxReconciler } from './sandbox-reconciler.ts';

/** Sandboxes by `<namespace>/<agents.x-k8s.io/pod-name annotation>`. */
export const SANDBOX_POD_NAME_INDEX = 'sandbox-pod-name';

/** The Sandboxes whose pod-name annotation names `pod` (index added on first use). */
export function sandboxesNamingPod(informers: InformerSource, pod: KubeObject): Request[] {
  const ns = pod.metadata.namespace ?? '';
  return informers
    .getInformer(SANDBOXES)
    .cache.byIndex(SANDBOX_POD_NAME_INDEX, `${ns}/${pod.metadata.name ?? ''}`)
    .map((s) => ({ namespace: ns, name: s.metadata.name ?? '' }));
}

function addPodNameIndex(informers: InformerSource): void {
  try {
    informers.getInformer(SANDBOXES).addIndex(SANDBOX_POD_NAME_INDEX, (s) => {
      const name = s.metadata.annotations?.[Annotations.PodName];
      return name ? [`${s.metadata.namespace ?? ''}/${name}`] : [];
    });
  } catch (err: unknown) {
    if (!(err instanceof InvalidArgumentError)) throw err; // another Sandbox controller added it
  }
}

/** The controller name (metrics label, logger field; also the events recorder, §11.1). */
// Upstream's controller name, the `controller` label of controller-runtime metrics (spec §19.1).
export const SANDBOX_CONTROLLER_NAME = 'sandbox';
/** Upstream's `--sandbox-concurrent-workers` default. */
export const DEFAULT_SANDBOX_CONCURRENCY = 100;

export interface SandboxControllerOptions {
  client: KubeClient;
  /**
   * Where the reconciler reads from: the Manager the controller is added to (its shared
   * informers; the Pod name-hash index is added to the Pod informer here).
   */
  informers: InformerSource;
  /** Parallel reconciles (different Sandboxes only). @default 100 */
  concurrency?: number;
  /** The DNS domain of `status.serviceFQDN`. @default 'cluster.local' */
  clusterDomain?: string;
  /** `--sandbox-write-behind-window` in ms (capped at 1s, §11.9). @default 0 (synchronous) */
  writeBehindWindowMs?: number;
  /**
   * Warm adoptions in flight (shared with the claim controller): a pass on an adopted Sandbox
   * waits for its claim's Ready write, for a bounded time (ADR 0039).
   */
  adoptionsInFlight?: AdoptionsInFlight;
  clock?: Clock;
}

/**
 * The Sandbox controller, to add to a Manager:
 * `manager.add(sandboxController({ client, informers: manager }))`.
 */
export function sandboxController(options: SandboxControllerOptions): Controller {
  const reconciler = new SandboxReconciler({
    client: options.client,
    informers: options.informers,
    ...(options.clusterDomain !== undefined ? { clusterDomain: options.clusterDomain } : {}),
    ...(options.writeBehindWindowMs !== undefined
      ? { writeBehindWindowMs: options.writeBehindWindowMs }
      : {}),
    ...(options.adoptionsInFlight !== undefined
      ? { adoptionsInFlight: options.adoptionsInFlight }
      : {}),
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
  });
  addPodNameIndex(options.informers);
  return new Controller({
    name: SANDBOX_CONTROLLER_NAME,
    for: SANDBOXES,
    owns: [PODS, SERVICES, PERSISTENT_VOLUME_CLAIMS],
    watches: [{ resource: PODS, map: (pod) => sandboxesNamingPod(options.informers, pod) }],
    reconciler,
    concurrency: options.concurrency ?? DEFAULT_SANDBOX_CONCURRENCY,
  });
}

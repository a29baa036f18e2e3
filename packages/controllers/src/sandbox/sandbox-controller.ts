// The runtime Controller of the Sandbox kind (spec §11.1): `for` Sandboxes, `owns` the Pods,
// Services and PersistentVolumeClaims it creates, with `--sandbox-concurrent-workers` workers.
import {
  PERSISTENT_VOLUME_CLAIMS,
  PODS,
  SERVICES,
  type Clock,
  type KubeClient,
} from '@agent-sandbox/kube';
import { Controller, type InformerSource } from '@agent-sandbox/runtime';
import { SANDBOXES, SandboxReconciler } from './sandbox-reconciler.ts';

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
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
  });
  return new Controller({
    name: SANDBOX_CONTROLLER_NAME,
    for: SANDBOXES,
    owns: [PODS, SERVICES, PERSISTENT_VOLUME_CLAIMS],
    reconciler,
    concurrency: options.concurrency ?? DEFAULT_SANDBOX_CONCURRENCY,
  });
}

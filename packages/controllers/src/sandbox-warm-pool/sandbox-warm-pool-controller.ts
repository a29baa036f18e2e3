// The runtime Controller of SandboxWarmPools (spec §13.1): `for` pools, `owns` Sandboxes (whose
// create and delete events first settle the pool's expectations), and template events map to
// every pool in the namespace that references the template.
import type { Clock, KubeClient } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { Controller, type InformerSource, type Request } from '@agent-sandbox/runtime';
import {
  SANDBOX_TEMPLATES,
  SANDBOX_WARM_POOLS,
  controlledByKind,
  type PoolObject,
  type SandboxObj,
} from '../extensions/resources.ts';
import { SANDBOXES } from '../sandbox/child-writes.ts';
import type { AdoptionsInFlight } from '../warm-queue/adoptions-in-flight.ts';
import { WarmPoolExpectations } from './expectations.ts';
import { SandboxWarmPoolReconciler } from './sandbox-warm-pool-reconciler.ts';

export const SANDBOX_WARM_POOL_CONTROLLER_NAME = 'sandboxwarmpool';

export interface SandboxWarmPoolControllerOptions {
  client: KubeClient;
  informers: InformerSource;
  /** `--sandbox-warm-pool-concurrent-workers`. @default 1 */
  concurrency?: number;
  /** `--sandbox-warm-pool-max-batch-size`. @default 300 */
  maxBatchSize?: number;
  /** `--sandbox-warm-pool-readiness-grace-period` in ms. @default 5 minutes */
  readinessGraceMs?: number;
  /** `--enable-warm-pool-eviction`. @default true */
  enableEviction?: boolean;
  /** `--sandbox-warm-pool-replenish-delay` in ms; 0 is off. @default 0 */
  replenishDelayMs?: number;
  /** `--sandbox-warm-pool-max-refill-rate` (creates/s per pool); 0 is unlimited. @default 0 */
  maxRefillRate?: number;
  /** `--sandbox-warm-pool-unschedulable-recheck-interval` in ms. @default 1 minute */
  unschedulableRecheckMs?: number;
  /** The claim controller's warm adoptions in flight: refills wait for them (ADR 0039). */
  adoptionsInFlight?: AdoptionsInFlight;
  /** Least ms between two status writes that only move the counts; 0 writes each. @default 1000 */
  statusIntervalMs?: number;
  clock?: Clock;
}

/** The pools a template event concerns: same namespace, `sandboxTemplateRef.name` = template. */
export function poolsForTemplate(informers: InformerSource, template: KubeObject): Request[] {
  const ns = template.metadata.namespace ?? '';
  return informers
    .getInformer<PoolObject>(SANDBOX_WARM_POOLS)
    .cache.list()
    .filter(
      (p) =>
        p.metadata.namespace === ns && p.spec.sandboxTemplateRef.name === template.metadata.name,
    )
    .map((p) => ({ namespace: ns, name: p.metadata.name ?? '' }));
}

/**
 * Settles pool expectations from member Sandbox events (spec §13.1): a create event of a
 * pool-controlled Sandbox lowers its pool's expected creations, a delete event observes the UID.
 * Register it before the controller's own handlers, so a pass queued by the event sees it.
 */
export function observeMemberEvents(
  informers: InformerSource,
  expectations: WarmPoolExpectations,
): void {
  const poolKey = (s: KubeObject): string | undefined => {
    const ref = controlledByKind(s, 'SandboxWarmPool');
    return ref === undefined ? undefined : `${s.metadata.namespace ?? ''}/${ref.name}`;
  };
  informers.getInformer<SandboxObj>(SANDBOXES).addHandlers({
    onAdd: (s) => {
      const key = poolKey(s);
      if (key !== undefined) expectations.lowerCreations(key);
    },
    onDelete: (s) => {
      const key = poolKey(s);
      if (key !== undefined) expectations.deletionObserved(key, s.metadata.uid ?? '');
    },
  });
}

export function sandboxWarmPoolController(options: SandboxWarmPoolControllerOptions): Controller {
  const expectations = new WarmPoolExpectations();
  observeMemberEvents(options.informers, expectations);
  const reconciler = new SandboxWarmPoolReconciler({
    client: options.client,
    informers: options.informers,
    expectations,
    ...(options.maxBatchSize !== undefined ? { maxBatchSize: options.maxBatchSize } : {}),
    ...(options.readinessGraceMs !== undefined
      ? { readinessGraceMs: options.readinessGraceMs }
      : {}),
    ...(options.enableEviction !== undefined ? { enableEviction: options.enableEviction } : {}),
    ...(options.replenishDelayMs !== undefined
      ? { replenishDelayMs: options.replenishDelayMs }
      : {}),
    ...(options.maxRefillRate !== undefined ? { maxRefillRate: options.maxRefillRate } : {}),
    ...(options.unschedulableRecheckMs !== undefined
      ? { unschedulableRecheckMs: options.unschedulableRecheckMs }
      : {}),
    ...(options.adoptionsInFlight !== undefined
      ? { adoptionsInFlight: options.adoptionsInFlight }
      : {}),
    ...(options.statusIntervalMs !== undefined
      ? { statusIntervalMs: options.statusIntervalMs }
      : {}),
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
  });
  return new Controller({
    name: SANDBOX_WARM_POOL_CONTROLLER_NAME,
    for: SANDBOX_WARM_POOLS,
    owns: [SANDBOXES],
    watches: [{ resource: SANDBOX_TEMPLATES, map: (t) => poolsForTemplate(options.informers, t) }],
    reconciler,
    concurrency: options.concurrency ?? 1,
  });
}

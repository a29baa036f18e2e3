// The runtime Controller of SandboxClaims (spec §12.1): `for` claims (every event also records
// the first-seen time), `owns` Sandboxes (updates filtered to what the claim mirrors), pool spec
// changes → the pool's unbound claims, template creations → every claim of the pools using it
// (claim-predicates.ts). The Sandbox watch also feeds the warm queue, unfiltered.
import type { Clock, KubeClient } from '@agent-sandbox/kube';
import { realClock } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { Controller, type InformerSource, type Request } from '@agent-sandbox/runtime';
import type { AgentSandboxMetrics } from '../metrics.ts';
import {
  SANDBOX_CLAIMS,
  SANDBOX_TEMPLATES,
  SANDBOX_WARM_POOLS,
  type ClaimObject,
  type PoolObject,
} from '../extensions/resources.ts';
import { SANDBOXES } from '../sandbox/child-writes.ts';
import { WarmSandboxQueue } from '../warm-queue/warm-queue.ts';
import { OWNED_SANDBOX_FILTER, TEMPLATE_FILTER, WARM_POOL_FILTER } from './claim-predicates.ts';
import { feedWarmQueue } from './claim-reads.ts';
import type { AdoptionsInFlight } from '../warm-queue/adoptions-in-flight.ts';
import { FirstSeenTimes } from './first-seen.ts';
import { SandboxClaimReconciler } from './sandbox-claim-reconciler.ts';

export const SANDBOX_CLAIM_CONTROLLER_NAME = 'sandboxclaim';
export const DEFAULT_CLAIM_CONCURRENCY = 50;

export interface SandboxClaimControllerOptions {
  client: KubeClient;
  informers: InformerSource;
  /** `--sandbox-claim-concurrent-workers`. @default 50 */
  concurrency?: number;
  metrics?: AgentSandboxMetrics;
  allowedLabelDomains?: readonly string[];
  disableEvents?: boolean;
  disableObservabilityAnnotations?: boolean;
  /** The IP-less warm candidate grace in ms (no flag upstream). @default 2000 */
  warmCandidateGraceMs?: number;
  /** The warm queue (one per process). @default a new one */
  queue?: WarmSandboxQueue;
  /** Shared with the warm pool controller: its refills wait for warm claims' Ready writes. */
  adoptionsInFlight?: AdoptionsInFlight;
  clock?: Clock;
}

function claimsOf(
  informers: InformerSource,
  ns: string,
  pools: Set<string>,
  unboundOnly: boolean,
): Request[] {
  return informers
    .getInformer<ClaimObject>(SANDBOX_CLAIMS)
    .cache.list()
    .filter(
      (c) =>
        c.metadata.namespace === ns &&
        pools.has(c.spec.warmPoolRef.name) &&
        c.metadata.deletionTimestamp === undefined &&
        (!unboundOnly || !c.status?.sandbox?.name),
    )
    .map((c) => ({ namespace: ns, name: c.metadata.name ?? '' }));
}

export function sandboxClaimController(options: SandboxClaimControllerOptions): Controller {
  const { informers } = options;
  const clock = options.clock ?? realClock;
  const queue = options.queue ?? new WarmSandboxQueue();
  const firstSeen = new FirstSeenTimes();
  informers.getInformer<ClaimObject>(SANDBOX_CLAIMS).addHandlers({
    onAdd: (c) => firstSeen.observe(key(c), c.metadata.uid ?? '', clock.now()),
    onUpdate: (_o, c) => firstSeen.observe(key(c), c.metadata.uid ?? '', clock.now()),
    onDelete: (c) => firstSeen.drop(key(c), c.metadata.uid ?? ''),
  });
  feedWarmQueue(informers, queue);
  const reconciler = new SandboxClaimReconciler({
    client: options.client,
    informers,
    queue,
    firstSeen,
    ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
    ...(options.allowedLabelDomains !== undefined
      ? { allowedLabelDomains: options.allowedLabelDomains }
      : {}),
    ...(options.disableEvents !== undefined ? { disableEvents: options.disableEvents } : {}),
    ...(options.disableObservabilityAnnotations !== undefined
      ? { disableObservabilityAnnotations: options.disableObservabilityAnnotations }
      : {}),
    ...(options.warmCandidateGraceMs !== undefined
      ? { warmCandidateGraceMs: options.warmCandidateGraceMs }
      : {}),
    ...(options.adoptionsInFlight !== undefined
      ? { adoptionsInFlight: options.adoptionsInFlight }
      : {}),
    clock,
  });
  return new Controller({
    name: SANDBOX_CLAIM_CONTROLLER_NAME,
    for: SANDBOX_CLAIMS,
    owns: [{ resource: SANDBOXES, filter: OWNED_SANDBOX_FILTER }],
    watches: [
      {
        resource: SANDBOX_WARM_POOLS,
        filter: WARM_POOL_FILTER,
        map: (p) =>
          claimsOf(informers, p.metadata.namespace ?? '', new Set([p.metadata.name ?? '']), true),
      },
      {
        resource: SANDBOX_TEMPLATES,
        filter: TEMPLATE_FILTER,
        map: (t) => {
          const ns = t.metadata.namespace ?? '';
          const pools = informers
            .getInformer<PoolObject>(SANDBOX_WARM_POOLS)
            .cache.list()
            .filter(
              (p) =>
                p.metadata.namespace === ns && p.spec.sandboxTemplateRef.name === t.metadata.name,
            )
            .map((p) => p.metadata.name ?? '');
          return claimsOf(informers, ns, new Set(pools), false);
        },
      },
    ],
    reconciler,
    concurrency: options.concurrency ?? DEFAULT_CLAIM_CONCURRENCY,
  });
}

function key(c: KubeObject): string {
  return `${c.metadata.namespace ?? ''}/${c.metadata.name ?? ''}`;
}

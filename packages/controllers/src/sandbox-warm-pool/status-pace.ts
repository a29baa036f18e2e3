// When a SandboxWarmPool pass writes the pool's status (spec §13.2 step 6). While claims adopt
// members and replacements come up, replicas and readyReplicas move with every member event, and
// writing each value cost ~1–3.8 status patches per claim on the claim path's API server. So the
// counts in between are throttled: a change is written at once when the pool's status was not
// written in the last interval, otherwise the pass asks to be requeued at the interval's end, when
// the pass that runs computes the status from the cache of that moment.
//
// Written at once whatever the pace: a new generation or selector (readers wait for
// observedGeneration after a spec change), and every change into or out of the settled pool —
// all desired members there and Ready. That state is what readers of the counts act on (a user's
// `kubectl wait` on readyReplicas, bench:sdk before each warm claim), so it is never reported late
// nor kept after it ended: paced, the claim that drew a settled pool's first member left the status
// saying "all Ready" for up to the interval while the replacement started, and a waiter's next
// claim then ran beside that start (the POST's answer tripled; reverted in e50b0c9, see
// bench/README.md "sdk"). The counts between two unsettled states are at most one interval stale;
// the status stays level-triggered and exact once the members settle, and a status equal to the
// stored one is never written.
import type { PoolObject } from '../extensions/resources.ts';

export type PoolStatus = NonNullable<PoolObject['status']>;

/** Default interval between count-only status writes of one pool. */
export const DEFAULT_STATUS_INTERVAL_MS = 1_000;

export type StatusStep =
  | { kind: 'unchanged' }
  | { kind: 'write'; status: PoolStatus }
  | { kind: 'defer'; afterMs: number };

export interface StatusPaceInput {
  /** The status the server holds, as far as this process knows. */
  stored: PoolStatus;
  /** The status this pass computed. */
  next: PoolStatus;
  /** The members the pool wants (spec.replicas, nil → 1). */
  desired: number;
  /** When this process last wrote the pool's status; undefined: not since it started. */
  lastWriteMs: number | undefined;
  nowMs: number;
  intervalMs: number;
}

export function paceStatus(input: StatusPaceInput): StatusStep {
  const stored = withoutZeros(input.stored);
  const next = withoutZeros(input.next);
  if (sameStatus(stored, next)) return { kind: 'unchanged' };
  // A clock that went back counts as the interval passed.
  const sinceMs = input.lastWriteMs === undefined ? Infinity : input.nowMs - input.lastWriteMs;
  const countsOnly =
    stored.selector === next.selector && stored.observedGeneration === next.observedGeneration;
  const settled = (s: PoolStatus): boolean =>
    (s.replicas ?? 0) === input.desired && (s.readyReplicas ?? 0) === input.desired;
  const edge = settled(stored) || settled(next);
  if (!countsOnly || edge || sinceMs >= input.intervalMs || sinceMs < 0)
    return { kind: 'write', status: next };
  return { kind: 'defer', afterMs: Math.max(1, Math.ceil(input.intervalMs - sinceMs)) };
}

/** Go's omitempty: zero counts are absent from the stored status. */
export function withoutZeros(s: PoolStatus): PoolStatus {
  const out: PoolStatus = {};
  if (s.replicas) out.replicas = s.replicas;
  if (s.readyReplicas) out.readyReplicas = s.readyReplicas;
  if (s.selector) out.selector = s.selector;
  if (s.observedGeneration) out.observedGeneration = s.observedGeneration;
  return out;
}

function sameStatus(a: PoolStatus, b: PoolStatus): boolean {
  return (
    a.replicas === b.replicas &&
    a.readyReplicas === b.readyReplicas &&
    a.selector === b.selector &&
    a.observedGeneration === b.observedGeneration
  );
}

/** The merge-patch body of `status`: every field, absent ones as null (so zeros are cleared). */
export function statusPatchBody(status: PoolStatus): Record<string, unknown> {
  return {
    replicas: status.replicas ?? null,
    readyReplicas: status.readyReplicas ?? null,
    selector: status.selector ?? null,
    observedGeneration: status.observedGeneration ?? null,
  };
}

// When a SandboxWarmPool pass writes the pool's status (spec §13.2 step 6). While claims adopt
// members and replacements come up, replicas and readyReplicas move with every member event, and
// writing each value cost ~3.8 status patches per claim on the claim path's API server. So the
// counts are throttled: a change is written at once when the pool's status was not written in the
// last interval, otherwise the pass asks to be requeued at the interval's end, when the pass that
// runs computes the status from the cache of that moment. The status stays level-triggered and
// exact once the members settle, at most one interval late; a new generation or selector is
// written at once (readers wait for observedGeneration after a spec change), and a status equal
// to the stored one is never written.
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
  if (!countsOnly || sinceMs >= input.intervalMs || sinceMs < 0)
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

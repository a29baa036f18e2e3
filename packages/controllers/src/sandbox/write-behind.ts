// Write-behind coalescing of the pod metadata patch (spec §11.9, `--sandbox-write-behind-window`,
// default 0 = synchronous). Only a write the next pass recomputes verbatim from the cache is
// deferred, so no mutation payload is kept: losing the clock only restarts the window.
import type { PodWrite } from './pod-plan.ts';

/** The deferral never exceeds 1s: the safe-to-evict strip on warm adoption must land quickly. */
export const WRITE_BEHIND_FLUSH_BOUND_MS = 1_000;

/** The effective window: min(flag, 1s); 0 or less means synchronous. */
export function writeBehindWindowMs(flagMs: number): number {
  return Math.max(0, Math.min(flagMs, WRITE_BEHIND_FLUSH_BOUND_MS));
}

/** Only the metadata patch of an already-owned Pod, with no ownership change, is deferrable. */
export function isDeferrable(write: PodWrite): boolean {
  return write.action === 'Patch' && !write.adopt;
}

export type WriteBehindDecision =
  | { readonly write: true }
  | { readonly write: false; readonly firstSeenMs: number; readonly requeueAfterMs: number };

/**
 * Whether to send the deferrable write now. The first detection arms the window (skip, requeue
 * after the window); passes inside the window skip without re-arming; the first pass at or after
 * the deadline writes.
 */
export function writeBehindDecision(
  firstSeenMs: number | undefined,
  nowMs: number,
  windowMs: number,
): WriteBehindDecision {
  if (windowMs <= 0) return { write: true };
  const since = firstSeenMs ?? nowMs;
  const remaining = since + windowMs - nowMs;
  if (firstSeenMs !== undefined && remaining <= 0) return { write: true };
  return { write: false, firstSeenMs: since, requeueAfterMs: Math.max(remaining, 1) };
}

/**
 * The per-request "first seen" timestamps (one Map owned by the reconciler instance, never
 * module-level). Clear an entry when a pass has nothing pending, on NotFound and on deletion.
 */
export class WriteBehindClock {
  readonly #firstSeenMs = new Map<string, number>();

  /** Decide for `key` (`namespace/name`) and record the arming instant when deferring. */
  decide(key: string, nowMs: number, windowMs: number): WriteBehindDecision {
    const decision = writeBehindDecision(this.#firstSeenMs.get(key), nowMs, windowMs);
    if (decision.write) this.#firstSeenMs.delete(key);
    else this.#firstSeenMs.set(key, decision.firstSeenMs);
    return decision;
  }

  clear(key: string): void {
    this.#firstSeenMs.delete(key);
  }

  get size(): number {
    return this.#firstSeenMs.size;
  }
}

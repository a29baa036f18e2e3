// Lifecycle helpers shared by the Sandbox and SandboxClaim reconcilers (spec §16, upstream
// internal/lifecycle): when an object expires from shutdownTime and/or a TTL after it finished.
import type { Condition } from '@agent-sandbox/api';

/** The condition of `type` only when present with status True (FinishedCondition). */
export function finishedCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  const c = conditions?.find((x) => x.type === type);
  return c?.status === 'True' ? c : undefined;
}

/** A TTL is set and the object has finished (NeedsCleanup). */
export function needsCleanup(
  ttlSecondsAfterFinished: number | undefined,
  finished: Condition | undefined,
): boolean {
  return ttlSecondsAfterFinished !== undefined && finished !== undefined;
}

/** The finished condition's lastTransitionTime, undefined when missing or unparsable (FinishedTime). */
export function finishedTime(finished: Condition | undefined): Date | undefined {
  if (finished === undefined || finished.lastTransitionTime === '') return undefined;
  const ms = Date.parse(finished.lastTransitionTime);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

/**
 * The expiry instant (ExpireAt): shutdownTime if set; finishedAt + ttl when the TTL applies; the
 * earlier of the two wins; undefined when neither applies.
 */
export function expireAt(
  shutdownTime: string | undefined,
  ttlSecondsAfterFinished: number | undefined,
  finished: Condition | undefined,
): Date | undefined {
  let at: Date | undefined;
  if (shutdownTime !== undefined) {
    const ms = Date.parse(shutdownTime);
    if (!Number.isNaN(ms)) at = new Date(ms);
  }
  const finishedAt = finishedTime(finished);
  if (needsCleanup(ttlSecondsAfterFinished, finished) && finishedAt !== undefined) {
    const ttlAt = new Date(finishedAt.getTime() + (ttlSecondsAfterFinished ?? 0) * 1000);
    if (at === undefined || ttlAt < at) at = ttlAt;
  }
  return at;
}

export interface TimeLeft {
  expired: boolean;
  remainingMs: number;
}

/** TimeLeft: no expiry → not expired, 0; now ≥ expireAt → expired, 0; else the time remaining. */
export function timeLeft(now: Date, at: Date | undefined): TimeLeft {
  if (at === undefined) return { expired: false, remainingMs: 0 };
  const remainingMs = at.getTime() - now.getTime();
  return remainingMs <= 0 ? { expired: true, remainingMs: 0 } : { expired: false, remainingMs };
}

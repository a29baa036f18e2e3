// shutdownTime / shutdownPolicy expiry (spec §11.2 steps 6–7, §11.7, §16): two passes — the first
// persists Ready=False/SandboxExpired and requeues in 1ms, the second tears down (§23.3).
import { SandboxConditionType, SandboxReason } from '@agent-sandbox/api';
import type { Condition, v1beta1 } from '@agent-sandbox/api';
import type { Pod, Service } from '@agent-sandbox/kube-types';
import { findCondition, removeStatusCondition, setStatusCondition } from './conditions.ts';
import { isOwnedBySandbox, resolvePodName } from './ownership.ts';

type Sandbox = v1beta1.Sandbox;
type SandboxStatus = v1beta1.SandboxStatus;

/** The requeue after the first expiry pass (upstream immediateRequeueDelay). */
export const EXPIRED_REQUEUE_MS = 1;
/** The shortest requeue for a future shutdownTime. */
export const MIN_EXPIRY_REQUEUE_MS = 2_000;

export interface SandboxExpiry {
  expired: boolean;
  /** When not expired and shutdownTime is set: max(shutdownTime − now, 2s). */
  requeueAfterMs?: number;
}

/**
 * Expired when now ≥ shutdownTime; otherwise requeue at max(remaining, 2s); no shutdownTime → never
 * expires, no requeue (TestSandboxExpiry).
 */
export function checkSandboxExpiry(sandbox: Sandbox, now: Date): SandboxExpiry {
  const shutdownTime = sandbox.spec.shutdownTime;
  if (shutdownTime === undefined) return { expired: false };
  const remainingMs = Date.parse(shutdownTime) - now.getTime();
  if (Number.isNaN(remainingMs)) return { expired: false };
  if (remainingMs <= 0) return { expired: true };
  return { expired: false, requeueAfterMs: Math.max(remainingMs, MIN_EXPIRY_REQUEUE_MS) };
}

/** Ready already reads `SandboxExpired`: the first pass has been persisted. */
export function isMarkedExpired(sandbox: Sandbox): boolean {
  return (
    findCondition(sandbox.status?.conditions, SandboxConditionType.Ready)?.reason ===
    SandboxReason.SandboxExpired
  );
}

function expiredReady(sandbox: Sandbox) {
  return {
    type: SandboxConditionType.Ready,
    status: 'False' as const,
    reason: SandboxReason.SandboxExpired,
    message: 'Sandbox has expired',
    ...(sandbox.metadata.generation !== undefined
      ? { observedGeneration: sandbox.metadata.generation }
      : {}),
  };
}

/**
 * The conditions of the first expiry pass: Ready=False/SandboxExpired, PodScheduled removed
 * (it would otherwise linger stale), Finished and Suspended kept.
 */
export function markExpiredConditions(
  sandbox: Sandbox,
  conditions: readonly Condition[],
  now: Date,
): Condition[] {
  const withReady = setStatusCondition(conditions, expiredReady(sandbox), now);
  return removeStatusCondition(withReady, SandboxConditionType.PodScheduled);
}

/**
 * The status after a successful Retain teardown: conditions only (service, serviceFQDN, selector,
 * podIPs and nodeName cleared), then Ready=False/SandboxExpired; Finished is preserved.
 */
export function expiredStatus(sandbox: Sandbox, now: Date): SandboxStatus {
  return {
    conditions: setStatusCondition(sandbox.status?.conditions ?? [], expiredReady(sandbox), now),
  };
}

/** The deletions of the second pass: only owned children; foreign ones are skipped (§11.7). */
export interface ExpiryTeardown {
  /** The owned Pod to delete, by the resolved pod name. */
  deletePod?: string;
  /** The owned Service (named after the Sandbox) to delete. */
  deleteService?: string;
  /** shutdownPolicy Delete: delete the Sandbox itself and skip the status write. */
  deleteSandbox: boolean;
}

/** The teardown given the Pod found under the resolved pod name and the Service under the name. */
export function expiryTeardown(
  sandbox: Sandbox,
  pod: Pod | undefined,
  service: Service | undefined,
): ExpiryTeardown {
  const out: ExpiryTeardown = { deleteSandbox: sandbox.spec.shutdownPolicy === 'Delete' };
  if (isOwnedBySandbox(pod, sandbox)) out.deletePod = resolvePodName(sandbox);
  if (isOwnedBySandbox(service, sandbox)) {
    out.deleteService = service?.metadata?.name ?? sandbox.metadata.name ?? '';
  }
  return out;
}

/** Where a pass stands with respect to expiry, before children are reconciled (§11.2 step 6). */
export type ExpiryPhase =
  | { readonly phase: 'NotExpired'; readonly requeueAfterMs?: number }
  /** First pass: persist these conditions, then requeue in 1ms. */
  | {
      readonly phase: 'MarkExpired';
      readonly conditions: Condition[];
      readonly requeueAfterMs: number;
    }
  /** Second and later passes: tear down (idempotent; no further requeue). */
  | { readonly phase: 'Teardown' };

export function expiryPhase(sandbox: Sandbox, now: Date): ExpiryPhase {
  const expiry = checkSandboxExpiry(sandbox, now);
  if (!expiry.expired) {
    return expiry.requeueAfterMs === undefined
      ? { phase: 'NotExpired' }
      : { phase: 'NotExpired', requeueAfterMs: expiry.requeueAfterMs };
  }
  if (!isMarkedExpired(sandbox)) {
    return {
      phase: 'MarkExpired',
      conditions: markExpiredConditions(sandbox, sandbox.status?.conditions ?? [], now),
      requeueAfterMs: EXPIRED_REQUEUE_MS,
    };
  }
  return { phase: 'Teardown' };
}

/**
 * The re-check after children were reconciled (§11.2 step 7), with `status` the freshly computed
 * one: expired meanwhile → mark it and requeue in 1ms; otherwise requeue at the shutdownTime.
 */
export function expiryAfterReconcile(
  sandbox: Sandbox,
  status: SandboxStatus,
  now: Date,
): { status: SandboxStatus; requeueAfterMs?: number } {
  const expiry = checkSandboxExpiry(sandbox, now);
  if (expiry.expired) {
    const conditions = markExpiredConditions(sandbox, status.conditions ?? [], now);
    return { status: { ...status, conditions }, requeueAfterMs: EXPIRED_REQUEUE_MS };
  }
  return expiry.requeueAfterMs === undefined
    ? { status }
    : { status, requeueAfterMs: expiry.requeueAfterMs };
}

// A claim's status (spec §8.2, §12.7): Ready from the pass's error, expiry or the bound Sandbox
// (its Ready copied, lastTransitionTime adopted when the status flips), Finished mirrored
// verbatim, `status.sandbox` mirrored, and whether the write is needed (conditions by type).
import { SandboxClaimReason, type Condition } from '@agent-sandbox/api';
import { isDeepStrictEqual } from 'node:util';
import type { ClaimObject, SandboxObj } from '../extensions/resources.ts';
import { findCondition, formatTime } from '../sandbox/conditions.ts';
import type { ClaimError } from './claim-errors.ts';

type ClaimStatus = NonNullable<ClaimObject['status']>;

export interface ClaimObservation {
  sandbox: SandboxObj | undefined;
  error: ClaimError | undefined;
  expired: boolean;
  now: Date;
}

interface ReadyInput {
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  /** The Sandbox's own transition time, adopted when the claim's status flips. */
  sourceTransition?: string;
}

export function claimReadyInput(o: ClaimObservation): ReadyInput {
  const no = (reason: string, message: string): ReadyInput => ({
    status: 'False',
    reason,
    message,
  });
  if (o.error !== undefined) return no(o.error.reason, o.error.conditionMessage);
  if (o.expired)
    return no(SandboxClaimReason.ClaimExpired, 'Claim expired. Sandbox cleanup initiated.');
  if (o.sandbox === undefined)
    return no(SandboxClaimReason.SandboxMissing, 'Sandbox does not exist');
  const ready = findCondition(o.sandbox.status?.conditions, 'Ready');
  if (ready?.reason === 'SandboxExpired') {
    return no(
      SandboxClaimReason.SandboxExpired,
      'Underlying Sandbox resource has expired independently of the Claim.',
    );
  }
  if (ready === undefined) return no(SandboxClaimReason.SandboxNotReady, 'Sandbox is not ready');
  return {
    status: ready.status as ReadyInput['status'],
    reason: ready.reason,
    message: ready.message,
    sourceTransition: ready.lastTransitionTime,
  };
}

function sortByType(conditions: Condition[]): Condition[] {
  return [...conditions].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

export function computeClaimStatus(claim: ClaimObject, o: ClaimObservation): ClaimStatus {
  const prev = claim.status ?? {};
  const input = claimReadyInput(o);
  const old = findCondition(prev.conditions, 'Ready');
  const flipped = old === undefined || old.status !== input.status;
  const ready: Condition = {
    type: 'Ready',
    status: input.status,
    reason: input.reason,
    message: input.message,
    observedGeneration: claim.metadata.generation ?? 0,
    lastTransitionTime: flipped
      ? input.sourceTransition || formatTime(o.now)
      : (old?.lastTransitionTime ?? formatTime(o.now)),
  };
  const conditions: Condition[] = [ready];
  const finished = o.sandbox
    ? findCondition(o.sandbox.status?.conditions, 'Finished')
    : o.expired
      ? findCondition(prev.conditions, 'Finished')
      : undefined;
  if (finished !== undefined) conditions.push(structuredClone(finished));
  const status: ClaimStatus = { conditions: sortByType(conditions) };
  if (o.sandbox !== undefined) {
    const podIPs = o.sandbox.status?.podIPs;
    status.sandbox = {
      name: o.sandbox.metadata.name ?? '',
      ...(podIPs !== undefined && podIPs.length > 0 ? { podIPs: [...podIPs] } : {}),
    };
  } else if (o.error === undefined || o.error.reason === 'ClaimExpired') {
    // cleared
  } else if (prev.sandbox !== undefined) {
    // A transient error must not erase the binding (and force a cold start next pass).
    status.sandbox = structuredClone(prev.sandbox);
  }
  return status;
}

export function claimStatusEqual(a: ClaimStatus | undefined, b: ClaimStatus): boolean {
  const norm = (s: ClaimStatus | undefined): unknown => ({
    conditions: sortByType([...(s?.conditions ?? [])]),
    sandbox: s?.sandbox?.name
      ? { name: s.sandbox.name, podIPs: s.sandbox.podIPs ?? [] }
      : undefined,
  });
  return isDeepStrictEqual(norm(a), norm(b));
}

/** The locked merge patch of `status` (a stale resourceVersion answers 409). */
export function claimStatusPatch(claim: ClaimObject, next: ClaimStatus): Record<string, unknown> {
  return {
    metadata: { resourceVersion: claim.metadata.resourceVersion },
    status: { conditions: next.conditions ?? [], sandbox: next.sandbox ?? null },
  };
}

export function isClaimReady(status: ClaimStatus | undefined): boolean {
  return findCondition(status?.conditions, 'Ready')?.status === 'True';
}

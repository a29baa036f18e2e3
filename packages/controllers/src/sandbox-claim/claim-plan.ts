// One SandboxClaim pass as data (spec §12.2–12.5): from what the reconciler read from its caches,
// the decision to carry out — bind the Sandbox it found, finish an earlier pass's adoption, seek a
// warm candidate, wait for one, create cold, or fail — and how the pass ends. The I/O reconciler
// (sandbox-claim-reconciler.ts) reads, asks these functions, and executes what they return.
import { Annotations, Labels } from '@agent-sandbox/api';
import type { Result } from '@agent-sandbox/runtime';
import { expireAt, finishedCondition, timeLeft, type TimeLeft } from '../lifecycle.ts';
import {
  controlledByKind,
  isControlledBy,
  type ClaimObject,
  type SandboxObj,
  type TemplateObject,
} from '../extensions/resources.ts';
import type { ExtensionEvent } from '../extensions/events.ts';
import { findCondition } from '../sandbox/conditions.ts';
import { candidateProblem } from './adoption.ts';
import { ClaimError, asClaimError, reconcilerError } from './claim-errors.ts';
import { resolveWarmEnv, warmEnvEnabled } from './warm-env.ts';

export const WARM_CANDIDATE_GRACE_MS = 2_000;
export const PENDING_REQUEUE_MS = 500;

export type LaunchType = 'warm' | 'cold';
export type DeletePolicy = 'Delete' | 'DeleteForeground';

/** How far the claim is from its lifecycle's end (spec §16: shutdownTime, ttlSecondsAfterFinished). */
export function claimExpiry(claim: ClaimObject, now: Date): TimeLeft {
  const lifecycle = claim.spec.lifecycle;
  return timeLeft(
    now,
    expireAt(
      lifecycle?.shutdownTime,
      lifecycle?.ttlSecondsAfterFinished,
      finishedCondition(claim.status?.conditions, 'Finished'),
    ),
  );
}

/**
 * §12.5 for an expired claim: first persist Ready=ClaimExpired (one pass), then delete the claim
 * (Delete, DeleteForeground) or keep it and delete its Sandbox (Retain, the default).
 */
export function expiredPhase(
  claim: ClaimObject,
): { phase: 'MarkExpired' } | { phase: 'Delete'; policy: DeletePolicy } | { phase: 'Retain' } {
  if (findCondition(claim.status?.conditions, 'Ready')?.reason !== 'ClaimExpired') {
    return { phase: 'MarkExpired' };
  }
  const policy = claim.spec.lifecycle?.shutdownPolicy ?? 'Retain';
  return policy === 'Delete' || policy === 'DeleteForeground'
    ? { phase: 'Delete', policy }
    : { phase: 'Retain' };
}

/** The Sandbox an expired claim under Retain looks at: the bound one, else the claim's name. */
export function retainedSandboxName(claim: ClaimObject): string {
  return claim.status?.sandbox?.name || claim.metadata.name || '';
}

export type RetainPlan =
  | { kind: 'none' }
  | { kind: 'refuse'; error: ClaimError }
  | { kind: 'delete'; name: string; uid: string };

/** §12.5 Retain: delete the claim's Sandbox (once), refuse one it does not own. */
export function planRetain(claim: ClaimObject, sandbox: SandboxObj | undefined): RetainPlan {
  if (sandbox === undefined) return { kind: 'none' };
  const name = sandbox.metadata.name ?? '';
  if (!isControlledBy(sandbox, claim)) {
    return {
      kind: 'refuse',
      error: new ClaimError(
        'ClaimExpired',
        `sandbox not owned by this claim: sandbox "${name}" is not owned by claim "${claim.metadata.name ?? ''}"`,
      ),
    };
  }
  if (sandbox.metadata.deletionTimestamp !== undefined) return { kind: 'none' };
  return { kind: 'delete', name, uid: sandbox.metadata.uid ?? '' };
}

/** The assignment an earlier pass recorded: the annotation, else the deprecated label. */
export function assignedName(claim: ClaimObject): string | undefined {
  return (
    claim.metadata.annotations?.[Annotations.SandboxName] ??
    claim.metadata.labels?.[Labels.SandboxName]
  );
}

/** An assignment naming the claim itself is a recorded cold creation, not an adoption. */
export function coldRecorded(claim: ClaimObject): boolean {
  return assignedName(claim) === (claim.metadata.name ?? '');
}

/** What the claim already points at: its status, then its assignment (§12.3 step 2, §12.4 step 2). */
export type BindingPlan =
  /** The Sandbox to keep, with the launch-type label it gets if it has none. */
  | { kind: 'bind'; sandbox: SandboxObj; launchType: LaunchType; migrateLabel: boolean }
  /** A pool Sandbox an earlier pass chose: its adoption patch is still to land. */
  | { kind: 'complete-adoption'; sandbox: SandboxObj }
  /** The assignment dangles (gone, or taken by another claim): remove it and choose again. */
  | { kind: 'drop-reference' }
  /** Nothing bound or assigned that decides: choose (planChoice). */
  | { kind: 'choose' };

/**
 * `bound` is the Sandbox under status.sandbox.name, `assigned` the one under the assignment (each
 * from the cache, undefined when the name is unset or nothing is cached under it).
 */
export function planBinding(
  claim: ClaimObject,
  bound: SandboxObj | undefined,
  assigned: SandboxObj | undefined,
): BindingPlan {
  const claimName = claim.metadata.name ?? '';
  const statusName = claim.status?.sandbox?.name;
  if (statusName && bound !== undefined && isControlledBy(bound, claim)) {
    // Cold Sandboxes are named after the claim (and assigned to it too, see createCold), so the
    // name alone tells the launch type of a label-less one.
    const launchType = statusName === claimName ? 'cold' : 'warm';
    return { kind: 'bind', sandbox: bound, launchType, migrateLabel: false };
  }
  if (coldRecorded(claim) || !assignedName(claim)) return { kind: 'choose' };
  if (assigned !== undefined && isControlledBy(assigned, claim)) {
    return { kind: 'bind', sandbox: assigned, launchType: 'warm', migrateLabel: true };
  }
  if (assigned !== undefined && controlledByKind(assigned, 'SandboxWarmPool') !== undefined) {
    if (candidateProblem(assigned, claim) === undefined) {
      return { kind: 'complete-adoption', sandbox: assigned };
    }
  } else if (assigned !== undefined && controlledByKind(assigned, 'SandboxClaim') === undefined) {
    return { kind: 'choose' }; // another owner, or none: keep the reference
  }
  return { kind: 'drop-reference' };
}

/** The cache reads a claim without a binding chooses from. */
export interface ChoiceReads {
  /** The Sandbox named after the claim. */
  named: SandboxObj | undefined;
  /** The Sandboxes the claim controls. */
  controlled: readonly SandboxObj[];
  /** The claim's pool's template, when both are cached. */
  template: TemplateObject | undefined;
}

export type Choice =
  | { kind: 'bind'; sandbox: SandboxObj; launchType: LaunchType }
  | { kind: 'create-cold'; record: boolean }
  /** Take a candidate from the warm queue (then planWarmWait when there is none). */
  | { kind: 'seek-warm' }
  | { kind: 'fail'; error: ClaimError };

/** §12.3–12.4 for a claim with no binding: the claim-named Sandbox, one it controls, warm, cold. */
export function planChoice(claim: ClaimObject, reads: ChoiceReads): Choice {
  const claimName = claim.metadata.name ?? '';
  const { named } = reads;
  if (named !== undefined) {
    if (!isControlledBy(named, claim)) {
      const error = reconcilerError(
        `sandbox "${claimName}" is not controlled by claim "${claimName}". Please use a different claim name or delete the sandbox manually`,
      );
      return { kind: 'fail', error };
    }
    return { kind: 'bind', sandbox: named, launchType: 'cold' };
  }
  if (coldRecorded(claim)) return { kind: 'create-cold', record: false };
  // The claim's cache entry can lag its own writes (assignment, status) while the Sandbox cache
  // already shows the adoption: a Sandbox this claim controls wins over any new choice.
  const owned = reads.controlled.find((s) => s.metadata.deletionTimestamp === undefined);
  if (owned !== undefined) return { kind: 'bind', sandbox: owned, launchType: 'warm' };
  const hasEnv = (claim.spec.env?.length ?? 0) > 0;
  const forcesCold =
    (hasEnv && !warmEnvEnabled(reads.template)) ||
    (claim.spec.volumeClaimTemplates?.length ?? 0) > 0;
  if (forcesCold) return { kind: 'create-cold', record: true };
  // Warm env: the template's policy is checked before a candidate is taken.
  if (hasEnv && reads.template !== undefined) {
    try {
      resolveWarmEnv(claim, reads.template);
    } catch (err: unknown) {
      return { kind: 'fail', error: asClaimError(err) };
    }
  }
  return { kind: 'seek-warm' };
}

/**
 * §12.4 step 6 with no candidate taken: while some candidate still lacks pod IPs and the claim is
 * younger than the grace, wait for it (the ms to requeue after); else undefined: go cold.
 */
export function planWarmWait(
  pending: boolean,
  firstSeenMs: number | undefined,
  now: Date,
  graceMs: number,
): number | undefined {
  if (!pending) return undefined;
  const seen = firstSeenMs ?? now.getTime();
  const left = graceMs - (now.getTime() - seen);
  return left > 0 ? Math.min(PENDING_REQUEUE_MS, left) : undefined;
}

/** Once the binding is durable, the other live Sandboxes the claim controls (one claim, one Sandbox). */
export function strays(bound: string, controlled: readonly SandboxObj[]): SandboxObj[] {
  return controlled.filter(
    (s) => (s.metadata.name ?? '') !== bound && s.metadata.deletionTimestamp === undefined,
  );
}

/**
 * How a pass that reached its status write ends: an error that waits requeues (never past the
 * expiry), a suppressed one ends the pass, any other backs off; else requeue at the expiry.
 */
export function passEnd(
  error: ClaimError | undefined,
  remainingMs: number,
): { kind: 'result'; result: Result | undefined } | { kind: 'fail'; error: ClaimError } {
  const untilExpiry = remainingMs > 0 ? remainingMs : undefined;
  if (error !== undefined) {
    const wait = error.requeueAfterMs;
    if (wait !== undefined) {
      return { kind: 'result', result: { requeueAfterMs: Math.min(wait, untilExpiry ?? wait) } };
    }
    if (!error.suppressed) return { kind: 'fail', error };
  }
  return {
    kind: 'result',
    result: untilExpiry === undefined ? undefined : { requeueAfterMs: untilExpiry },
  };
}

/** The events of a claim pass (spec §12, upstream's reasons and actions). */
export const claimEvents = {
  expired: {
    type: 'Normal',
    reason: 'ClaimExpired',
    action: 'Claim Expired',
    note: 'Claim expired',
  },
  deleting: (policy: DeletePolicy): ExtensionEvent => ({
    type: 'Normal',
    reason: 'ClaimExpired',
    action: 'Deleting',
    note: `Deleting Claim (ShutdownPolicy=${policy})`,
  }),
  adopted: (sandbox: string): ExtensionEvent => ({
    type: 'Normal',
    reason: 'SandboxAdopted',
    action: 'Adoption',
    note: `Adopted warm pool Sandbox "${sandbox}"`,
  }),
  provisioned: (sandbox: string): ExtensionEvent => ({
    type: 'Normal',
    reason: 'SandboxProvisioned',
    action: 'Provisioning',
    note: `Created Sandbox "${sandbox}"`,
  }),
} as const satisfies Record<string, ExtensionEvent | ((name: never) => ExtensionEvent)>;

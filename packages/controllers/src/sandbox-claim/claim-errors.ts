// The failures of a claim pass (spec §8.2, §12.2 step 13), each with the Ready reason it shows
// and how the pass ends: `suppressed` errors are user errors (the status says it all; no
// backoff), `requeueAfterMs` ones wait for the cache or for a missing object, the rest back off.
import { SandboxClaimReason } from '@agent-sandbox/api';
import { ControllersError } from '../errors.ts';

export type ClaimFailureReason =
  | typeof SandboxClaimReason.TemplateNotFound
  | typeof SandboxClaimReason.WarmPoolNotFound
  | typeof SandboxClaimReason.AdoptionConflict
  | typeof SandboxClaimReason.SandboxCreatePending
  | typeof SandboxClaimReason.InvalidMetadata
  | typeof SandboxClaimReason.EnvVarsInjectionRejected
  | typeof SandboxClaimReason.ClaimExpired
  | typeof SandboxClaimReason.VolumeClaimTemplatesError
  | typeof SandboxClaimReason.ReconcilerError;

const SUPPRESSED = new Set<ClaimFailureReason>([
  'InvalidMetadata',
  'EnvVarsInjectionRejected',
  'ClaimExpired',
  'VolumeClaimTemplatesError',
]);

export const NOT_FOUND_REQUEUE_MS = 60_000;
export const CREATE_PENDING_REQUEUE_MS = 200;

export class ClaimError extends ControllersError {
  readonly reason: ClaimFailureReason;

  constructor(reason: ClaimFailureReason, message: string, options?: ErrorOptions) {
    super('ClaimFailed', message, options);
    this.name = 'ClaimError';
    this.reason = reason;
  }

  /** A user error: reported in the condition, not retried with backoff. */
  get suppressed(): boolean {
    return SUPPRESSED.has(this.reason);
  }

  /** Waits for an object or the cache instead of backing off. */
  get requeueAfterMs(): number | undefined {
    if (this.reason === 'TemplateNotFound' || this.reason === 'WarmPoolNotFound')
      return NOT_FOUND_REQUEUE_MS;
    if (this.reason === 'SandboxCreatePending') return CREATE_PENDING_REQUEUE_MS;
    return undefined;
  }

  /** The Ready condition's message (spec §8.2). */
  get conditionMessage(): string {
    switch (this.reason) {
      case 'AdoptionConflict':
        return `${this.message}; the next pass retries from a converged view`;
      case 'ClaimExpired':
        return `Claim expired. ${this.message}; deletion skipped.`;
      case 'ReconcilerError':
        return `Error seen: ${this.message}`;
      default:
        return this.message;
    }
  }
}

export const templateNotFound = (name: string): ClaimError =>
  new ClaimError('TemplateNotFound', `SandboxTemplate "${name}" not found`);
export const warmPoolNotFound = (name: string): ClaimError =>
  new ClaimError('WarmPoolNotFound', `SandboxWarmPool "${name}" not found`);
export const reconcilerError = (message: string, cause?: unknown): ClaimError =>
  new ClaimError('ReconcilerError', message, cause === undefined ? undefined : { cause });
export const adoptionConflict = (detail: string, cause?: unknown): ClaimError =>
  new ClaimError(
    'AdoptionConflict',
    `adoption write conflict: ${detail}`,
    cause === undefined ? undefined : { cause },
  );

/** Any error as a ClaimError (ReconcilerError unless it is one already). */
export function asClaimError(err: unknown): ClaimError {
  if (err instanceof ClaimError) return err;
  const e = err instanceof Error ? err : new Error(String(err));
  return reconcilerError(e.message, e);
}

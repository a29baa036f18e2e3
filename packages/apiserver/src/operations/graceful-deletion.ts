// Graceful deletion (kubelet-and-oci §2.1; kube's rest.BeforeDelete with the Pod strategy's
// CheckGracefulDelete): pure decisions, the writes are delete-object.ts's. Only Pods delete
// gracefully: their kubelet must stop the containers before the object goes, so a DELETE of a
// bound, running Pod marks it and the kubelet makes the final DELETE with grace 0.
import { formatTime, type KubeObject } from '../objects.ts';

/** What a DELETE does to an object before (or instead of) removing it. */
export type GraceStep =
  /** Not a graceful deletion: the ordinary path (finalizers, then removal). */
  | { kind: 'ordinary' }
  /** Already being deleted with a grace no longer than asked: answer the object unchanged. */
  | { kind: 'pending' }
  /** Write these; with grace 0 (and no finalizers) the object is then removed. */
  | { kind: 'mark'; deletionTimestamp: string; grace: number; firstMark: boolean };

/**
 * The Pod strategy's grace: the request's, else spec.terminationGracePeriodSeconds (defaulted
 * to 30 at creation), 0 for a Pod no node runs (unbound, or already Succeeded/Failed), and a
 * negative value becomes 1.
 */
export function podDeletionGrace(pod: KubeObject, requested: number | undefined): number {
  const spec = (pod['spec'] ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
  const phase = ((pod['status'] ?? {}) as { phase?: string }).phase;
  let period = requested ?? spec.terminationGracePeriodSeconds ?? 0;
  if (!spec.nodeName) period = 0;
  if (phase === 'Succeeded' || phase === 'Failed') period = 0;
  return period < 0 ? 1 : period;
}

/**
 * The step a DELETE asking for `requested` seconds (undefined: the object's own) takes on
 * `obj`, whose strategy gives `strategyGrace(requested)` for a first deletion. A later DELETE
 * may only shorten the grace: the deletionTimestamp moves back by the difference, never before
 * `now`; a marked object whose grace is already 0 (or unset) takes the ordinary path, which also
 * finishes a removal that failed after its mark was written.
 */
export function gracefulStep(
  obj: KubeObject,
  requested: number | undefined,
  strategyGrace: (requested: number | undefined) => number,
  now: Date,
): GraceStep {
  const asked = requested !== undefined && requested < 0 ? 1 : requested;
  const m = obj.metadata;
  if (!m.deletionTimestamp) {
    const grace = strategyGrace(asked);
    const at = new Date(now.getTime() + grace * 1000);
    return { kind: 'mark', deletionTimestamp: formatTime(at), grace, firstMark: true };
  }
  const current = m.deletionGracePeriodSeconds;
  if (current === undefined || current <= 0) return { kind: 'ordinary' };
  if (asked === undefined || asked >= current) return { kind: 'pending' };
  let at = Date.parse(m.deletionTimestamp) - (current - asked) * 1000;
  let grace = asked;
  if (at < now.getTime()) {
    // The whole grace has passed: still graceful (grace 1) unless 0 was asked.
    at = now.getTime();
    if (grace !== 0) grace = 1;
  }
  return { kind: 'mark', deletionTimestamp: formatTime(new Date(at)), grace, firstMark: false };
}

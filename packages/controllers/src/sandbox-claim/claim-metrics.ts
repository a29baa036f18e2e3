// Readiness metrics of a claim (spec §19.1): on the authoritative pass where Ready turns True
// and the claim lacks `claim-first-ready-at`, observe the four latencies and stamp the
// annotation (so a retry or restart never records twice); a claim already Ready without it gets
// `unknown`.
import { Annotations, Labels } from '@agent-sandbox/api';
import { isNotFound, type KubeClient } from '@agent-sandbox/kube';
import { findCondition } from '../sandbox/conditions.ts';
import type { AgentSandboxMetrics } from '../metrics.ts';
import { SANDBOX_CLAIMS, type ClaimObject, type SandboxObj } from '../extensions/resources.ts';
import { isClaimReady } from './claim-status.ts';
import { CLAIM_FIELD_OWNER } from './warm-adopter.ts';

function sinceMs(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  const ms = Math.trunc(now.getTime() - at);
  return ms < 0 ? undefined : ms;
}

export function launchType(sandbox: SandboxObj | undefined): string {
  if (sandbox === undefined) return 'unknown';
  return sandbox.metadata.labels?.[Labels.LaunchType] === 'warm' ? 'warm' : 'cold';
}

/** Records and stamps; resolves to the stamp's write error, if any (the pass then retries). */
export async function recordReadiness(
  client: KubeClient,
  metrics: AgentSandboxMetrics | undefined,
  claim: ClaimObject,
  next: NonNullable<ClaimObject['status']>,
  sandbox: SandboxObj | undefined,
  now: Date,
  signal: AbortSignal,
): Promise<Error | undefined> {
  const annotations = claim.metadata.annotations ?? {};
  if (annotations[Annotations.ClaimFirstReadyAt] !== undefined || !isClaimReady(next))
    return undefined;
  let value = 'unknown';
  if (!isClaimReady(claim.status)) {
    value = now.toISOString();
    const labels = {
      launch_type: launchType(sandbox),
      sandbox_template:
        sandbox?.metadata.annotations?.[Annotations.SandboxTemplateRef] || '__unknown__',
    };
    const observe = (
      h: AgentSandboxMetrics['claimStartupLatency'] | undefined,
      from: string | undefined,
    ): void => {
      const ms = sinceMs(from, now);
      if (h !== undefined && ms !== undefined) h.observe(labels, ms);
    };
    observe(metrics?.claimStartupLatency, annotations[Annotations.WebhookFirstObservedAt]);
    observe(
      metrics?.claimControllerStartupLatency,
      annotations[Annotations.ControllerFirstObservedAt],
    );
    observe(metrics?.clientClaimStartupLatency, annotations[Annotations.ClientFirstRequestedAt]);
    const ready = findCondition(sandbox?.status?.conditions, 'Ready');
    if (
      metrics !== undefined &&
      sandbox !== undefined &&
      ready?.status === 'True' &&
      ready.lastTransitionTime
    ) {
      const ms =
        Date.parse(ready.lastTransitionTime) - Date.parse(sandbox.metadata.creationTimestamp ?? '');
      if (ms >= 0)
        metrics.creationLatency.observe(
          { namespace: claim.metadata.namespace ?? '', ...labels },
          ms,
        );
    }
  }
  try {
    await client.patch(
      SANDBOX_CLAIMS,
      claim.metadata.namespace,
      claim.metadata.name ?? '',
      {
        type: 'merge',
        body: { metadata: { annotations: { [Annotations.ClaimFirstReadyAt]: value } } },
      },
      { fieldManager: CLAIM_FIELD_OWNER, signal },
    );
    return undefined;
  } catch (err: unknown) {
    // A claim deleted after its Ready status was written (a user's kill right after create) has
    // nothing left to stamp: that is the pass's end, not a reconciler error.
    if (isNotFound(err)) return undefined;
    return err instanceof Error ? err : new Error(String(err));
  }
}

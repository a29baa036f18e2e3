// SandboxInfo: what list(), connect() and info() report, computed from the claim and the Sandbox
// without I/O.
import { Annotations, Labels } from '@agent-sandbox/api';
import type { Condition } from '@agent-sandbox/api';
import type { ClaimObject, SandboxObject } from './resources.ts';
import type { SandboxInfo, SandboxState } from './types.ts';
import { SHADOW_POOL_PREFIX } from './objects.ts';

/** Ready reasons of a claim after which it never becomes Ready (upstream SDKs' terminal set). */
export const TERMINAL_CLAIM_REASONS: readonly string[] = [
  'InvalidMetadata',
  'EnvVarsInjectionRejected',
  'VolumeClaimTemplatesError',
  'ClaimExpired',
  'SandboxExpired',
];

export function conditionOf(
  obj: { status?: { conditions?: Condition[] } },
  type: string,
): Condition | undefined {
  return obj.status?.conditions?.find((c) => c.type === type);
}

function sandboxState(s: SandboxObject): Pick<SandboxInfo, 'state' | 'reason' | 'message'> {
  const pick = (state: SandboxState, c?: Condition) => ({
    state,
    reason: c?.reason,
    message: c?.message,
  });
  const ready = conditionOf(s, 'Ready');
  if (s.metadata.deletionTimestamp) return pick('Terminating');
  if (s.spec.operatingMode === 'Suspended') {
    const suspended = conditionOf(s, 'Suspended');
    return pick(suspended?.status === 'True' ? 'Suspended' : 'Suspending', suspended);
  }
  const finished = conditionOf(s, 'Finished');
  if (finished?.status === 'True') return pick('Finished', finished);
  if (ready?.status === 'True') return pick('Running', ready);
  return pick('Pending', ready);
}

const userAnnotations = (a: Record<string, string> | undefined): Record<string, string> =>
  Object.fromEntries(
    Object.entries(a ?? {}).filter(
      ([k]) => !k.startsWith('agents.x-k8s.io/') && k !== Annotations.TraceContext,
    ),
  );

const userLabels = (l: Record<string, string> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(l ?? {}).filter(([k]) => k !== Labels.CreatedBy));

const date = (s: string | undefined): Date | undefined => (s ? new Date(s) : undefined);

export function claimInfo(claim: ClaimObject, sandbox: SandboxObject | undefined): SandboxInfo {
  const pool = claim.spec.warmPoolRef.name;
  const ready = conditionOf(claim, 'Ready');
  let state: Pick<SandboxInfo, 'state' | 'reason' | 'message'>;
  if (claim.metadata.deletionTimestamp)
    state = { state: 'Terminating', reason: undefined, message: undefined };
  else if (ready?.status === 'False' && TERMINAL_CLAIM_REASONS.includes(ready.reason))
    state = { state: 'Failed', reason: ready.reason, message: ready.message };
  else if (sandbox) state = sandboxState(sandbox);
  else state = { state: 'Pending', reason: ready?.reason, message: ready?.message };
  return {
    id: claim.metadata.name ?? '',
    sandboxName: claim.status?.sandbox?.name || undefined,
    claimName: claim.metadata.name,
    namespace: claim.metadata.namespace ?? '',
    ...state,
    warmPool: pool.startsWith(SHADOW_POOL_PREFIX) ? undefined : pool,
    template:
      sandbox?.metadata.annotations?.[Annotations.SandboxTemplateRef] ??
      (pool.startsWith(SHADOW_POOL_PREFIX) ? pool.slice(SHADOW_POOL_PREFIX.length) : undefined),
    image: undefined,
    labels: userLabels(claim.metadata.labels),
    metadata: userAnnotations(claim.metadata.annotations),
    podIPs: sandbox?.status?.podIPs ?? claim.status?.sandbox?.podIPs ?? [],
    createdAt: date(claim.metadata.creationTimestamp),
    expiresAt: date(claim.spec.lifecycle?.shutdownTime),
  };
}

export function standaloneInfo(sandbox: SandboxObject): SandboxInfo {
  return {
    id: sandbox.metadata.name ?? '',
    sandboxName: sandbox.metadata.name,
    claimName: undefined,
    namespace: sandbox.metadata.namespace ?? '',
    ...sandboxState(sandbox),
    warmPool: undefined,
    template: sandbox.metadata.annotations?.[Annotations.SandboxTemplateRef],
    image: sandbox.spec.podTemplate.spec.containers[0]?.image,
    labels: userLabels(sandbox.metadata.labels),
    metadata: userAnnotations(sandbox.metadata.annotations),
    podIPs: sandbox.status?.podIPs ?? [],
    createdAt: date(sandbox.metadata.creationTimestamp),
    expiresAt: date(sandbox.spec.shutdownTime),
  };
}

/** The controller reference of a Sandbox, when a claim or pool owns it. */
export function ownerKind(sandbox: SandboxObject): string | undefined {
  return sandbox.metadata.ownerReferences?.find((r) => r.controller === true)?.kind;
}

/** Equality label selector, e.g. `team=a,env=dev` (values are checked to be label values). */
export function labelSelector(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

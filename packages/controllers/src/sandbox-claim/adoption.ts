// Warm adoption as data (spec §12.4.1–12.4.2): which queued Sandbox a claim may take, and the
// locked merge patch that hands it from the pool to the claim (membership and hash labels off,
// launch-type warm, every ownerReference replaced by the claim's controller ref, the pod-name
// annotation, the claim's pod-template metadata).
import { Annotations, Labels, nameHash, type v1beta1 } from '@agent-sandbox/api';
import { mergePatchFrom } from '../extensions/merge-patch.ts';
import {
  controlledByKind,
  extensionsOwnerRef,
  type ClaimObject,
  type SandboxObj,
  type TemplateObject,
} from '../extensions/resources.ts';
import { isSandboxReady } from '../sandbox-warm-pool/plan.ts';
import { desiredPodTemplateMetadata } from './claim-sandbox.ts';
import { withWarmEnv } from './warm-env.ts';

/** Why a Sandbox may not be adopted by the claim, or undefined when it may (verifyCandidate). */
export function candidateProblem(sandbox: SandboxObj, claim: ClaimObject): string | undefined {
  if (sandbox.metadata.namespace !== claim.metadata.namespace) return 'it is in another namespace';
  if (sandbox.metadata.deletionTimestamp !== undefined) return 'it is being deleted';
  const labels = sandbox.metadata.labels ?? {};
  if (labels[Labels.WarmPoolSandbox] === undefined) return 'it has no warm-pool label';
  if (labels[Labels.SandboxTemplateRefHash] === undefined)
    return 'it has no template-ref-hash label';
  const owner = controlledByKind(sandbox, 'SandboxWarmPool');
  if (owner === undefined) return 'it is not controlled by a SandboxWarmPool';
  if (owner.name !== claim.spec.warmPoolRef.name) {
    return `it belongs to SandboxWarmPool "${owner.name}", not "${claim.spec.warmPoolRef.name}"`;
  }
  return undefined;
}

export function hasPodIPs(sandbox: SandboxObj): boolean {
  return (sandbox.status?.podIPs?.length ?? 0) > 0;
}

export { isSandboxReady };

type Adopted = Pick<SandboxObj, 'metadata'> & { spec: Pick<v1beta1.SandboxSpec, 'podTemplate'> };

/** The Sandbox as the claim wants it after adoption (metadata and pod-template metadata only). */
export function adoptedSandbox(
  candidate: SandboxObj,
  claim: ClaimObject,
  template: TemplateObject | undefined,
): Adopted {
  const labels = { ...(candidate.metadata.labels ?? {}) };
  delete labels[Labels.WarmPoolSandbox];
  delete labels[Labels.SandboxPodTemplateHash];
  delete labels[Labels.SandboxTemplateHash];
  labels[Labels.LaunchType] = 'warm';
  labels[Labels.ClaimUid] = claim.metadata.uid ?? '';
  const createdBy = claim.metadata.labels?.[Labels.CreatedBy];
  if (createdBy !== undefined) labels[Labels.CreatedBy] = createdBy;
  else delete labels[Labels.CreatedBy];
  const templateName =
    template?.metadata.name ??
    candidate.metadata.annotations?.[Annotations.SandboxTemplateRef] ??
    '';
  labels[Labels.SandboxTemplateRefHash] ??= nameHash(templateName);
  const annotations = { ...(candidate.metadata.annotations ?? {}) };
  annotations[Annotations.PodName] = candidate.metadata.name ?? '';
  const trace = claim.metadata.annotations?.[Annotations.TraceContext];
  if (trace !== undefined) annotations[Annotations.TraceContext] = trace;

  const current = candidate.spec.podTemplate.metadata ?? {};
  const base =
    template !== undefined
      ? structuredClone(template.spec.podTemplate.metadata ?? {})
      : {
          ...current,
          labels: Object.fromEntries(
            Object.entries(current.labels ?? {}).filter(
              ([k]) =>
                k !== Labels.WarmPoolSandbox &&
                k !== Labels.SandboxPodTemplateHash &&
                k !== Labels.SandboxTemplateHash,
            ),
          ),
        };
  // An explicit "false" from the template survives; the pool's "true" is dropped.
  const evict = current.annotations?.[Annotations.SafeToEvict];
  if (evict !== undefined && evict !== 'true') {
    base.annotations = { ...(base.annotations ?? {}), [Annotations.SafeToEvict]: evict };
  }
  const podMetadata = desiredPodTemplateMetadata(claim, base, templateName);
  const annotated = withWarmEnv(podMetadata.annotations, claim, template);
  if (annotated !== undefined) podMetadata.annotations = annotated;
  // The Sandbox's existing ref hash wins over a recomputed one (§12.4.2).
  podMetadata.labels = {
    ...podMetadata.labels,
    [Labels.SandboxTemplateRefHash]: labels[Labels.SandboxTemplateRefHash] ?? '',
  };
  return {
    metadata: {
      ...candidate.metadata,
      labels,
      annotations,
      ownerReferences: [extensionsOwnerRef(claim, 'SandboxClaim')],
    },
    spec: { podTemplate: { ...candidate.spec.podTemplate, metadata: podMetadata } },
  };
}

/** The locked merge patch of adoption: the diff, guarded by the candidate's resourceVersion. */
export function adoptionPatch(
  candidate: SandboxObj,
  claim: ClaimObject,
  template: TemplateObject | undefined,
): Record<string, unknown> {
  const want = adoptedSandbox(candidate, claim, template);
  const before = {
    metadata: candidate.metadata,
    spec: { podTemplate: candidate.spec.podTemplate },
  };
  const patch =
    mergePatchFrom(
      before as unknown as Record<string, unknown>,
      want as unknown as Record<string, unknown>,
    ) ?? {};
  const metadata = (patch['metadata'] ?? {}) as Record<string, unknown>;
  // A merge patch replaces lists whole: the claim's ref becomes the only ownerReference.
  metadata['ownerReferences'] = want.metadata.ownerReferences;
  metadata['resourceVersion'] = candidate.metadata.resourceVersion;
  patch['metadata'] = metadata;
  return patch;
}

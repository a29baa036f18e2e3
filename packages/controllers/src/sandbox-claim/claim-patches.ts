// The merge-patch bodies of a claim pass (spec §12.2–12.4), pure: the observability stamp, the
// launch-type label, the legacy-label migration, the reference removal, and the bound Sandbox's
// pod-template metadata. Each returns undefined when there is nothing to write.
import { Annotations, Labels } from '@agent-sandbox/api';
import { isDeepStrictEqual } from 'node:util';
import { mergePatchFrom } from '../extensions/merge-patch.ts';
import type {
  ClaimObject,
  PoolObject,
  SandboxObj,
  TemplateObject,
} from '../extensions/resources.ts';
import { ClaimError, reconcilerError, warmPoolNotFound } from './claim-errors.ts';
import type { LaunchType } from './claim-plan.ts';
import { desiredPodTemplateMetadata } from './claim-sandbox.ts';
import { withWarmEnv } from './warm-env.ts';

type MergePatch = Record<string, unknown>;

/**
 * §12.2 step 4: the first-observed annotation this claim still lacks, from the time the manager
 * first saw it (`firstSeenMs`, surviving a pass that failed before writing), else `now`.
 */
export function missingFirstObserved(
  claim: ClaimObject,
  firstSeenMs: number | undefined,
  now: Date,
): Record<string, string> {
  if (claim.metadata.annotations?.[Annotations.ControllerFirstObservedAt] !== undefined) return {};
  return {
    [Annotations.ControllerFirstObservedAt]: new Date(firstSeenMs ?? now.getTime()).toISOString(),
  };
}

/** The pending observability annotations as one merge patch, keys sorted (stable bodies). */
export function stampPatch(stamp: Record<string, string>): MergePatch | undefined {
  if (Object.keys(stamp).length === 0) return undefined;
  const annotations = Object.fromEntries(
    Object.entries(stamp).sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  return { metadata: { annotations } };
}

/** §12.4 step 1: the launch-type label, never overwriting one already there. */
export function launchTypePatch(sandbox: SandboxObj, type: LaunchType): MergePatch | undefined {
  if (sandbox.metadata.labels?.[Labels.LaunchType] !== undefined) return undefined;
  return { metadata: { labels: { [Labels.LaunchType]: type } } };
}

/** §12.4 step 2: the deprecated assignment label moved to the annotation, resourceVersion-locked. */
export function legacyLabelMigration(claim: ClaimObject): MergePatch | undefined {
  const legacy = claim.metadata.labels?.[Labels.SandboxName];
  if (legacy === undefined || claim.metadata.annotations?.[Annotations.SandboxName] !== undefined)
    return undefined;
  return {
    metadata: {
      resourceVersion: claim.metadata.resourceVersion,
      labels: { [Labels.SandboxName]: null },
      annotations: { [Annotations.SandboxName]: legacy },
    },
  };
}

/** Drops the sandbox-name annotation and the legacy label (only those present). */
export function referenceRemovalPatch(claim: ClaimObject): MergePatch {
  const metadata: Record<string, unknown> = {};
  if (claim.metadata.annotations?.[Annotations.SandboxName] !== undefined)
    metadata['annotations'] = { [Annotations.SandboxName]: null };
  if (claim.metadata.labels?.[Labels.SandboxName] !== undefined)
    metadata['labels'] = { [Labels.SandboxName]: null };
  return { metadata };
}

export type BoundMetadataPlan =
  { kind: 'none' } | { kind: 'patch'; body: MergePatch } | { kind: 'fail'; error: ClaimError };

/**
 * §12.3 step 3: template metadata and claim metadata edits reach a bound Sandbox in place. `pool`
 * and `template` are the claim's, from the cache (undefined when missing).
 */
export function planBoundMetadata(
  claim: ClaimObject,
  sandbox: SandboxObj,
  pool: PoolObject | undefined,
  template: TemplateObject | undefined,
): BoundMetadataPlan {
  if (template === undefined) {
    if (claim.spec.additionalPodMetadata === undefined) return { kind: 'none' };
    if (pool === undefined)
      return { kind: 'fail', error: warmPoolNotFound(claim.spec.warmPoolRef.name) };
    return {
      kind: 'fail',
      error: reconcilerError(
        `failed to get template for metadata propagation: SandboxTemplate "${pool.spec.sandboxTemplateRef.name}" not found`,
      ),
    };
  }
  const after = desiredBoundMetadata(claim, sandbox, template);
  const before = {
    metadata: { labels: sandbox.metadata.labels ?? {} },
    spec: { podTemplate: { metadata: sandbox.spec.podTemplate.metadata ?? {} } },
  };
  if (isDeepStrictEqual(JSON.parse(JSON.stringify(before)), JSON.parse(JSON.stringify(after))))
    return { kind: 'none' };
  const body = mergePatchFrom(before, after);
  return body === undefined ? { kind: 'none' } : { kind: 'patch', body };
}

function desiredBoundMetadata(claim: ClaimObject, sandbox: SandboxObj, template: TemplateObject) {
  const name = template.metadata.name ?? '';
  const podMetadata = desiredPodTemplateMetadata(claim, template.spec.podTemplate.metadata, name);
  if (sandbox.metadata.name !== claim.metadata.name) {
    const annotated = withWarmEnv(podMetadata.annotations, claim, template);
    if (annotated !== undefined) podMetadata.annotations = annotated;
  }
  const labels = { ...(sandbox.metadata.labels ?? {}) };
  labels[Labels.SandboxTemplateRefHash] = podMetadata.labels?.[Labels.SandboxTemplateRefHash] ?? '';
  const createdBy = claim.metadata.labels?.[Labels.CreatedBy];
  if (createdBy !== undefined) labels[Labels.CreatedBy] = createdBy;
  else delete labels[Labels.CreatedBy];
  const keepEvict = sandbox.spec.podTemplate.metadata?.annotations?.[Annotations.SafeToEvict];
  if (
    keepEvict !== undefined &&
    keepEvict !== 'true' &&
    podMetadata.annotations?.[Annotations.SafeToEvict] === undefined
  ) {
    podMetadata.annotations = {
      ...(podMetadata.annotations ?? {}),
      [Annotations.SafeToEvict]: keepEvict,
    };
  }
  return { metadata: { labels }, spec: { podTemplate: { metadata: podMetadata } } };
}

// The Pod a Sandbox wants (spec §11.5, §11.5.1, §11.5.2, §9) and the metadata patch for an
// existing Pod. Pure functions: the reconciler sends what they return.
import {
  Annotations,
  EXTENSIONS_GROUP,
  Kinds,
  Labels,
  SYSTEM_PREFIXES,
  nameHash,
  normalizeCreatedBy,
} from '@agent-sandbox/api';
import type { v1beta1 } from '@agent-sandbox/api';
import type { OwnerReference, Pod, Volume } from '@agent-sandbox/kube-types';
import {
  controllerOf,
  groupOf,
  sandboxOwnerReference,
  withControllerReference,
} from './ownership.ts';
import { pvcName } from './desired-pvcs.ts';

type Sandbox = v1beta1.Sandbox;

/** The field manager of every object the Sandbox controller creates (spec §11.4–11.6). */
export const SANDBOX_FIELD_OWNER = 'sandbox-controller';

/** Labels the reconciler computes from the Sandbox's metadata; never user-propagated (§11.5.2). */
const EXTENSION_POD_LABEL_KEYS = [Labels.WarmPoolSandbox, Labels.SandboxTemplateRefHash] as const;

function hasSystemPrefix(key: string): boolean {
  return SYSTEM_PREFIXES.some((prefix) => key.startsWith(prefix));
}

/** A label key a user pod template may not set (spec §9 "System-reserved prefixes"). */
export function isSystemLabel(key: string): boolean {
  return hasSystemPrefix(key);
}

/** An annotation key a user pod template may not set: the prefixes plus the trace context key. */
export function isSystemAnnotation(key: string): boolean {
  return hasSystemPrefix(key) || key === Annotations.TraceContext;
}

/** The two bookkeeping annotations the controller itself keeps on the Pod (never scrubbed). */
function isControllerManagedPodAnnotation(key: string): boolean {
  return key === Annotations.PropagatedLabels || key === Annotations.PropagatedAnnotations;
}

/** The pod-template entries that propagate to the Pod, and their sorted keys (§11.5 step 7). */
function propagated(
  entries: Record<string, string> | undefined,
  isSystem: (key: string) => boolean,
): { values: Record<string, string>; keys: string[] } {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(entries ?? {})) {
    if (!isSystem(key)) values[key] = value;
  }
  // Go sorts with slices.Sort: byte order, not locale order.
  const keys = Object.keys(values).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { values, keys };
}

/**
 * Extension labels copied from the Sandbox's own labels to its Pod (§11.5.2): only when the
 * Sandbox's controller is in `extensions.agents.x-k8s.io` (version ignored); the warm-pool label
 * only for a SandboxWarmPool owner; each only when non-empty on the Sandbox.
 */
export function extensionPodLabels(sandbox: Sandbox): Record<string, string> {
  const ref = controllerOf(sandbox);
  if (ref === undefined || groupOf(ref.apiVersion) !== EXTENSIONS_GROUP) return {};
  const labels = sandbox.metadata.labels ?? {};
  const out: Record<string, string> = {};
  const pool = labels[Labels.WarmPoolSandbox];
  if (ref.kind === Kinds.SandboxWarmPool && pool !== undefined && pool !== '') {
    out[Labels.WarmPoolSandbox] = pool;
  }
  const templateRefHash = labels[Labels.SandboxTemplateRefHash];
  if (templateRefHash !== undefined && templateRefHash !== '') {
    out[Labels.SandboxTemplateRefHash] = templateRefHash;
  }
  return out;
}

/** The normalised `created-by` of the Sandbox's own labels, if it has a non-empty one (§9). */
function podCreatedBy(sandbox: Sandbox): string | undefined {
  const value = sandbox.metadata.labels?.[Labels.CreatedBy];
  return value === undefined || value === '' ? undefined : normalizeCreatedBy(value);
}

/**
 * PVC-backed volumes replace same-named template volumes and are appended at the end
 * (StatefulSet semantics; TestMergeVolumeClaimVolumes).
 */
export function mergeVolumeClaimVolumes(
  existing: readonly Volume[] | undefined,
  pvcVolumes: readonly Volume[],
): Volume[] | undefined {
  if (pvcVolumes.length === 0) return existing === undefined ? undefined : [...existing];
  const names = new Set(pvcVolumes.map((v) => v.name));
  return [...(existing ?? []).filter((v) => !names.has(v.name)), ...pvcVolumes];
}

/** One volume per volumeClaimTemplate: `name = <vct>`, claimName `<vct>-<sandbox>` (§11.5 step 7). */
export function volumeClaimVolumes(sandbox: Sandbox): Volume[] {
  return (sandbox.spec.volumeClaimTemplates ?? []).map((template) => ({
    name: template.metadata?.name ?? '',
    persistentVolumeClaim: { claimName: pvcName(template, sandbox) },
  }));
}

/**
 * The Pod to create for a Sandbox in Running mode with no Pod (§11.5 step 7). It is named after the
 * Sandbox (never the pod-name annotation, which only points at an existing Pod) and carries:
 * user pod-template labels minus system keys, then the tracking label, then the extension labels,
 * then the normalised created-by; user annotations minus system keys plus the propagated-* lists
 * when non-empty; the pod template spec with the PVC volumes merged in; a controller ref.
 */
export function desiredPod(sandbox: Sandbox): Pod {
  const template = sandbox.spec.podTemplate;
  const labels = propagated(template.metadata?.labels, isSystemLabel);
  const annotations = propagated(template.metadata?.annotations, isSystemAnnotation);

  const podLabels: Record<string, string> = { ...labels.values };
  podLabels[Labels.SandboxNameHash] = nameHash(sandbox.metadata.name ?? '');
  Object.assign(podLabels, extensionPodLabels(sandbox));
  const createdBy = podCreatedBy(sandbox);
  if (createdBy !== undefined) podLabels[Labels.CreatedBy] = createdBy;

  const podAnnotations: Record<string, string> = { ...annotations.values };
  if (labels.keys.length > 0) podAnnotations[Annotations.PropagatedLabels] = labels.keys.join(',');
  if (annotations.keys.length > 0) {
    podAnnotations[Annotations.PropagatedAnnotations] = annotations.keys.join(',');
  }

  const spec = structuredClone(template.spec);
  const volumes = mergeVolumeClaimVolumes(spec.volumes, volumeClaimVolumes(sandbox));
  if (volumes !== undefined) spec.volumes = volumes;

  const metadata: Pod['metadata'] = {
    name: sandbox.metadata.name,
    labels: podLabels,
    annotations: podAnnotations,
    ownerReferences: [sandboxOwnerReference(sandbox)],
  };
  if (sandbox.metadata.namespace !== undefined) metadata.namespace = sandbox.metadata.namespace;
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}

/** A JSON merge patch (RFC 7386) of a Pod's metadata; `null` deletes a key. */
export interface PodMetadataPatch {
  metadata: {
    labels?: Record<string, string | null>;
    annotations?: Record<string, string | null>;
    ownerReferences?: OwnerReference[];
  };
}

export interface PodMetadataPatchOptions {
  /** Set the Sandbox as controller (adoption of an unowned, authorised Pod; §11.5 step 6). */
  adopt?: boolean;
}

/**
 * The metadata update for an existing Pod (§11.5.1), as the merge patch client.MergeFrom would
 * compute from the before/after objects; `undefined` when nothing changes. Keys we did not
 * propagate are never touched; keys we propagated earlier (per the Pod's propagated-* annotations)
 * and no longer in the template are deleted; the Pod spec is never updated (§23.5).
 */
export function podMetadataPatch(
  pod: Pod,
  sandbox: Sandbox,
  options: PodMetadataPatchOptions = {},
): PodMetadataPatch | undefined {
  const before = desiredPodMetadataOnExisting(pod, sandbox);
  const patch: PodMetadataPatch = { metadata: {} };
  const labels = mapDiff(pod.metadata?.labels ?? {}, before.labels);
  if (labels !== undefined) patch.metadata.labels = labels;
  const annotations = mapDiff(pod.metadata?.annotations ?? {}, before.annotations);
  if (annotations !== undefined) patch.metadata.annotations = annotations;
  if (options.adopt === true) {
    patch.metadata.ownerReferences = withControllerReference(
      pod.metadata?.ownerReferences,
      sandbox,
    );
  }
  return Object.keys(patch.metadata).length === 0 ? undefined : patch;
}

/** The labels and annotations an existing Pod should end up with (§11.5.1, in upstream's order). */
export function desiredPodMetadataOnExisting(
  pod: Pod,
  sandbox: Sandbox,
): { labels: Record<string, string>; annotations: Record<string, string> } {
  const podLabels: Record<string, string> = { ...(pod.metadata?.labels ?? {}) };
  const podAnnotations: Record<string, string> = { ...(pod.metadata?.annotations ?? {}) };
  const templateLabels = sandbox.spec.podTemplate.metadata?.labels ?? {};
  const templateAnnotations = sandbox.spec.podTemplate.metadata?.annotations ?? {};
  const labels = propagated(templateLabels, isSystemLabel);
  const annotations = propagated(templateAnnotations, isSystemAnnotation);

  podLabels[Labels.SandboxNameHash] = nameHash(sandbox.metadata.name ?? '');
  Object.assign(podLabels, labels.values);
  for (const key of splitKeys(podAnnotations[Annotations.PropagatedLabels])) {
    if (isSystemLabel(key)) {
      // Scrub system keys an older controller recorded as propagated (§11.5.1).
      if (key !== Labels.SandboxNameHash) delete podLabels[key];
    } else if (!Object.hasOwn(templateLabels, key)) {
      delete podLabels[key];
    }
  }
  const extension = extensionPodLabels(sandbox);
  for (const key of EXTENSION_POD_LABEL_KEYS) {
    const value = extension[key];
    if (value !== undefined) podLabels[key] = value;
    else delete podLabels[key];
  }
  const createdBy = podCreatedBy(sandbox);
  if (createdBy !== undefined) podLabels[Labels.CreatedBy] = createdBy;
  else delete podLabels[Labels.CreatedBy];

  Object.assign(podAnnotations, annotations.values);
  for (const key of splitKeys(podAnnotations[Annotations.PropagatedAnnotations])) {
    if (isSystemAnnotation(key)) {
      if (!isControllerManagedPodAnnotation(key)) delete podAnnotations[key];
    } else if (!Object.hasOwn(templateAnnotations, key)) {
      delete podAnnotations[key];
    }
  }
  // Written even when empty, but an absent annotation and "" compare equal (§11.5.1).
  setUnlessEqualAsEmpty(podAnnotations, Annotations.PropagatedLabels, labels.keys.join(','));
  setUnlessEqualAsEmpty(
    podAnnotations,
    Annotations.PropagatedAnnotations,
    annotations.keys.join(','),
  );
  return { labels: podLabels, annotations: podAnnotations };
}

function setUnlessEqualAsEmpty(map: Record<string, string>, key: string, value: string): void {
  if ((map[key] ?? '') !== value) map[key] = value;
}

function splitKeys(list: string | undefined): string[] {
  return list === undefined || list === '' ? [] : list.split(',').filter((key) => key !== '');
}

/** The merge-patch entries turning `before` into `after`, or undefined when they are equal. */
function mapDiff(
  before: Record<string, string>,
  after: Record<string, string>,
): Record<string, string | null> | undefined {
  const diff: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(after)) {
    if (before[key] !== value) diff[key] = value;
  }
  for (const key of Object.keys(before)) {
    if (!Object.hasOwn(after, key)) diff[key] = null;
  }
  return Object.keys(diff).length === 0 ? undefined : diff;
}

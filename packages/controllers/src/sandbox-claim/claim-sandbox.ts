// What a claim puts on its Sandbox (spec §12.3, §12.6, §12.8): the pod-template metadata
// (template metadata + claim-uid + template-ref-hash + created-by + additionalPodMetadata under
// the no-override rule), the env injection and volumeClaimTemplates policies with upstream's
// exact messages, and the cold Sandbox itself.
import {
  Annotations,
  Labels,
  checkAdditionalPodMetadata,
  nameHash,
  type PersistentVolumeClaimTemplate,
  type v1beta1,
} from '@agent-sandbox/api';
import type { Container, EnvVar } from '@agent-sandbox/kube-types';
import { templateBlueprint, withSecureDefaults } from '../extensions/blueprint.ts';
import {
  extensionsOwnerRef,
  type ClaimObject,
  type SandboxObj,
  type TemplateObject,
} from '../extensions/resources.ts';
import { ClaimError, reconcilerError } from './claim-errors.ts';

type PodMetadata = { labels?: Record<string, string>; annotations?: Record<string, string> };
type Vct = PersistentVolumeClaimTemplate;

/** additionalPodMetadata validation (§12.6); the first violation as InvalidMetadata. */
export function validateAdditionalPodMetadata(
  claim: ClaimObject,
  allowedLabelDomains: readonly string[],
): ClaimError | undefined {
  const meta = claim.spec.additionalPodMetadata;
  if (meta === undefined) return undefined;
  const [first] = checkAdditionalPodMetadata(meta, allowedLabelDomains);
  return first === undefined
    ? undefined
    : new ClaimError('InvalidMetadata', `invalid additionalPodMetadata: ${first.message}`);
}

function mergeNoOverride(
  kind: 'label' | 'annotation',
  base: Record<string, string>,
  extra: Record<string, string> | undefined,
): Record<string, string> {
  const out = { ...base };
  for (const [k, v] of Object.entries(extra ?? {})) {
    const have = out[k];
    if (have !== undefined && have !== v) {
      throw reconcilerError(
        `metadata override conflict: ${kind} "${k}" is defined in template with value "${have}", but claim requests "${v}"`,
      );
    }
    out[k] = v;
  }
  return out;
}

/**
 * The Sandbox pod-template metadata a claim wants (§12.3 step 3); `base` is the template's pod
 * metadata (or the sandbox's current one when the template is unavailable).
 */
export function desiredPodTemplateMetadata(
  claim: ClaimObject,
  base: PodMetadata | undefined,
  templateName: string,
): PodMetadata {
  const labels: Record<string, string> = {
    ...(base?.labels ?? {}),
    [Labels.ClaimUid]: claim.metadata.uid ?? '',
    [Labels.SandboxTemplateRefHash]: nameHash(templateName),
  };
  const createdBy = claim.metadata.labels?.[Labels.CreatedBy];
  if (createdBy !== undefined) labels[Labels.CreatedBy] = createdBy;
  else delete labels[Labels.CreatedBy];
  const extra = claim.spec.additionalPodMetadata;
  const out: PodMetadata = { labels: mergeNoOverride('label', labels, extra?.labels) };
  const annotations = mergeNoOverride('annotation', base?.annotations ?? {}, extra?.annotations);
  if (Object.keys(annotations).length > 0) out.annotations = annotations;
  return out;
}

function validateVcts(list: readonly Vct[]): string | undefined {
  const seen = new Set<string>();
  for (const [i, t] of list.entries()) {
    const name = t.metadata?.name ?? '';
    if (name === '') return `invalid volume claim templates: name at index ${i} is empty`;
    if (seen.has(name)) return `invalid volume claim templates: duplicate name "${name}"`;
    seen.add(name);
  }
  return undefined;
}

/** The volumeClaimTemplates of a cold Sandbox under the template's policy (§12.8). */
export function mergeVolumeClaimTemplates(
  claim: ClaimObject,
  template: TemplateObject,
): Vct[] | undefined {
  const fromTemplate = template.spec.volumeClaimTemplates ?? [];
  const fromClaim = claim.spec.volumeClaimTemplates ?? [];
  const fail = (m: string): ClaimError => new ClaimError('VolumeClaimTemplatesError', m);
  if (fromClaim.length === 0) {
    const bad = validateVcts(fromTemplate);
    if (bad !== undefined) throw fail(`invalid volume claim templates in template: ${bad}`);
    return template.spec.volumeClaimTemplates === undefined
      ? undefined
      : structuredClone(fromTemplate);
  }
  const prefix = 'failed to merge volume claim templates';
  const badTemplate = validateVcts(fromTemplate);
  if (badTemplate !== undefined) throw fail(`${prefix}: template: ${badTemplate}`);
  const badClaim = validateVcts(fromClaim);
  if (badClaim !== undefined) throw fail(`${prefix}: claim: ${badClaim}`);
  const policy = template.spec.volumeClaimTemplatesPolicy ?? 'Disallowed';
  if (policy === 'Disallowed')
    throw fail(`${prefix}: volume claim templates are disallowed by the template`);
  const templateNames = new Set(fromTemplate.map((t) => t.metadata?.name));
  if (policy === 'Allowed') {
    const clash = fromClaim.find((c) => templateNames.has(c.metadata?.name));
    if (clash !== undefined) {
      throw fail(
        `${prefix}: overriding volume claim templates is forbidden by the template: cannot override template volume "${clash.metadata?.name ?? ''}"`,
      );
    }
    return structuredClone([...fromTemplate, ...fromClaim]);
  }
  const byName = new Map(fromClaim.map((c) => [c.metadata?.name, c]));
  const merged = fromTemplate.map((t) => byName.get(t.metadata?.name) ?? t);
  for (const c of fromClaim) if (!templateNames.has(c.metadata?.name)) merged.push(c);
  return structuredClone(merged);
}

function rejected(detail: string): ClaimError {
  return new ClaimError(
    'EnvVarsInjectionRejected',
    `environment variable injection rejected: ${detail}`,
  );
}

/** Applies claim `spec.env` to the pod spec under the template's policy (§12.8). */
export function injectEnv(
  spec: v1beta1.SandboxSpec['podTemplate']['spec'],
  claim: ClaimObject,
  template: TemplateObject,
): void {
  const env = claim.spec.env ?? [];
  if (env.length === 0) return;
  const policy = template.spec.envVarsInjectionPolicy ?? 'Disallowed';
  if (policy !== 'Allowed' && policy !== 'Overrides') {
    throw rejected('environment variable injection is not allowed by the template policy');
  }
  const checked = new Set<Container>();
  for (const v of env) {
    const target = v.containerName
      ? [...spec.containers, ...(spec.initContainers ?? [])].find((c) => c.name === v.containerName)
      : spec.containers[0];
    if (target === undefined) {
      throw reconcilerError(
        `target container "${v.containerName ?? ''}" not found in template for environment variable "${v.name}"`,
      );
    }
    if (policy === 'Allowed' && !checked.has(target)) {
      checked.add(target);
      if ((target.envFrom ?? []).length > 0) {
        throw rejected(
          `container "${target.name}" uses EnvFrom sources; Allowed policy cannot safely prevent overriding EnvFrom-provided variables`,
        );
      }
    }
    const list: EnvVar[] = (target.env ??= []);
    const i = list.findIndex((e) => e.name === v.name);
    if (i < 0) list.push({ name: v.name, value: v.value });
    else if (policy === 'Overrides') list[i] = { name: v.name, value: v.value };
    else {
      throw reconcilerError(
        `environment variable override is not allowed by the template policy for variable "${v.name}"`,
      );
    }
  }
}

/** The cold Sandbox of a claim (§12.8): named like the claim, controlled by it. */
export function coldSandbox(claim: ClaimObject, template: TemplateObject): SandboxObj {
  const templateName = template.metadata.name ?? '';
  const blueprint = templateBlueprint(template);
  const vcts = mergeVolumeClaimTemplates(claim, template);
  const podSpec = withSecureDefaults(blueprint.podTemplate.spec, template);
  injectEnv(podSpec, claim, template);
  const labels: Record<string, string> = {
    [Labels.ClaimUid]: claim.metadata.uid ?? '',
    [Labels.LaunchType]: 'cold',
    [Labels.SandboxTemplateRefHash]: nameHash(templateName),
  };
  const createdBy = claim.metadata.labels?.[Labels.CreatedBy];
  if (createdBy !== undefined) labels[Labels.CreatedBy] = createdBy;
  const annotations: Record<string, string> = { [Annotations.SandboxTemplateRef]: templateName };
  const trace = claim.metadata.annotations?.[Annotations.TraceContext];
  if (trace !== undefined) annotations[Annotations.TraceContext] = trace;
  const rest = { ...blueprint };
  delete rest.volumeClaimTemplates;
  return {
    apiVersion: 'agents.x-k8s.io/v1beta1',
    kind: 'Sandbox',
    metadata: {
      name: claim.metadata.name ?? '',
      namespace: claim.metadata.namespace ?? '',
      labels,
      annotations,
      ownerReferences: [extensionsOwnerRef(claim, 'SandboxClaim')],
    },
    spec: {
      ...rest,
      ...(vcts !== undefined ? { volumeClaimTemplates: vcts } : {}),
      podTemplate: {
        metadata: desiredPodTemplateMetadata(claim, blueprint.podTemplate.metadata, templateName),
        spec: podSpec,
      },
    },
  };
}

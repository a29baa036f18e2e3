// Checks our kinds need beyond their CRD schemas: what upstream's controllers would otherwise
// reject later through a status condition (spec §12.6, §12.8), reported at the door instead.
import type { FieldIssue } from '@agent-sandbox/crd-schema';
import {
  duplicate,
  invalid,
  isDNS1123Subdomain,
  isEnvVarName,
  required,
} from '@agent-sandbox/crd-schema';
import type { KindName } from '../groups.ts';

import { checkAdditionalPodMetadata } from './pod-metadata-policy.ts';

export interface SemanticOptions {
  /** Label domains a claim's additionalPodMetadata may use (controller config; default sandbox.users.io). */
  allowedLabelDomains?: readonly string[];
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function checkContainers(spec: Obj, issues: FieldIssue[]): void {
  const podTemplate = spec['podTemplate'];
  if (!isObj(podTemplate) || !isObj(podTemplate['spec'])) return;
  const containers = podTemplate['spec']['containers'];
  if (Array.isArray(containers) && containers.length === 0) {
    issues.push(
      required('spec.podTemplate.spec.containers', 'a sandbox needs at least one container'),
    );
  }
}

function checkVolumeClaimTemplates(spec: Obj, issues: FieldIssue[]): void {
  const seen = new Set<string>();
  list(spec['volumeClaimTemplates']).forEach((vct, i) => {
    const field = `spec.volumeClaimTemplates[${i}].metadata.name`;
    const name = isObj(vct) && isObj(vct['metadata']) ? vct['metadata']['name'] : undefined;
    if (typeof name !== 'string' || name === '') {
      issues.push(
        required(
          field,
          'each volume claim template needs a name; the Pod mounts it through a volume of that name',
        ),
      );
      return;
    }
    for (const msg of isDNS1123Subdomain(name)) issues.push(invalid(field, name, msg));
    if (seen.has(name)) issues.push(duplicate(field, name));
    seen.add(name);
  });
}

function checkClaimEnv(spec: Obj, issues: FieldIssue[]): void {
  const seen = new Set<string>();
  list(spec['env']).forEach((entry, i) => {
    if (!isObj(entry) || typeof entry['name'] !== 'string') return;
    const name = entry['name'];
    const field = `spec.env[${i}].name`;
    if (name === '') issues.push(required(field, 'an environment variable needs a name'));
    for (const msg of isEnvVarName(name)) issues.push(invalid(field, name, msg));
    const key = `${String(entry['containerName'] ?? '')}\u0000${name}`;
    if (seen.has(key)) issues.push(duplicate(field, name));
    seen.add(key);
  });
}

function checkAdditionalPodMetadataField(
  spec: Obj,
  issues: FieldIssue[],
  options: SemanticOptions,
): void {
  const meta = spec['additionalPodMetadata'];
  if (!isObj(meta)) return;
  const violations = checkAdditionalPodMetadata(
    meta as { labels?: Record<string, string>; annotations?: Record<string, string> },
    options.allowedLabelDomains,
  );
  for (const v of violations) {
    const field = `spec.additionalPodMetadata.${v.kind === 'label' ? 'labels' : 'annotations'}[${v.key}]`;
    issues.push(invalid(field, v.key, v.message));
  }
}

/** Issues for one object that already passed its CRD schema. */
export function semanticIssues(
  kind: KindName,
  object: unknown,
  options: SemanticOptions = {},
): FieldIssue[] {
  const spec = isObj(object) ? object['spec'] : undefined;
  if (!isObj(spec)) return [];
  const issues: FieldIssue[] = [];
  if (kind === 'Sandbox' || kind === 'SandboxTemplate') checkContainers(spec, issues);
  if (kind !== 'SandboxWarmPool') checkVolumeClaimTemplates(spec, issues);
  if (kind === 'SandboxClaim') {
    checkClaimEnv(spec, issues);
    checkAdditionalPodMetadataField(spec, issues, options);
  }
  return issues;
}

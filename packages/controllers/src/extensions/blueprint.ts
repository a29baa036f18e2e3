// The template blueprint as the extension controllers use it (spec §10, §12.8, §13.4): the secure
// pod-spec defaults applied to every sandbox made from a template, the blueprint hash stamped on
// pool members, and the semantic comparison behind staleness (pod spec with secure defaults, VCT
// names and specs in order, the tri-state service field; pod-template metadata ignored).
import { nameHash, type v1beta1 } from '@agent-sandbox/api';
import type { PodSpec } from '@agent-sandbox/kube-types';
import { isDeepStrictEqual } from 'node:util';

type Template = v1beta1.SandboxTemplate;
type Blueprint = Pick<v1beta1.SandboxSpec, 'podTemplate' | 'volumeClaimTemplates' | 'service'>;

/** The public resolvers of the secure DNS default (cluster DNS is blocked by the default policy). */
export const SECURE_DEFAULT_NAMESERVERS = ['8.8.8.8', '1.1.1.1'];

/** Whether the template gets the default secure NetworkPolicy (Managed without custom rules). */
export function usesDefaultNetworkPolicy(template: Template): boolean {
  const management = template.spec.networkPolicyManagement ?? 'Managed';
  return management === 'Managed' && template.spec.networkPolicy === undefined;
}

/**
 * ApplySandboxSecureDefaults: no service-account token unless asked for; under the default
 * secure policy with no dnsPolicy, DNS goes to public resolvers. Returns a new spec.
 */
export function withSecureDefaults(spec: PodSpec, template: Template): PodSpec {
  const out: PodSpec = structuredClone(spec);
  if (out.automountServiceAccountToken === undefined) out.automountServiceAccountToken = false;
  if (usesDefaultNetworkPolicy(template) && !out.dnsPolicy) {
    out.dnsPolicy = 'None';
    out.dnsConfig = { nameservers: [...SECURE_DEFAULT_NAMESERVERS] };
  }
  return out;
}

/** A deep copy of the template's blueprint (podTemplate, volumeClaimTemplates, service). */
export function templateBlueprint(template: Template): Blueprint {
  const { podTemplate, volumeClaimTemplates, service } = structuredClone(template.spec);
  return {
    podTemplate,
    ...(volumeClaimTemplates !== undefined ? { volumeClaimTemplates } : {}),
    ...(service !== undefined ? { service } : {}),
  };
}

/** JSON with object keys sorted, so equal values hash equally. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The blueprint hash (8 hex digits). Not byte-identical to upstream's Go JSON hash; every reader
 * falls back to the semantic comparison when the label differs (spec §10).
 */
export function blueprintHash(template: Template): string {
  return nameHash(stableJson(templateBlueprint(template)));
}

/** The deprecated pod-template hash (informational label). */
export function podTemplateHash(template: Template): string {
  return nameHash(stableJson(template.spec.podTemplate));
}

/** compareSandboxBlueprint: true when the sandbox's spec is what the template would make now. */
export function blueprintMatches(template: Template, sandbox: v1beta1.Sandbox): boolean {
  const want = withSecureDefaults(template.spec.podTemplate.spec, template);
  const have = withSecureDefaults(sandbox.spec.podTemplate.spec, template);
  if (!isDeepStrictEqual(normalize(want), normalize(have))) return false;
  const wantVcts = template.spec.volumeClaimTemplates ?? [];
  const haveVcts = sandbox.spec.volumeClaimTemplates ?? [];
  if (wantVcts.length !== haveVcts.length) return false;
  for (let i = 0; i < wantVcts.length; i++) {
    const a = wantVcts[i];
    const b = haveVcts[i];
    if (a?.metadata?.name !== b?.metadata?.name) return false;
    if (!isDeepStrictEqual(normalize(a?.spec), normalize(b?.spec))) return false;
  }
  return template.spec.service === sandbox.spec.service;
}

/** Drops undefined members so a round trip through JSON compares equal to the original. */
function normalize(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(stableJson(value));
}

// The SandboxTemplate's NetworkPolicy (spec §14) as a decision: the managed policy named
// `<template>-network-policy` (custom rules, or the secure default), deleted when the template
// turns Unmanaged, and never touched when someone else controls an object of that name.
import { Labels, nameHash, type v1beta1 } from '@agent-sandbox/api';
import type { KubeObject, NetworkPolicy, NetworkPolicySpec } from '@agent-sandbox/kube-types';
import { isDeepStrictEqual } from 'node:util';
import { extensionsOwnerRef, isControlledBy } from '../extensions/resources.ts';

type Template = v1beta1.SandboxTemplate & KubeObject;
export type NetworkPolicyObject = NetworkPolicy & KubeObject;

export type NetworkPolicyDecision =
  | { action: 'None' }
  | { action: 'Create'; policy: NetworkPolicyObject }
  | { action: 'Update'; policy: NetworkPolicyObject }
  | { action: 'Delete'; name: string; uid: string }
  | { action: 'Refuse'; error: string };

export function networkPolicyName(template: KubeObject): string {
  return `${template.metadata.name ?? ''}-network-policy`;
}

const PRIVATE_V4 = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16'];
const PRIVATE_V6 = ['fc00::/7', 'fe80::/10'];

/** The managed policy's spec: the template's rules, or the secure default when it has none. */
export function desiredNetworkPolicySpec(template: Template): NetworkPolicySpec {
  const podSelector = {
    matchLabels: { [Labels.SandboxTemplateRefHash]: nameHash(template.metadata.name ?? '') },
  };
  const custom = template.spec.networkPolicy;
  if (custom !== undefined) {
    return {
      podSelector,
      policyTypes: ['Ingress', 'Egress'],
      ...(custom.ingress !== undefined ? { ingress: structuredClone(custom.ingress) } : {}),
      ...(custom.egress !== undefined ? { egress: structuredClone(custom.egress) } : {}),
    };
  }
  return {
    podSelector,
    policyTypes: ['Ingress', 'Egress'],
    ingress: [
      {
        from: [
          {
            namespaceSelector: {
              matchLabels: { 'kubernetes.io/metadata.name': 'agent-sandbox-system' },
            },
            podSelector: { matchLabels: { app: 'sandbox-router' } },
          },
        ],
      },
    ],
    egress: [
      {
        to: [
          { ipBlock: { cidr: '0.0.0.0/0', except: [...PRIVATE_V4] } },
          { ipBlock: { cidr: '::/0', except: [...PRIVATE_V6] } },
        ],
      },
    ],
  };
}

/** What to do about the template's NetworkPolicy given the one observed (if any). */
export function networkPolicyDecision(
  template: Template,
  existing: NetworkPolicyObject | undefined,
): NetworkPolicyDecision {
  const name = networkPolicyName(template);
  const owned = existing !== undefined && isControlledBy(existing, template);
  if (template.spec.networkPolicyManagement === 'Unmanaged') {
    return owned
      ? { action: 'Delete', name, uid: existing.metadata.uid ?? '' }
      : { action: 'None' };
  }
  const spec = desiredNetworkPolicySpec(template);
  if (existing === undefined) {
    return {
      action: 'Create',
      policy: {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: {
          name,
          namespace: template.metadata.namespace ?? '',
          ownerReferences: [extensionsOwnerRef(template, 'SandboxTemplate')],
        },
        spec,
      },
    };
  }
  if (!owned) {
    return {
      action: 'Refuse',
      error: `refusing to update NetworkPolicy "${name}" as it is not controlled by SandboxTemplate "${template.metadata.name ?? ''}"`,
    };
  }
  if (specEqual(existing.spec, spec)) return { action: 'None' };
  return { action: 'Update', policy: { ...existing, spec } };
}

/** Compares after JSON normalisation; the API server's defaults (TCP ports) count as equal. */
function specEqual(a: NetworkPolicySpec | undefined, b: NetworkPolicySpec): boolean {
  return isDeepStrictEqual(withDefaults(a), withDefaults(b));
}

function withDefaults(spec: NetworkPolicySpec | undefined): unknown {
  const copy = JSON.parse(JSON.stringify(spec ?? {})) as NetworkPolicySpec;
  for (const rule of [...(copy.ingress ?? []), ...(copy.egress ?? [])]) {
    for (const port of rule.ports ?? []) port.protocol ??= 'TCP';
  }
  if (copy.podSelector !== undefined && Object.keys(copy.podSelector).length === 0) {
    copy.podSelector = {};
  }
  return copy;
}

/** The template label patch (§14: the template carries its own ref hash), or undefined. */
export function templateLabelPatch(template: Template): Record<string, unknown> | undefined {
  const want = nameHash(template.metadata.name ?? '');
  if (template.metadata.labels?.[Labels.SandboxTemplateRefHash] === want) return undefined;
  return { metadata: { labels: { [Labels.SandboxTemplateRefHash]: want } } };
}

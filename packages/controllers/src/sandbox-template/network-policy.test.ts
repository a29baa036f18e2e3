// Spec §21.4 sandboxtemplate_controller_test.go on the pure decision.
import { describe, expect, it } from 'vitest';
import type { TemplateObject } from '../extensions/resources.ts';
import {
  networkPolicyDecision,
  templateLabelPatch,
  type NetworkPolicyObject,
} from './network-policy.ts';

const template = (spec: Partial<TemplateObject['spec']> = {}): TemplateObject => ({
  metadata: { name: 't', namespace: 'ns', uid: 'tu' },
  spec: { podTemplate: { spec: { containers: [] } }, ...spec },
});
const owned = (t: TemplateObject, spec: NetworkPolicyObject['spec']): NetworkPolicyObject => ({
  metadata: {
    name: 't-network-policy',
    namespace: 'ns',
    uid: 'np',
    ownerReferences: [
      {
        apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
        kind: 'SandboxTemplate',
        name: 't',
        uid: t.metadata.uid ?? '',
        controller: true,
      },
    ],
  },
  spec,
});

describe('networkPolicyDecision', () => {
  it('TestSandboxTemplateReconcile: creates the default secure policy with a controller ref', () => {
    const d = networkPolicyDecision(template(), undefined);
    expect(d.action).toBe('Create');
    if (d.action !== 'Create') return;
    expect(d.policy.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'SandboxTemplate',
      controller: true,
      blockOwnerDeletion: true,
    });
    expect(d.policy.spec?.policyTypes).toEqual(['Ingress', 'Egress']);
  });

  it('TestSandboxTemplateReconcile: unchanged → None, changed → Update', () => {
    const t = template({ networkPolicy: { ingress: [{ ports: [{ port: 80 }] }] } });
    const created = networkPolicyDecision(t, undefined);
    if (created.action !== 'Create') throw new Error('expected Create');
    const withDefaults = structuredClone(created.policy.spec!);
    withDefaults.ingress![0]!.ports![0]!.protocol = 'TCP';
    expect(networkPolicyDecision(t, owned(t, withDefaults)).action).toBe('None');
    expect(networkPolicyDecision(t, owned(t, { podSelector: {} })).action).toBe('Update');
  });

  it('TestSandboxTemplateReconcile: Unmanaged deletes only an owned policy', () => {
    const t = template({ networkPolicyManagement: 'Unmanaged' });
    expect(networkPolicyDecision(t, undefined)).toEqual({ action: 'None' });
    expect(networkPolicyDecision(t, owned(t, {}))).toEqual({
      action: 'Delete',
      name: 't-network-policy',
      uid: 'np',
    });
    const foreign = owned(t, {});
    foreign.metadata.ownerReferences = [];
    expect(networkPolicyDecision(t, foreign)).toEqual({ action: 'None' });
  });

  it('TestSandboxTemplateReconcile: an unowned policy is refused with upstream message', () => {
    const t = template();
    const foreign = owned(t, {});
    foreign.metadata.ownerReferences = [];
    expect(networkPolicyDecision(t, foreign)).toEqual({
      action: 'Refuse',
      error:
        'refusing to update NetworkPolicy "t-network-policy" as it is not controlled by SandboxTemplate "t"',
    });
  });

  it('templateLabelPatch: only when the ref-hash label is missing or wrong', () => {
    const t = template();
    expect(templateLabelPatch(t)).toEqual({
      metadata: { labels: { 'agents.x-k8s.io/sandbox-template-ref-hash': 'f10c3da3' } },
    });
  });
});

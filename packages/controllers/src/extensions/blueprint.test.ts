// Spec §21.4 sandboxwarmpool_controller_test.go on the blueprint: pod-spec normalisation under
// the secure defaults, the compareSandboxBlueprint matrix (VCT order, names, storage class;
// service set vs unset), every blueprint field compared, what triggers a Recreate rollout and what
// does not, and the blueprint hash's sensitivity. Members come from newMember(), so a comparison
// starts from exactly what the pool would create.
import type { v1beta1 } from '@agent-sandbox/api';
import { describe, expect, it } from 'vitest';
import type { SandboxObj, TemplateObject } from './resources.ts';
import { newMember } from '../sandbox-warm-pool/member.ts';
import {
  blueprintHash,
  blueprintMatches,
  podTemplateHash,
  usesDefaultNetworkPolicy,
  withSecureDefaults,
} from './blueprint.ts';

type Vct = NonNullable<v1beta1.SandboxSpec['volumeClaimTemplates']>[number];

function vct(name: string, storage = '1Gi', storageClassName?: string): Vct {
  return {
    metadata: { name },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage } },
      ...(storageClassName !== undefined ? { storageClassName } : {}),
    },
  };
}

function template(spec: Partial<v1beta1.SandboxTemplateSpec> = {}): TemplateObject {
  return {
    metadata: { name: 'tpl', namespace: 'ns' },
    spec: {
      podTemplate: {
        metadata: { labels: { app: 'agent' }, annotations: { note: 'a' } },
        spec: { containers: [{ name: 'main', image: 'busybox' }] },
      },
      ...spec,
    },
  };
}

const pool = {
  metadata: { name: 'p', namespace: 'ns', uid: 'pool-uid' },
  spec: { sandboxTemplateRef: { name: 'tpl' } },
};

/** What the pool would create from `t` today. */
const memberOf = (t: TemplateObject): SandboxObj => newMember(pool, t, { enableEviction: true });

/** `t` after `edit`, as a new object (the template a user edited). */
function edited(t: TemplateObject, edit: (spec: v1beta1.SandboxTemplateSpec) => void) {
  const next = structuredClone(t);
  edit(next.spec);
  return next;
}

describe('withSecureDefaults', () => {
  it('TestApplySandboxSecureDefaults: automount off unless set; public DNS only for Managed without a custom policy and without a dnsPolicy', () => {
    const spec = { containers: [{ name: 'main', image: 'busybox' }] };
    expect(withSecureDefaults(spec, template())).toEqual({
      ...spec,
      automountServiceAccountToken: false,
      dnsPolicy: 'None',
      dnsConfig: { nameservers: ['8.8.8.8', '1.1.1.1'] },
    });
    const custom = template({ networkPolicy: { ingress: [] } });
    expect(withSecureDefaults(spec, custom)).toEqual({
      ...spec,
      automountServiceAccountToken: false,
    });
    const unmanaged = template({ networkPolicyManagement: 'Unmanaged' });
    expect(usesDefaultNetworkPolicy(unmanaged)).toBe(false);
    expect(withSecureDefaults(spec, unmanaged).dnsPolicy).toBeUndefined();
    const explicit = { ...spec, automountServiceAccountToken: true, dnsPolicy: 'ClusterFirst' };
    expect(withSecureDefaults(explicit, template())).toEqual(explicit);
    expect(spec).toEqual({ containers: [{ name: 'main', image: 'busybox' }] }); // not mutated
  });
});

describe('compareSandboxBlueprint (blueprintMatches)', () => {
  it('TestSandboxWarmPoolPodSpecNormalization: automount nil ≡ false, dnsPolicy "" ≡ None under the secure default, real drift detected', () => {
    const t = template();
    const m = memberOf(t);
    expect(blueprintMatches(t, m)).toBe(true);
    const nil = structuredClone(m);
    delete nil.spec.podTemplate.spec.automountServiceAccountToken;
    expect(blueprintMatches(t, nil)).toBe(true);
    const empty = structuredClone(m);
    empty.spec.podTemplate.spec.dnsPolicy = '';
    delete empty.spec.podTemplate.spec.dnsConfig;
    expect(blueprintMatches(t, empty)).toBe(true);
    const drift = structuredClone(m);
    drift.spec.podTemplate.spec.dnsPolicy = 'ClusterFirst';
    delete drift.spec.podTemplate.spec.dnsConfig;
    expect(blueprintMatches(t, drift)).toBe(false);
    const token = structuredClone(m);
    token.spec.podTemplate.spec.automountServiceAccountToken = true;
    expect(blueprintMatches(t, token)).toBe(false);
  });

  it('TestSandboxWarmPoolDNSPolicyTemplateUpdate: a dnsPolicy set on the template makes members with the secure DNS stale', () => {
    const t = template();
    const m = memberOf(t);
    const withDns = edited(t, (s) => {
      s.podTemplate.spec.dnsPolicy = 'ClusterFirst';
    });
    expect(blueprintMatches(withDns, m)).toBe(false);
    expect(blueprintMatches(withDns, memberOf(withDns))).toBe(true);
  });

  it('TestCompareSandboxBlueprint: VCT order, name and storage class matter; VCT metadata does not; service set ≠ unset', () => {
    const t = template({ volumeClaimTemplates: [vct('a'), vct('b')] });
    const m = memberOf(t);
    expect(blueprintMatches(t, m)).toBe(true);
    const swapped = edited(t, (s) => {
      s.volumeClaimTemplates = [vct('b'), vct('a')];
    });
    expect(blueprintMatches(swapped, m)).toBe(false);
    const renamed = edited(t, (s) => {
      s.volumeClaimTemplates = [vct('a'), vct('c')];
    });
    expect(blueprintMatches(renamed, m)).toBe(false);
    const storageClass = edited(t, (s) => {
      s.volumeClaimTemplates = [vct('a'), vct('b', '1Gi', 'fast')];
    });
    expect(blueprintMatches(storageClass, m)).toBe(false);
    const relabelled = edited(t, (s) => {
      s.volumeClaimTemplates = [
        { ...vct('a'), metadata: { name: 'a', labels: { x: 'y' }, annotations: { z: 'w' } } },
        vct('b'),
      ];
    });
    expect(blueprintMatches(relabelled, m)).toBe(true);
    const serviceTrue = edited(t, (s) => {
      s.service = true;
    });
    const serviceFalse = edited(t, (s) => {
      s.service = false;
    });
    expect(blueprintMatches(serviceTrue, m)).toBe(false);
    expect(blueprintMatches(serviceFalse, m)).toBe(false); // unset is not false
    expect(blueprintMatches(serviceFalse, memberOf(serviceFalse))).toBe(true);
  });

  it('TestSandboxWarmPoolRecreateTriggers: image, VCT added/changed/removed and service added are stale', () => {
    const t = template({ volumeClaimTemplates: [vct('data')] });
    const m = memberOf(t);
    const triggers: Record<string, (s: v1beta1.SandboxTemplateSpec) => void> = {
      image: (s) => {
        s.podTemplate.spec.containers[0]!.image = 'busybox:2';
      },
      'VCT added': (s) => {
        s.volumeClaimTemplates = [vct('data'), vct('more')];
      },
      'VCT changed': (s) => {
        s.volumeClaimTemplates = [vct('data', '2Gi')];
      },
      'VCT removed': (s) => {
        delete s.volumeClaimTemplates;
      },
      'service added': (s) => {
        s.service = true;
      },
      'env added': (s) => {
        s.podTemplate.spec.containers[0]!.env = [{ name: 'A', value: '1' }];
      },
      'container added': (s) => {
        s.podTemplate.spec.containers.push({ name: 'side', image: 'busybox' });
      },
    };
    const stale = Object.entries(triggers)
      .filter(([, edit]) => !blueprintMatches(edited(t, edit), m))
      .map(([name]) => name);
    expect(stale).toEqual(Object.keys(triggers));
  });

  it('TestSandboxWarmPoolRecreateNonTriggers: pod-template and VCT label/annotation drift, and an unchanged template, are fresh', () => {
    const t = template({ volumeClaimTemplates: [vct('data')] });
    const m = memberOf(t);
    const nonTriggers: Record<string, (s: v1beta1.SandboxTemplateSpec) => void> = {
      unchanged: () => undefined,
      'pod label': (s) => {
        s.podTemplate.metadata = { ...s.podTemplate.metadata, labels: { app: 'other' } };
      },
      'pod annotation': (s) => {
        s.podTemplate.metadata = { ...s.podTemplate.metadata, annotations: { note: 'b' } };
      },
      'VCT label': (s) => {
        s.volumeClaimTemplates = [
          { ...vct('data'), metadata: { name: 'data', labels: { tier: 'x' } } },
        ];
      },
      'VCT annotation': (s) => {
        s.volumeClaimTemplates = [
          { ...vct('data'), metadata: { name: 'data', annotations: { note: 'x' } } },
        ];
      },
    };
    const stale = Object.entries(nonTriggers)
      .filter(([, edit]) => !blueprintMatches(edited(t, edit), m))
      .map(([name]) => name);
    expect(stale).toEqual([]);
  });

  it('TestCompareSandboxBlueprintAllFields: every pod-spec field is compared', () => {
    const t = template();
    const m = memberOf(t);
    const fields: Record<string, unknown> = {
      nodeSelector: { zone: 'a' },
      runtimeClassName: 'gvisor',
      serviceAccountName: 'agent',
      hostname: 'h',
      priorityClassName: 'high',
      terminationGracePeriodSeconds: 5,
      tolerations: [{ key: 'k', operator: 'Exists' }],
      volumes: [{ name: 'v', emptyDir: {} }],
      securityContext: { runAsNonRoot: true },
      initContainers: [{ name: 'init', image: 'busybox' }],
    };
    const missed = Object.entries(fields)
      .filter(([field, value]) => {
        const next = edited(t, (s) => {
          (s.podTemplate.spec as unknown as Record<string, unknown>)[field] = value;
        });
        return blueprintMatches(next, m);
      })
      .map(([field]) => field);
    expect(missed).toEqual([]);
  });
});

describe('blueprintHash', () => {
  it('TestSandboxTemplateBlueprintHash: stable across key order; changes with pod spec, VCTs and service; not with pod-template metadata', () => {
    const t = template({ volumeClaimTemplates: [vct('data')] });
    const h = blueprintHash(t);
    expect(h).toMatch(/^[0-9a-f]{8}$/);
    const reordered = structuredClone(t);
    reordered.spec = {
      volumeClaimTemplates: t.spec.volumeClaimTemplates,
      podTemplate: { spec: t.spec.podTemplate.spec, metadata: t.spec.podTemplate.metadata },
    } as v1beta1.SandboxTemplateSpec;
    expect(blueprintHash(reordered)).toBe(h);
    const differs = (edit: (s: v1beta1.SandboxTemplateSpec) => void): boolean =>
      blueprintHash(edited(t, edit)) !== h;
    expect(
      differs((s) => {
        s.podTemplate.spec.containers[0]!.image = 'busybox:2';
      }),
    ).toBe(true);
    expect(
      differs((s) => {
        s.volumeClaimTemplates = [vct('data', '2Gi')];
      }),
    ).toBe(true);
    expect(
      differs((s) => {
        s.service = true;
      }),
    ).toBe(true);
    // Outside the blueprint: the network policy settings change no member.
    expect(
      differs((s) => {
        s.networkPolicyManagement = 'Unmanaged';
      }),
    ).toBe(false);
    expect(podTemplateHash(t)).toMatch(/^[0-9a-f]{8}$/);
  });
});

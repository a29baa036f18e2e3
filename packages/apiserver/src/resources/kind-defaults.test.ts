import { describe, expect, it } from 'vitest';
import { defaultBuiltin, preparePvcCreate } from './kind-defaults.ts';

type Json = Record<string, unknown>;

function defaulted(group: string, plural: string, obj: Json): Json {
  const copy = structuredClone(obj);
  defaultBuiltin({ group, plural }, copy);
  return copy;
}

describe('defaultBuiltin', () => {
  it('folds a Secret stringData into data over existing keys and defaults the type', () => {
    const secret = defaulted('', 'secrets', {
      data: { a: 'eA==', b: 'eA==' },
      stringData: { b: 'héllo', c: '' },
    });
    expect(secret).toEqual({
      data: { a: 'eA==', b: Buffer.from('héllo').toString('base64'), c: '' },
      type: 'Opaque',
    });
    expect(defaulted('', 'secrets', { type: 'kubernetes.io/tls' })['type']).toBe(
      'kubernetes.io/tls',
    );
  });

  it('gives a PersistentVolumeClaim volumeMode Filesystem and a Pending phase', () => {
    const pvc: Json = { spec: { accessModes: ['ReadWriteOnce'] }, status: { phase: 'Bound' } };
    preparePvcCreate(pvc);
    expect(defaulted('', 'persistentvolumeclaims', pvc)).toEqual({
      spec: { accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem' },
      status: { phase: 'Pending' },
    });
    const block = { spec: { volumeMode: 'Block' } };
    expect(defaulted('', 'persistentvolumeclaims', block)).toEqual(block);
  });

  it('gives a NetworkPolicy its policy types and TCP ports', () => {
    const np = defaulted('networking.k8s.io', 'networkpolicies', {
      spec: { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }], egress: [{}] },
    });
    expect(np['spec']).toEqual({
      podSelector: {},
      ingress: [{ ports: [{ port: 80, protocol: 'TCP' }] }],
      egress: [{}],
      policyTypes: ['Ingress', 'Egress'],
    });
    const ingressOnly = defaulted('networking.k8s.io', 'networkpolicies', {
      spec: { podSelector: {} },
    });
    expect(ingressOnly['spec']).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });
    const chosen = { spec: { podSelector: {}, policyTypes: ['Egress'] } };
    expect(defaulted('networking.k8s.io', 'networkpolicies', chosen)).toEqual(chosen);
  });

  it('leaves other kinds alone', () => {
    const cm = { data: { a: 'b' } };
    expect(defaulted('', 'configmaps', cm)).toEqual(cm);
  });
});

// §21.2 pod_cache_transform_test.go.
import { describe, expect, it } from 'vitest';
import type { Pod } from '@agent-sandbox/kube-types';
import { podCacheTransform } from './pod-cache-transform.ts';
import { podMetadataPatch } from './desired-pod.ts';
import { sandbox } from '../testing/builders.ts';

const full: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'my-sandbox',
    labels: { a: 'b' },
    annotations: { c: 'd' },
    finalizers: ['x'],
    managedFields: [{ manager: 'kubelet' }],
    ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u' }],
  },
  spec: { nodeName: 'node-a', containers: [{ name: 'main', image: 'busybox' }] },
  status: { phase: 'Running', podIPs: [{ ip: '10.0.0.1' }] },
};

describe('podCacheTransform', () => {
  it('strips managedFields, finalizers and spec except nodeName; keeps metadata and status', () => {
    expect(podCacheTransform(full)).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'my-sandbox',
        labels: { a: 'b' },
        annotations: { c: 'd' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u' }],
      },
      spec: { nodeName: 'node-a' },
      status: { phase: 'Running', podIPs: [{ ip: '10.0.0.1' }] },
    });
    expect(full.metadata?.finalizers).toEqual(['x']);
  });

  it('passes tombstones and other objects through', () => {
    const tombstone = { key: 'default/x', obj: full };
    expect(podCacheTransform(tombstone)).toBe(tombstone);
  });

  it('merge patches are unaffected', () => {
    const s = sandbox();
    expect(podMetadataPatch(podCacheTransform(full), s)).toEqual(podMetadataPatch(full, s));
  });
});

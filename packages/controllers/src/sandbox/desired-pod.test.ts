// §21.1 TestReconcilePod (metadata side), TestMergeVolumeClaimVolumes, and §23.2 / §23.5.
import { describe, expect, it } from 'vitest';
import { nameHash } from '@agent-sandbox/api';
import type { v1beta1 } from '@agent-sandbox/api';
import type { Volume } from '@agent-sandbox/kube-types';
import { SANDBOX_UID, ownerRef, pod, sandbox } from '../testing/builders.ts';
import { desiredPod, mergeVolumeClaimVolumes, podMetadataPatch } from './desired-pod.ts';

const HASH = nameHash('my-sandbox');
const TRACK = 'agents.x-k8s.io/sandbox-name-hash';
const owned = ownerRef(SANDBOX_UID);
const poolOwned = (s: v1beta1.Sandbox) =>
  (s.metadata.ownerReferences = [ownerRef('pool-uid', 'SandboxWarmPool', 'pool')]);
const claimOwned = (s: v1beta1.Sandbox) =>
  (s.metadata.ownerReferences = [ownerRef('claim-uid', 'SandboxClaim', 'claim')]);
const withTemplateMeta =
  (labels: Record<string, string>, annotations: Record<string, string> = {}) =>
  (s: v1beta1.Sandbox) =>
    (s.spec.podTemplate.metadata = { labels, annotations });

describe('desiredPod', () => {
  it('minimal spec: tracking label, controller ref, name = sandbox name, spec from the template', () => {
    const p = desiredPod(sandbox());
    expect(p.metadata?.name).toBe('my-sandbox');
    expect(p.metadata?.namespace).toBe('default');
    expect(p.metadata?.labels).toEqual({ [TRACK]: HASH });
    expect(p.metadata?.annotations).toEqual({});
    expect(p.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'agents.x-k8s.io/v1beta1',
        kind: 'Sandbox',
        name: 'my-sandbox',
        uid: SANDBOX_UID,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(p.spec?.containers).toEqual([{ name: 'main', image: 'busybox' }]);
  });

  it('is named after the sandbox even when the pod-name annotation points elsewhere', () => {
    const s = sandbox(
      'my-sandbox',
      (x) => (x.metadata.annotations = { 'agents.x-k8s.io/pod-name': 'warm-1' }),
    );
    expect(desiredPod(s).metadata?.name).toBe('my-sandbox');
  });

  it('drops user-supplied system-reserved labels/annotations and records propagated keys sorted', () => {
    const s = sandbox(
      'my-sandbox',
      withTemplateMeta(
        {
          b: '2',
          a: '1',
          'agents.x-k8s.io/claim-uid': 'x',
          [TRACK]: 'spoofed',
          'extensions.agents.x-k8s.io/x': 'y',
        },
        { note: 'n', 'opentelemetry.io/trace-context': '{}', 'agents.x-k8s.io/pod-name': 'p' },
      ),
    );
    const p = desiredPod(s);
    expect(p.metadata?.labels).toEqual({ a: '1', b: '2', [TRACK]: HASH });
    expect(p.metadata?.annotations).toEqual({
      note: 'n',
      'agents.x-k8s.io/propagated-labels': 'a,b',
      'agents.x-k8s.io/propagated-annotations': 'note',
    });
  });

  it('system labels on Sandbox metadata are not propagated; template-ref-hash not taken unless extensions-owned', () => {
    const s = sandbox('my-sandbox', (x) => {
      x.metadata.labels = {
        'agents.x-k8s.io/sandbox-template-ref-hash': 'abc',
        'agents.x-k8s.io/warm-pool-sandbox': 'pool',
        'agents.x-k8s.io/claim-uid': 'u',
      };
    });
    expect(desiredPod(s).metadata?.labels).toEqual({ [TRACK]: HASH });
  });

  it('warm-pool label propagated when owned by SandboxWarmPool, with template-ref-hash', () => {
    const s = sandbox('my-sandbox', (x) => {
      poolOwned(x);
      x.metadata.labels = {
        'agents.x-k8s.io/warm-pool-sandbox': nameHash('pool'),
        'agents.x-k8s.io/sandbox-template-ref-hash': nameHash('test-template'),
      };
    });
    expect(desiredPod(s).metadata?.labels).toEqual({
      [TRACK]: HASH,
      'agents.x-k8s.io/warm-pool-sandbox': '91dd7983',
      'agents.x-k8s.io/sandbox-template-ref-hash': '69155462',
    });
  });

  it('claim-owned: template-ref-hash propagated, warm-pool label not', () => {
    const s = sandbox('my-sandbox', (x) => {
      claimOwned(x);
      x.metadata.labels = {
        'agents.x-k8s.io/warm-pool-sandbox': 'p',
        'agents.x-k8s.io/sandbox-template-ref-hash': 't',
      };
    });
    expect(desiredPod(s).metadata?.labels).toEqual({
      [TRACK]: HASH,
      'agents.x-k8s.io/sandbox-template-ref-hash': 't',
    });
  });

  it.each([
    ['go-client', 'go-client'],
    ['python-client', 'python-client'],
    ['controller', 'controller'],
    ['my-own-tool', 'unknown'],
  ])('created-by %s propagated normalised as %s', (value, want) => {
    const s = sandbox(
      'my-sandbox',
      (x) => (x.metadata.labels = { 'agents.x-k8s.io/created-by': value }),
    );
    expect(desiredPod(s).metadata?.labels?.['agents.x-k8s.io/created-by']).toBe(want);
  });

  it('PVC volumes replace same-named template volumes and are appended', () => {
    const s = sandbox('my-sandbox', (x) => {
      x.spec.podTemplate.spec.volumes = [
        { name: 'data', emptyDir: {} },
        { name: 'cache', emptyDir: {} },
      ];
      x.spec.volumeClaimTemplates = [
        { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } },
      ];
    });
    expect(desiredPod(s).spec?.volumes).toEqual([
      { name: 'cache', emptyDir: {} },
      { name: 'data', persistentVolumeClaim: { claimName: 'data-my-sandbox' } },
    ]);
    // The Sandbox's own template is not mutated.
    expect(s.spec.podTemplate.spec.volumes).toHaveLength(2);
  });
});

describe('TestMergeVolumeClaimVolumes', () => {
  const pvc = (name: string): Volume => ({
    name,
    persistentVolumeClaim: { claimName: `${name}-sb` },
  });
  it.each([
    ['replace conflicting', [{ name: 'a', emptyDir: {} }], [pvc('a')], [pvc('a')]],
    ['append', [{ name: 'a', emptyDir: {} }], [pvc('b')], [{ name: 'a', emptyDir: {} }, pvc('b')]],
    ['no-op', [{ name: 'a', emptyDir: {} }], [], [{ name: 'a', emptyDir: {} }]],
  ] as const)('%s', (_name, existing, pvcs, want) => {
    expect(mergeVolumeClaimVolumes([...existing], [...pvcs])).toEqual(want);
  });
});

describe('podMetadataPatch (TestReconcilePod, §11.5.1)', () => {
  it('existing pod gets label + owner ref on adoption; adoption persists owner ref even when labels already match', () => {
    const s = sandbox();
    const p = pod('my-sandbox', { labels: { [TRACK]: HASH } });
    expect(podMetadataPatch(p, s)).toEqual(undefined);
    expect(podMetadataPatch(p, s, { adopt: true })).toEqual({
      metadata: {
        ownerReferences: [
          expect.objectContaining({ uid: SANDBOX_UID, controller: true, blockOwnerDeletion: true }),
        ],
      },
    });
    expect(podMetadataPatch(pod('my-sandbox', { labels: { [TRACK]: 'stale' } }), s)).toEqual({
      metadata: { labels: { [TRACK]: HASH } },
    });
  });

  it('adds and updates propagated keys, never touches keys we did not propagate', () => {
    const s = sandbox('my-sandbox', withTemplateMeta({ team: 'a', tier: 'new' }, { note: 'x' }));
    const p = pod('my-sandbox', {
      owner: owned,
      labels: { [TRACK]: HASH, tier: 'old', 'user-added': 'keep' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': 'keep' },
    });
    expect(podMetadataPatch(p, s)).toEqual({
      metadata: {
        labels: { team: 'a', tier: 'new' },
        annotations: {
          note: 'x',
          'agents.x-k8s.io/propagated-labels': 'team,tier',
          'agents.x-k8s.io/propagated-annotations': 'note',
        },
      },
    });
  });

  it('removed template label/annotation deleted from pod', () => {
    const s = sandbox('my-sandbox', withTemplateMeta({ keep: '1' }, {}));
    const p = pod('my-sandbox', {
      owner: owned,
      labels: { [TRACK]: HASH, keep: '1', gone: 'x', foreign: 'y' },
      annotations: {
        gone: 'a',
        foreign: 'b',
        'agents.x-k8s.io/propagated-labels': 'gone,keep',
        'agents.x-k8s.io/propagated-annotations': 'gone',
      },
    });
    expect(podMetadataPatch(p, s)).toEqual({
      metadata: {
        labels: { gone: null },
        annotations: {
          gone: null,
          'agents.x-k8s.io/propagated-labels': 'keep',
          'agents.x-k8s.io/propagated-annotations': '',
        },
      },
    });
  });

  it('an absent propagated-* annotation and "" compare equal: no write for that alone', () => {
    const p = pod('my-sandbox', { owner: owned, labels: { [TRACK]: HASH } });
    expect(podMetadataPatch(p, sandbox())).toBeUndefined();
  });

  it('scrubs stale system keys recorded by older controllers, keeping the tracking label and the bookkeeping keys', () => {
    const p = pod('my-sandbox', {
      owner: owned,
      labels: { [TRACK]: HASH, 'agents.x-k8s.io/claim-uid': 'u' },
      annotations: {
        'agents.x-k8s.io/propagated-labels': `${TRACK},agents.x-k8s.io/claim-uid`,
        'agents.x-k8s.io/propagated-annotations':
          'agents.x-k8s.io/propagated-labels,opentelemetry.io/trace-context',
        'opentelemetry.io/trace-context': '{}',
      },
    });
    expect(podMetadataPatch(p, sandbox())).toEqual({
      metadata: {
        labels: { 'agents.x-k8s.io/claim-uid': null },
        annotations: {
          'opentelemetry.io/trace-context': null,
          'agents.x-k8s.io/propagated-labels': '',
          'agents.x-k8s.io/propagated-annotations': '',
        },
      },
    });
  });

  it('warm-pool label added to existing pod when pool-owned, removed when not', () => {
    const poolSandbox = sandbox('my-sandbox', (x) => {
      poolOwned(x);
      x.metadata.labels = { 'agents.x-k8s.io/warm-pool-sandbox': 'p1' };
    });
    const p = pod('my-sandbox', { owner: owned, labels: { [TRACK]: HASH } });
    expect(podMetadataPatch(p, poolSandbox)?.metadata.labels).toEqual({
      'agents.x-k8s.io/warm-pool-sandbox': 'p1',
    });
    const adopted = sandbox(
      'my-sandbox',
      (x) => (x.metadata.labels = { 'agents.x-k8s.io/warm-pool-sandbox': 'p1' }),
    );
    const pooled = pod('my-sandbox', {
      owner: owned,
      labels: { [TRACK]: HASH, 'agents.x-k8s.io/warm-pool-sandbox': 'p1' },
    });
    expect(podMetadataPatch(pooled, adopted)?.metadata.labels).toEqual({
      'agents.x-k8s.io/warm-pool-sandbox': null,
    });
  });

  it('template-ref-hash propagated to existing pods, coexists with warm-pool label, removed when not extensions-owned', () => {
    const labels = {
      'agents.x-k8s.io/warm-pool-sandbox': 'p1',
      'agents.x-k8s.io/sandbox-template-ref-hash': 't1',
    };
    const pooled = sandbox('my-sandbox', (x) => {
      poolOwned(x);
      x.metadata.labels = labels;
    });
    const p = pod('my-sandbox', { owner: owned, labels: { [TRACK]: HASH } });
    expect(podMetadataPatch(p, pooled)?.metadata.labels).toEqual(labels);
    const unowned = sandbox('my-sandbox', (x) => (x.metadata.labels = labels));
    const labelled = pod('my-sandbox', { owner: owned, labels: { [TRACK]: HASH, ...labels } });
    expect(podMetadataPatch(labelled, unowned)?.metadata.labels).toEqual({
      'agents.x-k8s.io/warm-pool-sandbox': null,
      'agents.x-k8s.io/sandbox-template-ref-hash': null,
    });
  });

  it('created-by updated on existing pod, removed when the Sandbox lacks it', () => {
    const s = sandbox(
      'my-sandbox',
      (x) => (x.metadata.labels = { 'agents.x-k8s.io/created-by': 'bogus' }),
    );
    const p = pod('my-sandbox', {
      owner: owned,
      labels: { [TRACK]: HASH, 'agents.x-k8s.io/created-by': 'go-client' },
    });
    expect(podMetadataPatch(p, s)?.metadata.labels).toEqual({
      'agents.x-k8s.io/created-by': 'unknown',
    });
    expect(podMetadataPatch(p, sandbox())?.metadata.labels).toEqual({
      'agents.x-k8s.io/created-by': null,
    });
  });

  it('never carries a spec change (§23.5)', () => {
    const s = sandbox(
      'my-sandbox',
      (x) => (x.spec.podTemplate.spec.containers = [{ name: 'main', image: 'python' }]),
    );
    const p = pod('my-sandbox', { owner: owned, labels: { [TRACK]: HASH } });
    expect(podMetadataPatch(p, s)).toBeUndefined();
  });

  it('desiredPod then podMetadataPatch is a fixed point (second pass write-free)', () => {
    const s = sandbox('my-sandbox', (x) => {
      withTemplateMeta({ a: '1' }, { b: '2' })(x);
      x.metadata.labels = { 'agents.x-k8s.io/created-by': 'python-client' };
    });
    expect(podMetadataPatch(desiredPod(s), s)).toBeUndefined();
  });
});

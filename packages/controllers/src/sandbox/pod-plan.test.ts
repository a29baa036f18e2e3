// §21.1 TestReconcilePod (pod selection, adoption, suspend) and the TestReconcilePod* named tests.
import { describe, expect, it } from 'vitest';
import { nameHash } from '@agent-sandbox/api';
import type { v1beta1 } from '@agent-sandbox/api';
import type { Pod } from '@agent-sandbox/kube-types';
import { SANDBOX_UID, ownerRef, pod, sandbox } from '../testing/builders.ts';
import { planPod, podNameAnnotationPatch, type PodPlan } from './pod-plan.ts';

const TRACK = 'agents.x-k8s.io/sandbox-name-hash';
const HASH = nameHash('my-sandbox');
const owned = ownerRef(SANDBOX_UID);
const foreign = ownerRef('claim-uid', 'SandboxClaim', 'other-claim');
const mine = (name: string, extra: Partial<Parameters<typeof pod>[1]> = {}) =>
  pod(name, { owner: owned, labels: { [TRACK]: HASH }, ...extra });
const annotated = (value: string, mutate: (s: v1beta1.Sandbox) => void = () => undefined) =>
  sandbox('my-sandbox', (s) => {
    s.metadata.annotations = { 'agents.x-k8s.io/pod-name': value };
    mutate(s);
  });
const suspend = (s: v1beta1.Sandbox) => (s.spec.operatingMode = 'Suspended');
const plan = (s: v1beta1.Sandbox, fetchedPod?: Pod, indexedPods: Pod[] = []) =>
  planPod(s, { indexedPods, fetchedPod });
const summary = (p: PodPlan) => ({
  write: p.write.action,
  annotation: p.podNameAnnotation,
  owned: p.podOwned,
  error: p.error?.message,
});

describe('TestReconcilePod', () => {
  it('creates a new pod and records the pod-name annotation', () => {
    const p = plan(sandbox());
    expect(summary(p)).toEqual({
      write: 'Create',
      annotation: { action: 'Set', value: 'my-sandbox' },
      owned: true,
      error: undefined,
    });
    expect(p.write.action === 'Create' && p.write.pod.metadata?.labels?.[TRACK]).toBe(HASH);
  });

  it('existing owned pod in sync: no write (second pass write-free)', () => {
    const s = annotated('my-sandbox');
    const p = mine('my-sandbox');
    expect(summary(plan(s, p, [p]))).toEqual({
      write: 'None',
      annotation: undefined,
      owned: true,
      error: undefined,
    });
  });

  it('existing pod gets label + owner ref (adoptable pod)', () => {
    const p = pod('my-sandbox', { labels: { 'agents.x-k8s.io/adoptable': 'true' } });
    const got = plan(sandbox(), p);
    expect(got.write.action === 'Patch' && got.write.adopt).toBe(true);
    expect(got.write.action === 'Patch' && got.write.patch.metadata.labels).toEqual({
      [TRACK]: HASH,
    });
  });

  it('adopts unowned pod carrying legacy tracking label (owner ref persisted though labels match)', () => {
    const p = pod('my-sandbox', { labels: { [TRACK]: HASH }, podIPs: ['10.0.0.3'] });
    const got = plan(annotated('my-sandbox'), p, [p]);
    expect(got.write).toMatchObject({
      action: 'Patch',
      adopt: true,
      patch: { metadata: { ownerReferences: [owned] } },
    });
    expect(got.pod?.status?.podIPs).toEqual([{ ip: '10.0.0.3' }]);
  });

  it('unowned pod without adoptable/tracking label refused (not modified)', () => {
    expect(summary(plan(sandbox(), pod('my-sandbox')))).toEqual({
      write: 'None',
      annotation: undefined,
      owned: false,
      error:
        'cannot adopt unowned pod "my-sandbox": missing required pool authorization label ("agents.x-k8s.io/adoptable") or sandbox tracking label ("agents.x-k8s.io/sandbox-name-hash")',
    });
  });

  it('pod referenced by annotation is adopted (label + owner ref)', () => {
    const p = pod('pool-abcde', { labels: { 'agents.x-k8s.io/adoptable': 'true' } });
    const got = plan(annotated('pool-abcde'), p);
    expect(got.write).toMatchObject({ action: 'Patch', name: 'pool-abcde', adopt: true });
    expect(got.podNameAnnotation).toBeUndefined();
  });

  it('foreign-owned annotated pod refused: not modified, not deleted, annotation removed (bug #265)', () => {
    const p = pod('pool-abcde', { owner: foreign, labels: { [TRACK]: HASH } });
    expect(summary(plan(annotated('pool-abcde'), p, [p]))).toEqual({
      write: 'None',
      annotation: { action: 'Remove' },
      owned: false,
      error:
        'pod "pool-abcde" is owned by SandboxClaim/other-claim (UID: claim-uid), not by sandbox "my-sandbox"',
    });
  });

  it('Suspended: owned pod deleted, stays returned while terminating; no pod → no-op', () => {
    const p = mine('my-sandbox');
    expect(summary(plan(sandbox('my-sandbox', suspend), p, [p]))).toMatchObject({
      write: 'Delete',
      owned: true,
    });
    const terminating = mine('my-sandbox', { deletionTimestamp: '2026-01-01T00:00:00Z' });
    const again = plan(sandbox('my-sandbox', suspend), terminating, [terminating]);
    expect(again.write.action).toBe('None');
    expect(again.pod).toBe(terminating);
    expect(summary(plan(sandbox('my-sandbox', suspend)))).toEqual({
      write: 'None',
      annotation: undefined,
      owned: false,
      error: undefined,
    });
  });

  it('Suspended: annotated pod owned by other / unowned not deleted, annotation removed; owned annotated pod deleted', () => {
    const other = pod('pool-abcde', { owner: foreign });
    expect(summary(plan(annotated('pool-abcde', suspend), other))).toMatchObject({
      write: 'None',
      annotation: { action: 'Remove' },
      owned: false,
    });
    expect(summary(plan(annotated('pool-abcde', suspend), pod('pool-abcde')))).toMatchObject({
      write: 'None',
      annotation: { action: 'Remove' },
    });
    const ownedWarm = mine('pool-abcde');
    expect(plan(annotated('pool-abcde', suspend), ownedWarm).write).toEqual({
      action: 'Delete',
      name: 'pool-abcde',
    });
  });

  it('TestReconcilePodWaitsForOwnedTerminatingPod: no replacement pod until the terminating one is gone', () => {
    const terminating = mine('my-sandbox', { deletionTimestamp: '2026-01-01T00:00:00Z' });
    const got = plan(sandbox(), terminating, [terminating]);
    expect(got.write.action).not.toBe('Create');
    expect(got.pod).toBe(terminating);
  });
});

describe('pod selection by owner UID', () => {
  it('TestReconcilePodRecoversOwnedPodWhenTrackedPodIsMissing: use the owned pod; second pass write-free', () => {
    const ownedPod = mine('my-sandbox');
    const first = plan(annotated('pool-gone'), undefined, [ownedPod]);
    expect(summary(first)).toEqual({
      write: 'None',
      annotation: { action: 'Set', value: 'my-sandbox' },
      owned: true,
      error: undefined,
    });
    const second = plan(annotated('my-sandbox'), ownedPod, [ownedPod]);
    expect(summary(second)).toEqual({
      write: 'None',
      annotation: undefined,
      owned: true,
      error: undefined,
    });
  });

  it('TestReconcilePodPrefersOwnedPodOverStaleAdoptionTarget: owner UID beats a stale annotation', () => {
    const stale = pod('pool-stale', { labels: { 'agents.x-k8s.io/adoptable': 'true' } });
    const ownedPod = mine('my-sandbox');
    const got = plan(annotated('pool-stale'), stale, [ownedPod]);
    expect(got.pod).toBe(ownedPod);
    expect(got.write.action).toBe('None');
    expect(got.podNameAnnotation).toEqual({ action: 'Set', value: 'my-sandbox' });
  });

  it('TestReconcilePodFailsClosedForMultipleOwnedPods: no create/delete, MultiplePods error', () => {
    const a = mine('my-sandbox');
    const b = mine('my-sandbox-2');
    for (const s of [sandbox(), sandbox('my-sandbox', suspend)]) {
      const got = plan(s, a, [a, b]);
      expect(got.write.action).toBe('None');
      expect(got.ownedPodCount).toBe(2);
      expect(got.pod).toBeUndefined();
      expect(got.error?.message).toBe(
        'multiple Pods (2) are controlled by this Sandbox; refusing to choose or create a Pod',
      );
    }
  });

  it('a tracked owned pod missing from the index is counted once', () => {
    const a = mine('my-sandbox');
    expect(plan(sandbox(), a, []).ownedPodCount).toBe(1);
    expect(plan(sandbox(), a, [a]).ownedPodCount).toBe(1);
  });

  it('labelled but foreign pods in the index are not owned pods', () => {
    const theirs = pod('x', { owner: foreign, labels: { [TRACK]: HASH } });
    expect(plan(sandbox(), undefined, [theirs]).write.action).toBe('Create');
  });
});

describe('podNameAnnotationPatch', () => {
  it('sets or removes with null', () => {
    expect(podNameAnnotationPatch({ action: 'Set', value: 'p' })).toEqual({
      metadata: { annotations: { 'agents.x-k8s.io/pod-name': 'p' } },
    });
    expect(podNameAnnotationPatch({ action: 'Remove' })).toEqual({
      metadata: { annotations: { 'agents.x-k8s.io/pod-name': null } },
    });
  });
});

// §21.1 TestCheckOwnership, TestResolvePodName, TestSandboxOwnedPodsRequiresOwnerUID.
import { describe, expect, it } from 'vitest';
import { nameHash } from '@agent-sandbox/api';
import { SANDBOX_UID, ownerRef, pod, sandbox, service } from '../testing/builders.ts';
import {
  checkOwnership,
  isAdoptable,
  resolvePodName,
  sandboxOwnedPods,
  withControllerReference,
} from './ownership.ts';

const s = sandbox();
const other = ownerRef('other-uid', 'SandboxClaim', 'claim');

describe('TestCheckOwnership', () => {
  it.each([
    ['pod owned', pod('p', { owner: ownerRef(SANDBOX_UID) }), 'Owned'],
    ['pod unowned', pod('p'), 'Unowned'],
    ['pod other', pod('p', { owner: other }), 'OwnedByOther'],
    ['service owned', service('s', ownerRef(SANDBOX_UID)), 'Owned'],
    ['service unowned', service('s'), 'Unowned'],
    ['service other', service('s', other), 'OwnedByOther'],
  ] as const)('%s', (_name, obj, want) => {
    expect(checkOwnership(obj, s).state).toBe(want);
  });

  it('a non-controller owner reference does not count', () => {
    const p = pod('p', { owner: { ...ownerRef(SANDBOX_UID), controller: false } });
    expect(checkOwnership(p, s).state).toBe('Unowned');
  });
});

describe('TestResolvePodName', () => {
  it.each([
    ['no annotations', undefined, 'my-sandbox'],
    ['other annotations', { a: 'b' }, 'my-sandbox'],
    ['empty value', { 'agents.x-k8s.io/pod-name': '' }, 'my-sandbox'],
    ['annotation', { 'agents.x-k8s.io/pod-name': 'pool-abcde' }, 'pool-abcde'],
  ])('%s', (_name, annotations, want) => {
    const x = sandbox('my-sandbox', (y) => {
      if (annotations !== undefined) y.metadata.annotations = annotations;
    });
    expect(resolvePodName(x)).toBe(want);
  });
});

describe('TestSandboxOwnedPodsRequiresOwnerUID', () => {
  it('the tracking label alone does not imply ownership (upstream bug #265)', () => {
    const labels = { 'agents.x-k8s.io/sandbox-name-hash': nameHash('my-sandbox') };
    const pods = [
      pod('labelled-only', { labels }),
      pod('foreign', { labels, owner: other }),
      pod('mine', { labels, owner: ownerRef(SANDBOX_UID) }),
    ];
    expect(sandboxOwnedPods(pods, s).map((p) => p.metadata?.name)).toEqual(['mine']);
  });
});

describe('adoption authorisation', () => {
  it.each([
    ['adoptable=true', { 'agents.x-k8s.io/adoptable': 'true' }, true],
    ['adoptable=false', { 'agents.x-k8s.io/adoptable': 'false' }, false],
    [
      'matching tracking label',
      { 'agents.x-k8s.io/sandbox-name-hash': nameHash('my-sandbox') },
      true,
    ],
    ['other tracking label', { 'agents.x-k8s.io/sandbox-name-hash': nameHash('x') }, false],
    ['no labels', undefined, false],
  ])('%s', (_name, labels, want) => {
    expect(isAdoptable(pod('p', labels ? { labels } : {}), nameHash('my-sandbox'))).toBe(want);
  });

  it('SetControllerReference keeps other owners and replaces a stale ref to the same Sandbox', () => {
    const gc = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'cm-uid' };
    const stale = { ...ownerRef('old-uid'), controller: false };
    expect(withControllerReference([gc, stale], s)).toEqual([gc, ownerRef(SANDBOX_UID)]);
  });
});

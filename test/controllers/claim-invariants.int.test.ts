// The claim-storm check is not blind: each invariant reports its violation on a crafted state.
import type { Condition } from '@agent-sandbox/api';
import { describe, expect, it } from 'vitest';
import { checkClaimStorm, type Claim, type Sandbox } from './claim-invariants.ts';

const READY: { conditions: Condition[] } = {
  conditions: [
    {
      type: 'Ready',
      status: 'True',
      reason: 'DependenciesReady',
      message: '',
      lastTransitionTime: '',
    },
  ],
};
const claim = (name: string, bound?: string): Claim => ({
  metadata: { name, uid: `u-${name}` },
  spec: { warmPoolRef: { name: 'storm' } },
  status: { ...READY, ...(bound ? { sandbox: { name: bound } } : {}) },
});
const sandbox = (name: string, owner: { kind: string; name: string; uid: string }): Sandbox => ({
  metadata: {
    name,
    labels: owner.kind === 'SandboxClaim' ? { 'agents.x-k8s.io/claim-uid': owner.uid } : {},
    ownerReferences: [
      { apiVersion: 'extensions.agents.x-k8s.io/v1beta1', ...owner, controller: true },
    ],
  },
  spec: { podTemplate: { spec: { containers: [] } } },
  status: READY,
});
const opts = { claims: 2, pool: 'storm', poolReplicas: 1 };

describe('checkClaimStorm', () => {
  it('accepts a converged state and counts warm and cold', () => {
    const r = checkClaimStorm(
      {
        claims: [claim('a', 'storm-x'), claim('b', 'b')],
        sandboxes: [
          sandbox('storm-x', { kind: 'SandboxClaim', name: 'a', uid: 'u-a' }),
          sandbox('b', { kind: 'SandboxClaim', name: 'b', uid: 'u-b' }),
          sandbox('storm-y', { kind: 'SandboxWarmPool', name: 'storm', uid: 'p' }),
        ],
      },
      opts,
    );
    expect(r).toEqual({ violations: [], split: { warm: 1, cold: 1 } });
  });

  it('reports a Sandbox bound to two claims, a foreign controller, an orphan and a short pool', () => {
    const orphan = sandbox('lost', { kind: 'SandboxClaim', name: 'x', uid: 'x' });
    orphan.metadata.ownerReferences = [];
    const r = checkClaimStorm(
      {
        claims: [claim('a', 's'), claim('b', 's')],
        sandboxes: [sandbox('s', { kind: 'SandboxClaim', name: 'a', uid: 'u-a' }), orphan],
      },
      opts,
    );
    expect(r.violations).toEqual([
      'sandbox s is bound to claims a and b',
      'claim b: sandbox s is controlled by SandboxClaim a',
      'claim b: sandbox s has claim-uid u-a',
      'sandbox lost is an orphan (no controller)',
      'want 1 pool members, found 0',
    ]);
  });
});

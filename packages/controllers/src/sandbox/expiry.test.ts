// §21.1 TestSandboxExpiry, TestSandboxShutdownExpiryUsesTwoPassAndPreservesFinishedCondition and
// the expiry rows of TestReconcile (§11.7, §16, §23.3).
import { describe, expect, it } from 'vitest';
import type { Condition } from '@agent-sandbox/api';
import { NOW, SANDBOX_UID, ownerRef, pod, sandbox, service } from '../testing/builders.ts';
import { computeConditions, formatTime } from './conditions.ts';
import {
  checkSandboxExpiry,
  expiredStatus,
  expiryAfterReconcile,
  expiryPhase,
  expiryTeardown,
} from './expiry.ts';

const at = (ms: number) => new Date(NOW.getTime() + ms).toISOString();
const expiring = (ms: number, policy?: 'Delete' | 'Retain') =>
  sandbox('my-sandbox', (s) => {
    s.spec.shutdownTime = at(ms);
    if (policy !== undefined) s.spec.shutdownPolicy = policy;
  });
const owned = ownerRef(SANDBOX_UID);

describe('TestSandboxExpiry', () => {
  it.each([
    ['nil: no requeue', sandbox(), { expired: false }],
    ['future: exact remaining', expiring(60_000), { expired: false, requeueAfterMs: 60_000 }],
    ['at now: expired', expiring(0), { expired: true }],
    ['+500ms: 2s minimum', expiring(500), { expired: false, requeueAfterMs: 2_000 }],
    ['past (Retain): expired', expiring(-1_000, 'Retain'), { expired: true }],
    ['past (Delete): expired', expiring(-1_000, 'Delete'), { expired: true }],
  ])('%s', (_name, s, want) => {
    expect(checkSandboxExpiry(s, NOW)).toEqual(want);
  });
});

describe('two-pass expiry', () => {
  it.each(['Succeeded', 'Failed'])(
    'TestSandboxShutdownExpiryUsesTwoPassAndPreservesFinishedCondition (%s pod)',
    (phase) => {
      const s = expiring(-1);
      const conditions = computeConditions(s, {
        pod: pod('my-sandbox', { owner: owned, phase }),
        podOwned: true,
        ownedPodCount: 1,
        serviceOwned: false,
        reconcileErrors: [],
        now: new Date(NOW.getTime() - 10_000),
      });
      s.status = {
        conditions,
        selector: 'x',
        podIPs: ['10.0.0.1'],
        nodeName: 'n',
        service: 'my-sandbox',
      };

      const first = expiryPhase(s, NOW);
      expect(first.phase).toBe('MarkExpired');
      if (first.phase !== 'MarkExpired') return;
      expect(first.requeueAfterMs).toBe(1);
      const types = (c: Condition[]) => c.map((x) => `${x.type}/${x.reason}`);
      expect(types(first.conditions)).toEqual([
        'Suspended/NotSuspended',
        `Finished/Pod${phase}`,
        'Ready/SandboxExpired',
      ]);
      expect(first.conditions.find((c) => c.type === 'Ready')?.message).toBe('Sandbox has expired');

      s.status = { ...s.status, conditions: first.conditions };
      expect(expiryPhase(s, new Date(NOW.getTime() + 1))).toEqual({ phase: 'Teardown' });
      const retained = expiredStatus(s, new Date(NOW.getTime() + 1));
      expect(Object.keys(retained)).toEqual(['conditions']);
      expect(types(retained.conditions ?? [])).toEqual(types(first.conditions));
    },
  );

  it('Ready lastTransitionTime moves to the expiry instant only if Ready was True', () => {
    const s = expiring(-1);
    s.status = {
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'DependenciesNotReady',
          message: 'm',
          lastTransitionTime: 'earlier',
        },
      ],
    };
    const first = expiryPhase(s, NOW);
    expect(first.phase === 'MarkExpired' && first.conditions[0]?.lastTransitionTime).toBe(
      'earlier',
    );
  });

  it('expired during the pass: mark and requeue in 1ms; otherwise requeue at shutdownTime', () => {
    const s = expiring(10_000);
    const status = { conditions: [] };
    expect(expiryAfterReconcile(s, status, NOW)).toEqual({ status, requeueAfterMs: 10_000 });
    const later = expiryAfterReconcile(s, status, new Date(NOW.getTime() + 10_000));
    expect(later.requeueAfterMs).toBe(1);
    expect(later.status.conditions).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'SandboxExpired',
        message: 'Sandbox has expired',
        observedGeneration: 1,
        lastTransitionTime: formatTime(new Date(NOW.getTime() + 10_000)),
      },
    ]);
    expect(expiryAfterReconcile(sandbox(), status, NOW)).toEqual({ status });
  });
});

describe('TestReconcile expiry teardown (§11.7)', () => {
  it('expired Retain: owned pod and service deleted, Sandbox kept', () => {
    expect(
      expiryTeardown(
        expiring(-1, 'Retain'),
        pod('my-sandbox', { owner: owned }),
        service('my-sandbox', owned),
      ),
    ).toEqual({
      deleteSandbox: false,
      deletePod: 'my-sandbox',
      deleteService: 'my-sandbox',
    });
  });

  it('expired Retain deletes an adopted warm pod referenced by the pod-name annotation', () => {
    const s = expiring(-1, 'Retain');
    s.metadata.annotations = { 'agents.x-k8s.io/pod-name': 'pool-abcde' };
    expect(expiryTeardown(s, pod('pool-abcde', { owner: owned }), undefined)).toEqual({
      deleteSandbox: false,
      deletePod: 'pool-abcde',
    });
  });

  it('expired Delete: Sandbox deleted', () => {
    expect(expiryTeardown(expiring(-1, 'Delete'), undefined, undefined)).toEqual({
      deleteSandbox: true,
    });
  });

  it('expired: pod owned by another controller not deleted; unowned pod not deleted', () => {
    const s = expiring(-1);
    expect(
      expiryTeardown(
        s,
        pod('my-sandbox', { owner: ownerRef('x', 'Job', 'j') }),
        service('my-sandbox'),
      ),
    ).toEqual({
      deleteSandbox: false,
    });
    expect(expiryTeardown(s, pod('my-sandbox'), undefined)).toEqual({ deleteSandbox: false });
  });

  it('expired with nothing to delete: fine', () => {
    expect(expiryTeardown(expiring(-1), undefined, undefined)).toEqual({ deleteSandbox: false });
  });
});

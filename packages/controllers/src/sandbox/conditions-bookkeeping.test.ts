// §8.1 bookkeeping: SetStatusCondition semantics, Suspended persistence, present-while-applicable
// conditions (TestSandboxReconcile_ConditionsDoNotAccumulate, TestPodScheduledConditionRemovedWithPod).
import { describe, expect, it } from 'vitest';
import type { Condition } from '@agent-sandbox/api';
import { NOW, SANDBOX_UID, ownerRef, pod, readyPod, sandbox } from '../testing/builders.ts';
import {
  computeConditions,
  formatTime,
  setStatusCondition,
  type ObservedChildren,
} from './conditions.ts';

const owned = ownerRef(SANDBOX_UID);
const observed = (o: Partial<ObservedChildren> = {}): ObservedChildren => ({
  podOwned: o.pod !== undefined,
  ownedPodCount: o.pod !== undefined && o.podOwned !== false ? 1 : 0,
  serviceOwned: o.service !== undefined,
  reconcileErrors: [],
  now: NOW,
  ...o,
});

const running = sandbox();
const suspended = sandbox('my-sandbox', (s) => (s.spec.operatingMode = 'Suspended'));

describe('condition bookkeeping', () => {
  it('every condition carries observedGeneration = metadata.generation', () => {
    const s = sandbox('my-sandbox', (x) => (x.metadata.generation = 7));
    const conds = computeConditions(
      s,
      observed({ pod: pod('my-sandbox', { owner: owned, phase: 'Succeeded' }) }),
    );
    expect(conds.map((c) => c.observedGeneration)).toEqual([7, 7, 7, 7]);
    expect(conds.map((c) => c.type)).toEqual(['Suspended', 'Finished', 'PodScheduled', 'Ready']);
  });

  it('TestSandboxReconcile_ConditionsDoNotAccumulate: repeated passes keep one condition per type', () => {
    let s = running;
    for (let i = 0; i < 3; i++) {
      const conditions = computeConditions(
        s,
        observed({ pod: readyPod('my-sandbox', { owner: owned }) }),
      );
      s = { ...s, status: { conditions } };
    }
    expect(s.status?.conditions?.map((c) => c.type)).toEqual([
      'Suspended',
      'PodScheduled',
      'Ready',
    ]);
  });

  it('TestPodScheduledConditionRemovedWithPod: PodScheduled and Finished go when the pod goes', () => {
    const withPod = computeConditions(
      running,
      observed({ pod: pod('my-sandbox', { owner: owned, phase: 'Failed' }) }),
    );
    const after = computeConditions({ ...running, status: { conditions: withPod } }, observed());
    expect(after.map((c) => c.type)).toEqual(['Suspended', 'Ready']);
  });

  it('Suspended is never removed, and its lastTransitionTime moves only on True↔False flips', () => {
    const t0 = NOW;
    const t1 = new Date(NOW.getTime() + 60_000);
    const t2 = new Date(NOW.getTime() + 120_000);
    const first = computeConditions(running, observed({ now: t0 }));
    const susp = computeConditions(
      { ...suspended, status: { conditions: first } },
      observed({ now: t1 }),
    );
    const resumed = computeConditions(
      { ...running, status: { conditions: susp } },
      observed({ now: t2 }),
    );
    const ltt = (conds: Condition[]) =>
      conds.find((c) => c.type === 'Suspended')?.lastTransitionTime;
    expect(ltt(first)).toBe(formatTime(t0));
    expect(ltt(susp)).toBe(formatTime(t1));
    expect(ltt(resumed)).toBe(formatTime(t2));
    // A pod deleted while Running is recreated: Suspended stays False, time unchanged (§11.10).
    const again = computeConditions(
      { ...running, status: { conditions: resumed } },
      observed({ now: new Date(t2.getTime() + 1000) }),
    );
    expect(ltt(again)).toBe(formatTime(t2));
  });

  it('setStatusCondition updates reason and message without moving lastTransitionTime', () => {
    const base = setStatusCondition(
      [],
      { type: 'Ready', status: 'False', reason: 'A', message: 'a' },
      NOW,
    );
    const later = new Date(NOW.getTime() + 5000);
    const next = setStatusCondition(
      base,
      { type: 'Ready', status: 'False', reason: 'B', message: 'b' },
      later,
    );
    expect(next).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'B',
        message: 'b',
        lastTransitionTime: formatTime(NOW),
      },
    ]);
    const flipped = setStatusCondition(
      next,
      { type: 'Ready', status: 'True', reason: 'C', message: 'c' },
      later,
    );
    expect(flipped[0]?.lastTransitionTime).toBe(formatTime(later));
  });

  it('conditions of other types are left alone', () => {
    const other: Condition = {
      type: 'Custom',
      status: 'True',
      reason: 'X',
      message: '',
      lastTransitionTime: 't',
    };
    const conds = computeConditions({ ...running, status: { conditions: [other] } }, observed());
    expect(conds[0]).toEqual(other);
  });
});

// Spec §21.4 sandboxwarmpool_controller_test.go / _overcreation_test.go on the pure plan.
import { Annotations, Labels, nameHash } from '@agent-sandbox/api';
import { describe, expect, it } from 'vitest';
import type { PoolObject, SandboxObj, TemplateObject } from '../extensions/resources.ts';
import { newMember } from './member.ts';
import { planPool, slowStartBatches, type PoolReads } from './plan.ts';

const now = new Date('2026-01-01T00:10:00Z');
const template: TemplateObject = {
  metadata: { name: 'tpl', namespace: 'ns' },
  spec: { podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox' }] } } },
};
function pool(spec: Partial<PoolObject['spec']> = {}): PoolObject {
  return {
    metadata: { name: 'p', namespace: 'ns', uid: 'pool-uid', generation: 3 },
    spec: { sandboxTemplateRef: { name: 'tpl' }, ...spec },
  };
}
let n = 0;
function member(opts: { ready?: boolean; age?: number; tpl?: TemplateObject } = {}): SandboxObj {
  const m = newMember(pool(), opts.tpl ?? template, { enableEviction: true });
  m.metadata.name = `p-${n}`;
  m.metadata.uid = `u-${n++}`;
  m.metadata.creationTimestamp = new Date(now.getTime() - (opts.age ?? 1000)).toISOString();
  if (opts.ready)
    m.status = {
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
  return m;
}
function reads(p: PoolObject, members: SandboxObj[], extra: Partial<PoolReads> = {}): PoolReads {
  return {
    pool: p,
    template,
    members,
    podOf: () => undefined,
    isPendingDeletion: () => false,
    now,
    ...extra,
  };
}
const opts = { readinessGraceMs: 5 * 60_000, maxBatchSize: 300 };

describe('planPool', () => {
  it('TestSandboxWarmPoolReconcile: nil replicas → 1; creates to fill; status', () => {
    const plan = planPool(reads(pool(), []), opts);
    expect(plan.desired).toBe(1);
    expect(plan.create).toBe(1);
    expect(plan.status).toEqual({
      replicas: 0,
      readyReplicas: 0,
      selector: `${Labels.WarmPoolSandbox}=${nameHash('p')}`,
      observedGeneration: 3,
    });
  });

  it('TestSandboxWarmPoolReconcile: creates are capped by the batch size; no template, no creates', () => {
    expect(planPool(reads(pool({ replicas: 500 }), []), opts).create).toBe(300);
    expect(
      planPool({ ...reads(pool({ replicas: 5 }), []), template: undefined }, opts).create,
    ).toBe(0);
  });

  it('TestSandboxWarmPoolOverCreation: terminating and pending deletions count against the target', () => {
    const dying = member({ ready: true });
    dying.metadata.deletionTimestamp = now.toISOString();
    const pending = member({ ready: true });
    const plan = planPool(
      reads(pool({ replicas: 3 }), [dying, pending, member({ ready: true })], {
        isPendingDeletion: (uid) => uid === pending.metadata.uid,
      }),
      opts,
    );
    expect(plan.active).toHaveLength(1);
    expect(plan.terminating).toBe(2);
    expect(plan.create).toBe(0);
  });

  it('TestSandboxWarmPoolReconcile: scale down deletes not-Ready first, then newest', () => {
    const old = member({ ready: true, age: 9000 });
    const young = member({ ready: true, age: 100 });
    const unready = member({ ready: false, age: 5000 });
    const plan = planPool(reads(pool({ replicas: 1 }), [old, young, unready]), opts);
    expect(plan.excess.map((s) => s.metadata.uid)).toEqual([
      unready.metadata.uid,
      young.metadata.uid,
    ]);
  });

  it('TestSandboxWarmPoolStuckGC: stuck past the grace is deleted, within grace kept with a requeue, unschedulable held', () => {
    const stuck = member({ age: 6 * 60_000 });
    const young = member({ age: 60_000 });
    const unsched = member({ age: 6 * 60_000 });
    const plan = planPool(
      reads(pool({ replicas: 3 }), [stuck, young, unsched], {
        podOf: (s) =>
          s === unsched
            ? {
                status: {
                  conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
                },
              }
            : undefined,
      }),
      opts,
    );
    expect(plan.deletes).toEqual([{ sandbox: stuck, reason: 'stuck', owned: true }]);
    expect(plan.unschedulable).toBe(1);
    expect(plan.graceRequeueMs).toBe(4 * 60_000 + 2_000);
    expect(plan.create).toBe(0); // the stuck one counts as terminating
  });

  it('TestSandboxWarmPoolRollout: Recreate deletes stale members, OnReplenish keeps them', () => {
    const changed: TemplateObject = structuredClone(template);
    changed.spec.podTemplate.spec.containers[0]!.image = 'busybox:2';
    const stale = member({ ready: true });
    const recreate = planPool(
      { ...reads(pool({ updateStrategy: { type: 'Recreate' } }), [stale]), template: changed },
      opts,
    );
    expect(recreate.deletes.map((d) => d.reason)).toEqual(['stale']);
    const replenish = planPool({ ...reads(pool(), [stale]), template: changed }, opts);
    expect(replenish.deletes).toEqual([]);
    expect(replenish.active).toHaveLength(1);
  });

  it('TestSandboxWarmPoolRollout: a hash-less member with an identical blueprint is fresh', () => {
    const m = member({ ready: true });
    delete m.metadata.labels?.[Labels.SandboxTemplateHash];
    m.metadata.labels![Labels.SandboxTemplateHash] = 'deadbeef';
    const plan = planPool(reads(pool({ updateStrategy: { type: 'Recreate' } }), [m]), opts);
    expect(plan.deletes).toEqual([]);
  });

  it('TestSandboxWarmPoolReconcile: orphans are adopted (launch-type, owner), foreign ones ignored', () => {
    const orphan = member({ ready: true });
    orphan.metadata.ownerReferences = [];
    const foreign = member({ ready: true });
    foreign.metadata.ownerReferences = [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'x', controller: true },
    ];
    const plan = planPool(reads(pool({ replicas: 2 }), [orphan, foreign]), opts);
    expect(plan.active).toHaveLength(1);
    expect(plan.updates[0]?.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'SandboxWarmPool',
      uid: 'pool-uid',
    });
    expect(plan.create).toBe(1);
  });

  it('TestSandboxWarmPoolOrphanVetting: an orphan is vetted by semantic comparison (stale ones deleted without an expectation); without a template orphans are adopted unchecked', () => {
    const changed: TemplateObject = structuredClone(template);
    changed.spec.podTemplate.spec.containers[0]!.image = 'busybox:2';
    const fresh = member({ ready: true, tpl: changed });
    const stale = member({ ready: true });
    for (const o of [fresh, stale]) o.metadata.ownerReferences = [];
    // A fresh orphan without any hash labels still matches by comparison.
    delete fresh.metadata.labels?.[Labels.SandboxTemplateHash];
    const plan = planPool(
      { ...reads(pool({ replicas: 2 }), [fresh, stale]), template: changed },
      opts,
    );
    expect(plan.deletes).toEqual([{ sandbox: stale, reason: 'stale', owned: false }]);
    expect(plan.terminating).toBe(0);
    expect(plan.active.map((s) => s.metadata.uid)).toEqual([fresh.metadata.uid]);
    expect(plan.create).toBe(1);
    const unchecked = planPool(
      { ...reads(pool({ replicas: 2 }), [fresh, stale]), template: undefined },
      opts,
    );
    expect(unchecked.deletes).toEqual([]);
    expect(unchecked.updates).toHaveLength(2);
    expect(unchecked.create).toBe(0);
  });

  it('TestSandboxWarmPoolRollout: a re-pointed templateRef makes owned members stale even with an identical spec (Recreate only)', () => {
    const m = member({ ready: true });
    const repointed = pool({
      sandboxTemplateRef: { name: 'tpl-2' },
      updateStrategy: { type: 'Recreate' },
    });
    expect(planPool(reads(repointed, [m]), opts).deletes.map((d) => d.reason)).toEqual(['stale']);
    const onReplenish = pool({ sandboxTemplateRef: { name: 'tpl-2' } });
    expect(planPool(reads(onReplenish, [m]), opts).deletes).toEqual([]);
  });

  it('TestSandboxWarmPoolReconcile: readyReplicas counts only Ready active members; zero replicas plans the deletion of all', () => {
    const members = [member({ ready: true }), member({ ready: false }), member({ ready: true })];
    const plan = planPool(reads(pool({ replicas: 3 }), members), opts);
    expect(plan.status).toMatchObject({ replicas: 3, readyReplicas: 2 });
    const zero = planPool(reads(pool({ replicas: 0 }), members), opts);
    expect(zero.desired).toBe(0);
    expect(zero.excess).toHaveLength(3);
    expect(
      planPool(reads(pool({ replicas: 0 }), members), { ...opts, maxBatchSize: 2 }).excess,
    ).toHaveLength(2);
  });

  it('slowStartBatches: 1, 2, 4, … trimmed to n', () => {
    expect(slowStartBatches(0)).toEqual([]);
    expect(slowStartBatches(10)).toEqual([1, 2, 4, 3]);
  });
});

describe('newMember', () => {
  const evict = (enableEviction: boolean, value: string | undefined): string | undefined => {
    const tpl = structuredClone(template);
    if (value !== undefined)
      tpl.spec.podTemplate.metadata = { annotations: { [Annotations.SafeToEvict]: value } };
    const member = newMember(pool(), tpl, { enableEviction });
    return member.spec.podTemplate.metadata?.annotations?.[Annotations.SafeToEvict];
  };

  it('eviction annotation matrix (flag × template value): the flag adds "true" only where the template says nothing', () => {
    expect(evict(true, undefined)).toBe('true');
    expect(evict(true, 'false')).toBe('false');
    expect(evict(true, 'true')).toBe('true');
    expect(evict(false, undefined)).toBeUndefined();
    expect(evict(false, 'false')).toBe('false');
    expect(evict(false, 'true')).toBe('true');
  });
});

// §21.1 TestReconcile and the pass-level scenarios (TestReconcileChildResourcesSurfacesMultipleOwnedPods,
// TestSuspendedConditionUnknownWhenPodLookupFails, TestPodScheduledConditionUnknownWhenPodLookupFails),
// driven as read → plan → outcome → status, with no client.
import { describe, expect, it } from 'vitest';
import { nameHash } from '@agent-sandbox/api';
import type { v1beta1 } from '@agent-sandbox/api';
import type { Pod, Service } from '@agent-sandbox/kube-types';
import { MultiplePodsError } from '../errors.ts';
import {
  NOW,
  SANDBOX_UID,
  ownerRef,
  pod,
  readyPod,
  sandbox,
  service,
} from '../testing/builders.ts';
import {
  observedChildren,
  planSandbox,
  reconcileSpanAttributes,
  returnedErrors,
  type PlanOutcome,
  type SandboxReads,
} from './plan.ts';
import { computeStatus, isStatusWriteNeeded } from './status.ts';

const TRACK = 'agents.x-k8s.io/sandbox-name-hash';
const HASH = nameHash('my-sandbox');
const owned = ownerRef(SANDBOX_UID);
const reads = (o: { fetched?: Pod; indexed?: Pod[]; service?: Service } = {}): SandboxReads => ({
  pvcs: new Map(),
  pods: { indexedPods: o.indexed ?? [], fetchedPod: o.fetched },
  service: o.service,
});

/** Plan, pretend every write succeeded, and compute the status. */
function pass(s: v1beta1.Sandbox, r: SandboxReads, outcome: Partial<PlanOutcome> = {}) {
  const plan = planSandbox(s, r, NOW);
  if (plan.phase !== 'Reconcile') throw new Error(`unexpected phase ${plan.phase}`);
  const observed = observedChildren(s, plan, { now: NOW, ...outcome });
  const status = computeStatus(s, observed);
  const conditions = Object.fromEntries(
    (status.conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason}: ${c.message}`]),
  );
  return { plan, observed, status, conditions };
}

describe('TestReconcile', () => {
  it('minimal spec → Pod (tracking label, controller ref), no Service, status selector', () => {
    const { plan, status, conditions } = pass(sandbox(), reads());
    expect(plan.pod.write.action).toBe('Create');
    expect(plan.service).toEqual({ action: 'None', inUse: undefined });
    expect(status.selector).toBe(`${TRACK}=${HASH}`);
    expect(status.service).toBeUndefined();
    expect(conditions).toEqual({
      Suspended: 'False/NotSuspended: Sandbox is not suspended',
      PodScheduled:
        'Unknown/PodSchedulingUnknown: Pod has not reported a PodScheduled condition yet',
      Ready: 'False/DependenciesNotReady: Pod exists with phase: ',
    });
  });

  it('service: true → headless Service + status service/FQDN, message "; Service Exists"', () => {
    const s = sandbox('my-sandbox', (x) => (x.spec.service = true));
    const { plan, status, conditions } = pass(s, reads());
    expect(plan.service?.action).toBe('Create');
    expect(status.service).toBe('my-sandbox');
    expect(status.serviceFQDN).toBe('my-sandbox.default.svc.cluster.local');
    expect(conditions.Ready).toMatch(/; Service Exists$/);
  });

  it('PVC + Pod + Service created; PVC name <vct>-<sandbox>', () => {
    const s = sandbox('my-sandbox', (x) => {
      x.spec.service = true;
      x.spec.volumeClaimTemplates = [{ metadata: { name: 'data' }, spec: {} }];
    });
    const { plan } = pass(s, reads());
    expect(plan.pvcs.map((a) => (a.action === 'Create' ? a.pvc.metadata?.name : a.action))).toEqual(
      ['data-my-sandbox'],
    );
    expect(plan.pod.write.action === 'Create' && plan.pod.write.pod.spec?.volumes).toEqual([
      { name: 'data', persistentVolumeClaim: { claimName: 'data-my-sandbox' } },
    ]);
    expect(plan.service?.action).toBe('Create');
  });

  it('existing pod propagates podIPs; existing ready pod → Ready True without Service by default', () => {
    const p = readyPod('my-sandbox', {
      owner: owned,
      labels: { [TRACK]: HASH },
      podIPs: ['10.1.2.3'],
    });
    const s = sandbox(
      'my-sandbox',
      (x) => (x.metadata.annotations = { 'agents.x-k8s.io/pod-name': 'my-sandbox' }),
    );
    const { plan, status, conditions } = pass(s, reads({ fetched: p, indexed: [p] }));
    expect(plan.pod.write.action).toBe('None');
    expect(status.podIPs).toEqual(['10.1.2.3']);
    expect(conditions.Ready).toBe('True/DependenciesReady: Pod is Ready');
  });

  it('existing pod with legacy tracking label (no adoptable label) is adopted and IPs propagate', () => {
    const p = readyPod('my-sandbox', { labels: { [TRACK]: HASH }, podIPs: ['10.9.9.9'] });
    const { plan, status } = pass(sandbox(), reads({ fetched: p, indexed: [p] }));
    expect(plan.pod.write).toMatchObject({ action: 'Patch', adopt: true });
    expect(status.podIPs).toEqual(['10.9.9.9']);
  });

  it('suspend with terminating pod → PodTerminating; suspend with no pod → PodTerminated', () => {
    const s = sandbox('my-sandbox', (x) => (x.spec.operatingMode = 'Suspended'));
    const p = pod('my-sandbox', { owner: owned, deletionTimestamp: '2026-01-01T00:00:00Z' });
    expect(pass(s, reads({ fetched: p, indexed: [p] })).conditions.Suspended).toBe(
      'False/PodTerminating: Pod is terminating. Sandbox is suspending',
    );
    expect(pass(s, reads()).conditions.Suspended).toBe(
      'True/PodTerminated: Pod has been terminated. Sandbox is suspended',
    );
  });
});

describe('pass-level scenarios', () => {
  it('TestReconcileChildResourcesSurfacesMultipleOwnedPods: condition + event, Service untouched, error not returned', () => {
    const a = pod('a', { owner: owned, labels: { [TRACK]: HASH } });
    const b = pod('b', { owner: owned, labels: { [TRACK]: HASH } });
    const { plan, observed, conditions } = pass(
      sandbox(),
      reads({ indexed: [a, b], service: service('my-sandbox', owned) }),
    );
    expect(plan.service).toBeUndefined();
    expect(plan.multiplePodsEvent).toBe(new MultiplePodsError(2).message);
    expect(conditions.Ready).toMatch(/^False\/MultiplePods: multiple Pods \(2\)/);
    expect(returnedErrors(observed)).toEqual([]);
    // Suppressed while Ready already says MultiplePods.
    const again = planSandbox(
      sandbox(
        'my-sandbox',
        (x) =>
          (x.status = {
            conditions: [
              {
                type: 'Ready',
                status: 'False',
                reason: 'MultiplePods',
                message: '',
                lastTransitionTime: 't',
              },
            ],
          }),
      ),
      reads({ indexed: [a, b] }),
      NOW,
    );
    expect(again.phase === 'Reconcile' && again.multiplePodsEvent).toBeUndefined();
  });

  it('TestSuspendedConditionUnknownWhenPodLookupFails', () => {
    const s = sandbox('my-sandbox', (x) => (x.spec.operatingMode = 'Suspended'));
    const r = { ...reads(), pods: { readError: new Error('pod get failed: connection refused') } };
    const plan = planSandbox(s, r, NOW);
    if (plan.phase !== 'Reconcile') throw new Error('phase');
    const observed = observedChildren(s, plan, { now: NOW });
    const status = computeStatus(s, observed);
    expect(status.conditions?.find((c) => c.type === 'Suspended')?.status).toBe('Unknown');
    expect(returnedErrors(observed).map((e) => e.message)).toEqual([
      'pod get failed: connection refused',
    ]);
  });

  it('TestPodScheduledConditionUnknownWhenPodLookupFails (running): a failed create leaves no pod', () => {
    const { conditions } = pass(sandbox(), reads(), { podWriteError: new Error('create failed') });
    expect(conditions.PodScheduled).toBe(
      'Unknown/PodSchedulingUnknown: Pod state is unknown. Pod scheduling cannot be determined',
    );
    expect(conditions.Ready).toBe('False/ReconcilerError: Error seen: create failed');
  });

  it('errors of several children are joined in order in Ready and all returned', () => {
    const s = sandbox('my-sandbox', (x) => {
      x.spec.service = true;
      x.spec.volumeClaimTemplates = [{ metadata: { name: 'data' }, spec: {} }];
    });
    const foreignPvc = {
      metadata: { name: 'data-my-sandbox', ownerReferences: [ownerRef('o', 'StatefulSet', 'st')] },
    };
    const r = {
      ...reads({ service: service('my-sandbox', ownerRef('x', 'Deployment', 'd')) }),
      pvcs: new Map([['data-my-sandbox', foreignPvc]]),
    };
    const { observed, conditions } = pass(s, r);
    expect(conditions.Ready).toBe(
      'False/ReconcilerError: Error seen: PVC "data-my-sandbox" is owned by StatefulSet/st (UID: o), not by sandbox "my-sandbox"\nservice "my-sandbox" is owned by Deployment/d (UID: x), not by sandbox "my-sandbox"',
    );
    expect(returnedErrors(observed)).toHaveLength(2);
  });

  it('expired sandboxes: first pass marks, second tears down; a deleting Sandbox is left alone', () => {
    const s = sandbox('my-sandbox', (x) => (x.spec.shutdownTime = '2025-12-31T00:00:00Z'));
    const first = planSandbox(s, reads(), NOW);
    expect(first.phase).toBe('MarkExpired');
    if (first.phase !== 'MarkExpired') return;
    const marked = { ...s, status: { conditions: first.conditions } };
    const p = pod('my-sandbox', { owner: owned });
    expect(planSandbox(marked, reads({ fetched: p, service: service('my-sandbox') }), NOW)).toEqual(
      {
        phase: 'Teardown',
        teardown: { deleteSandbox: false, deletePod: 'my-sandbox' },
      },
    );
    const deleting = sandbox(
      'my-sandbox',
      (x) => (x.metadata.deletionTimestamp = '2026-01-01T00:00:00Z'),
    );
    expect(planSandbox(deleting, reads(), NOW)).toEqual({ phase: 'Deleting' });
  });
});

describe('TestReconcile_TracingNormalization', () => {
  it.each([
    [undefined, undefined],
    ['go-client', 'go-client'],
    ['something-else', 'unknown'],
  ])('created-by %s → span attribute %s', (value, want) => {
    const s = sandbox('my-sandbox', (x) => {
      if (value !== undefined) x.metadata.labels = { 'agents.x-k8s.io/created-by': value };
    });
    expect(reconcileSpanAttributes(s)).toEqual({
      'sandbox.name': 'my-sandbox',
      'sandbox.namespace': 'default',
      ...(want === undefined ? {} : { 'agents.x-k8s.io/created-by': want }),
    });
  });
});

describe('a bounded number of status writes per launch', () => {
  it('create → pending → scheduled → ready writes at most 4 times; repeated passes write nothing', () => {
    let s = sandbox();
    let writes = 0;
    const step = (fetched: Pod | undefined) => {
      const r = reads(fetched === undefined ? {} : { fetched, indexed: [fetched] });
      const plan = planSandbox(s, r, NOW);
      if (plan.phase !== 'Reconcile') throw new Error('phase');
      const created = plan.pod.write.action === 'Create' ? plan.pod.write.pod : undefined;
      const status = computeStatus(s, observedChildren(s, plan, { now: NOW, pod: created }));
      if (isStatusWriteNeeded(s.status, status)) {
        writes++;
        s = { ...s, status };
      }
    };
    const labels = { [TRACK]: HASH };
    const pending = pod('my-sandbox', { owner: owned, labels, phase: 'Pending' });
    const scheduled = pod('my-sandbox', {
      owner: owned,
      labels,
      phase: 'Pending',
      nodeName: 'node-a',
      conditions: [{ type: 'PodScheduled', status: 'True' }],
    });
    const ready = readyPod('my-sandbox', {
      owner: owned,
      labels,
      nodeName: 'node-a',
      conditions: [
        { type: 'PodScheduled', status: 'True' },
        { type: 'Ready', status: 'True' },
      ],
    });
    step(undefined);
    s = {
      ...s,
      metadata: { ...s.metadata, annotations: { 'agents.x-k8s.io/pod-name': 'my-sandbox' } },
    };
    for (const p of [pending, pending, scheduled, scheduled, ready, ready, ready]) step(p);
    expect(writes).toBeLessThanOrEqual(4);
    expect(s.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(s.status?.nodeName).toBe('node-a');
  });
});

// The span data of a pass (spec §19.2): which Pod event the `reconcilePod` span carries and which
// error the `reconcilePVCs` span records.
import { describe, expect, it } from 'vitest';
import { NOW, SANDBOX_UID, ownerRef, pod, sandbox } from '../testing/builders.ts';
import { planSandbox, podStatusEvent, pvcStepError, type SandboxReads } from './plan.ts';

const reads = (fetched?: ReturnType<typeof pod>): SandboxReads => ({
  pvcs: new Map(),
  pods: { indexedPods: fetched ? [fetched] : [], fetchedPod: fetched },
  service: undefined,
});

function reconcilePlan(s = sandbox(), r = reads()) {
  const plan = planSandbox(s, r, NOW);
  if (plan.phase !== 'Reconcile') throw new Error(`unexpected phase ${plan.phase}`);
  return plan;
}

describe('podStatusEvent', () => {
  it('a created Pod is NewPodStatusObserved with the phase the server answered', () => {
    const plan = reconcilePlan();
    expect(plan.pod.write.action).toBe('Create');
    expect(podStatusEvent(plan.pod, pod('my-sandbox', { phase: 'Pending' }))).toEqual({
      name: 'NewPodStatusObserved',
      attributes: { 'pod.Name': 'my-sandbox', 'pod.Phase': 'Pending' },
    });
  });

  it('a create the server did not answer observed no Pod', () => {
    expect(podStatusEvent(reconcilePlan().pod, undefined)).toBeUndefined();
  });

  it('a Pod already there is ExistingPodStatusObserved, patched or not', () => {
    const existing = pod('my-sandbox', { owner: ownerRef(SANDBOX_UID), phase: 'Running' });
    const plan = reconcilePlan(sandbox(), reads(existing));
    expect(plan.pod.write.action).not.toBe('Create');
    const event = {
      name: 'ExistingPodStatusObserved',
      attributes: { 'pod.Name': 'my-sandbox', 'pod.Phase': 'Running' },
    };
    expect(podStatusEvent(plan.pod, undefined)).toEqual(event);
    expect(podStatusEvent(plan.pod, existing)).toEqual(event);
  });

  it('an empty phase is reported as empty, not dropped', () => {
    const existing = pod('my-sandbox', { owner: ownerRef(SANDBOX_UID) });
    const plan = reconcilePlan(sandbox(), reads(existing));
    expect(podStatusEvent(plan.pod, undefined)?.attributes['pod.Phase']).toBe('');
  });
});

describe('pvcStepError', () => {
  it('is the failed write, or nothing', () => {
    const plan = reconcilePlan();
    expect(pvcStepError(plan, { now: NOW })).toBeUndefined();
    const failed = new Error('pvc create failed');
    expect(pvcStepError(plan, { now: NOW, pvcError: failed })).toBe(failed);
  });
});

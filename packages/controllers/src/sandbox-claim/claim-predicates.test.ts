// Spec §21.3 TestSandboxStatusRelevantChange, TestWarmPoolMapWatchPredicate and
// TestSandboxTemplateCreatePredicate on the pure filters.
import { describe, expect, it } from 'vitest';
import type { SandboxObj } from '../extensions/resources.ts';
import {
  TEMPLATE_FILTER,
  WARM_POOL_FILTER,
  sandboxStatusRelevantChange,
} from './claim-predicates.ts';

const ready = (status: 'True' | 'False', reason: string) => ({
  type: 'Ready',
  status,
  reason,
  message: 'm',
  lastTransitionTime: '2026-01-01T00:00:00Z',
});
const base: SandboxObj = {
  metadata: { name: 's', namespace: 'ns', resourceVersion: '1' },
  spec: { podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox' }] } } },
  status: { podIPs: ['10.0.0.1'], conditions: [ready('True', 'DependenciesReady')] },
};
const changed = (edit: (s: SandboxObj) => void): SandboxObj => {
  const next = structuredClone(base);
  edit(next);
  return next;
};

describe('sandboxStatusRelevantChange', () => {
  it('TestSandboxStatusRelevantChange: only deletion, podIPs, Ready (incl. reason-only) and Finished changes pass', () => {
    const relevant = {
      deletion: changed((s) => {
        s.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
      }),
      podIPs: changed((s) => {
        s.status!.podIPs = ['10.0.0.2'];
      }),
      'Ready status': changed((s) => {
        s.status!.conditions = [ready('False', 'DependenciesNotReady')];
      }),
      'Ready reason only': changed((s) => {
        s.status!.conditions = [ready('True', 'Other')];
      }),
      Finished: changed((s) => {
        s.status!.conditions!.push({ ...ready('True', 'PodSucceeded'), type: 'Finished' });
      }),
    };
    const irrelevant = {
      label: changed((s) => {
        s.metadata.labels = { x: 'y' };
      }),
      resourceVersion: changed((s) => {
        s.metadata.resourceVersion = '2';
      }),
      nodeName: changed((s) => {
        s.status!.nodeName = 'n1';
      }),
      'other condition': changed((s) => {
        s.status!.conditions!.push({ ...ready('True', 'PodScheduled'), type: 'PodScheduled' });
      }),
      spec: changed((s) => {
        s.spec.podTemplate.spec.containers[0]!.image = 'busybox:2';
      }),
    };
    for (const [name, next] of Object.entries(relevant))
      expect(sandboxStatusRelevantChange(base, next), name).toBe(true);
    for (const [name, next] of Object.entries(irrelevant))
      expect(sandboxStatusRelevantChange(base, next), name).toBe(false);
  });
});

describe('pool and template filters', () => {
  const obj = (generation: number) => ({ metadata: { name: 'p', generation } });
  it('TestWarmPoolMapWatchPredicate: a pool update passes only with a generation change', () => {
    expect(WARM_POOL_FILTER.update?.(obj(1), obj(1))).toBe(false);
    expect(WARM_POOL_FILTER.update?.(obj(1), obj(2))).toBe(true);
    expect(WARM_POOL_FILTER.create).toBeUndefined();
    expect(WARM_POOL_FILTER.delete).toBeUndefined();
  });

  it('TestSandboxTemplateCreatePredicate: only template creations pass', () => {
    expect(TEMPLATE_FILTER.create).toBeUndefined();
    expect(TEMPLATE_FILTER.update?.(obj(1), obj(2))).toBe(false);
    expect(TEMPLATE_FILTER.delete?.(obj(1))).toBe(false);
  });
});

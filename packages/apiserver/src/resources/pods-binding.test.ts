import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../objects.ts';
import { bindingProblems, boundPod } from './pods-binding.ts';

const binding = (
  target: Record<string, unknown>,
  meta: KubeObject['metadata'] = {},
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Binding',
  metadata: { name: 'a', ...meta },
  target,
});

describe('bindingProblems', () => {
  it('accepts a Node target or an untyped one', () => {
    expect(bindingProblems(binding({ name: 'n' }))).toEqual([]);
    expect(bindingProblems(binding({ kind: 'Node', name: 'n' }))).toEqual([]);
  });

  it('reports kind before name, as ValidatePodBinding does', () => {
    expect(bindingProblems(binding({ kind: 'Pod' }))).toEqual([
      'target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"',
      'target.name: Required value',
    ]);
  });
});

describe('boundPod', () => {
  const now = new Date('2026-01-02T03:04:05.678Z');
  const pod: KubeObject = {
    metadata: { name: 'a', labels: { app: 'x' } },
    spec: { containers: [] },
    status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] },
  };

  it('sets nodeName, merges labels and annotations and adds PodScheduled=True', () => {
    const out = boundPod(
      pod,
      binding({ name: 'n1' }, { labels: { zone: 'z' }, annotations: { a: 'b' } }),
      now,
    );
    expect(out['spec']).toEqual({ containers: [], nodeName: 'n1' });
    expect(out.metadata.labels).toEqual({ app: 'x', zone: 'z' });
    expect(out.metadata.annotations).toEqual({ a: 'b' });
    expect((out['status'] as { conditions: unknown[] }).conditions).toEqual([
      { type: 'Ready', status: 'False' },
      {
        type: 'PodScheduled',
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: '2026-01-02T03:04:05Z',
      },
    ]);
    expect(pod['spec']).toEqual({ containers: [] });
  });

  it('replaces a False PodScheduled and keeps the time of a True one', () => {
    const unschedulable = {
      ...pod,
      status: {
        conditions: [{ type: 'PodScheduled', status: 'False', lastTransitionTime: 'old' }],
      },
    };
    const scheduled = {
      ...pod,
      status: { conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: 'old' }] },
    };
    const time = (p: KubeObject) =>
      (
        boundPod(p, binding({ name: 'n' }), now)['status'] as {
          conditions: { lastTransitionTime: string }[];
        }
      ).conditions[0]?.lastTransitionTime;
    expect(time(unschedulable)).toBe('2026-01-02T03:04:05Z');
    expect(time(scheduled)).toBe('old');
  });
});

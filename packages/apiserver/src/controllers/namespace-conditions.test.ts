import { describe, expect, it } from 'vitest';
import { computeNamespaceConditions } from './namespace-conditions.ts';

const none = { remaining: new Map(), finalizers: new Map(), errors: [] };

describe('computeNamespaceConditions', () => {
  it('appends the five conditions, healthy, in kube order', () => {
    const { conditions, changed } = computeNamespaceConditions([], none, 'T0');
    expect(changed).toBe(true);
    expect(conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered'],
      ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions'],
      ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted'],
      ['NamespaceContentRemaining', 'False', 'ContentRemoved'],
      ['NamespaceFinalizersRemaining', 'False', 'ContentHasNoFinalizers'],
    ]);
    expect(computeNamespaceConditions(conditions, none, 'T1').changed).toBe(false);
  });

  it('reports remaining content and finalizers with kube messages, sorted', () => {
    const totals = {
      remaining: new Map([
        ['sandboxes.agents.x-k8s.io', 1],
        ['configmaps.', 2],
      ]),
      finalizers: new Map([
        ['example.com/b', 1],
        ['example.com/a', 2],
      ]),
      errors: ['boom'],
    };
    const first = computeNamespaceConditions([], none, 'T0').conditions;
    const { conditions, changed } = computeNamespaceConditions(first, totals, 'T1');
    expect(changed).toBe(true);
    const byType = new Map(conditions.map((c) => [c.type, c]));
    expect(byType.get('NamespaceContentRemaining')).toEqual({
      type: 'NamespaceContentRemaining',
      status: 'True',
      lastTransitionTime: 'T1',
      reason: 'SomeResourcesRemain',
      message:
        'Some resources are remaining: configmaps. has 2 resource instances, sandboxes.agents.x-k8s.io has 1 resource instances',
    });
    expect(byType.get('NamespaceFinalizersRemaining')?.message).toBe(
      'Some content in the namespace has finalizers remaining: example.com/a in 2 resource instances, example.com/b in 1 resource instances',
    );
    expect(byType.get('NamespaceDeletionContentFailure')).toMatchObject({
      status: 'True',
      reason: 'ContentDeletionFailed',
      message: 'Failed to delete all resource types, 1 remaining: boom',
    });
    expect(byType.get('NamespaceDeletionDiscoveryFailure')?.lastTransitionTime).toBe('T0');
  });

  it('keeps conditions of other types', () => {
    const other = { type: 'Custom', status: 'True', reason: 'R', message: 'm' };
    const { conditions } = computeNamespaceConditions([other], none, 'T0');
    expect(conditions[0]).toEqual(other);
    expect(conditions).toHaveLength(6);
  });
});

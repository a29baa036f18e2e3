// The conditions the namespace controller keeps on a terminating namespace, with
// kube-controller-manager's types, reasons and messages (namespace deletion's
// namespaceConditionUpdater; semantics doc §9.2). Pure: the caller supplies the totals and time.
import type { NamespaceCondition } from '@agent-sandbox/kube-types';

export const NamespaceConditionType = {
  DeletionDiscoveryFailure: 'NamespaceDeletionDiscoveryFailure',
  DeletionGroupVersionParsingFailure: 'NamespaceDeletionGroupVersionParsingFailure',
  DeletionContentFailure: 'NamespaceDeletionContentFailure',
  ContentRemaining: 'NamespaceContentRemaining',
  FinalizersRemaining: 'NamespaceFinalizersRemaining',
} as const;

type ConditionType = (typeof NamespaceConditionType)[keyof typeof NamespaceConditionType];

/** Types in the order kube appends them, with the reason and message of their healthy (False) state. */
const HEALTHY: readonly { type: ConditionType; reason: string; message: string }[] = [
  {
    type: NamespaceConditionType.DeletionDiscoveryFailure,
    reason: 'ResourcesDiscovered',
    message: 'All resources successfully discovered',
  },
  {
    type: NamespaceConditionType.DeletionGroupVersionParsingFailure,
    reason: 'ParsedGroupVersions',
    message: 'All legacy kube types successfully parsed',
  },
  {
    type: NamespaceConditionType.DeletionContentFailure,
    reason: 'ContentDeleted',
    message: 'All content successfully deleted, may be waiting on finalization',
  },
  {
    type: NamespaceConditionType.ContentRemaining,
    reason: 'ContentRemoved',
    message: 'All content successfully removed',
  },
  {
    type: NamespaceConditionType.FinalizersRemaining,
    reason: 'ContentHasNoFinalizers',
    message: 'All content-preserving finalizers finished',
  },
];

/** What one content-deletion pass found. */
export interface ContentTotals {
  /** Remaining objects per resource, keyed `<plural>.<group>` (core: `<plural>.`, as kube prints it). */
  remaining: ReadonlyMap<string, number>;
  /** Remaining objects per finalizer they carry. */
  finalizers: ReadonlyMap<string, number>;
  /** Messages of deletions that failed. */
  errors: readonly string[];
}

function failing(totals: ContentTotals): Map<ConditionType, { reason: string; message: string }> {
  const out = new Map<ConditionType, { reason: string; message: string }>();
  if (totals.errors.length > 0) {
    const all = totals.errors.length === 1 ? totals.errors[0] : `[${totals.errors.join(', ')}]`;
    out.set(NamespaceConditionType.DeletionContentFailure, {
      reason: 'ContentDeletionFailed',
      message: `Failed to delete all resource types, ${totals.errors.length} remaining: ${all}`,
    });
  }
  const remaining = [...totals.remaining]
    .filter(([, n]) => n > 0)
    .map(([resource, n]) => `${resource} has ${n} resource instances`)
    .sort();
  if (remaining.length > 0) {
    out.set(NamespaceConditionType.ContentRemaining, {
      reason: 'SomeResourcesRemain',
      message: `Some resources are remaining: ${remaining.join(', ')}`,
    });
  }
  const finalizers = [...totals.finalizers]
    .filter(([, n]) => n > 0)
    .map(([finalizer, n]) => `${finalizer} in ${n} resource instances`)
    .sort();
  if (finalizers.length > 0) {
    out.set(NamespaceConditionType.FinalizersRemaining, {
      reason: 'SomeFinalizersRemain',
      message: `Some content in the namespace has finalizers remaining: ${finalizers.join(', ')}`,
    });
  }
  return out;
}

/**
 * The namespace's conditions after a pass: each of the five types is True with the failure's
 * reason and message, or False with its healthy ones. Existing conditions are updated in place
 * (their lastTransitionTime moves only when the status flips); missing ones are appended in
 * kube's order; conditions of other types are kept.
 * @returns the conditions, and whether anything changed (whether a status write is needed)
 */
export function computeNamespaceConditions(
  old: readonly NamespaceCondition[],
  totals: ContentTotals,
  now: string,
): { conditions: NamespaceCondition[]; changed: boolean } {
  const failures = failing(totals);
  const conditions = old.map((c) => ({ ...c }));
  let changed = false;
  for (const healthy of HEALTHY) {
    const failure = failures.get(healthy.type);
    const status = failure ? 'True' : 'False';
    const { reason, message } = failure ?? healthy;
    const existing = conditions.find((c) => c.type === healthy.type);
    if (!existing) {
      conditions.push({ type: healthy.type, status, lastTransitionTime: now, reason, message });
      changed = true;
      continue;
    }
    if (existing.status === status && existing.message === message) continue;
    if (existing.status !== status) existing.lastTransitionTime = now;
    existing.status = status;
    existing.reason = reason;
    existing.message = message;
    changed = true;
  }
  return { conditions, changed };
}

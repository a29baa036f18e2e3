// The Pod cache transform (spec §11.1): cached Pods keep metadata (labels, annotations, owner
// references) and status, and lose managedFields, finalizers and every spec field but nodeName.
// Safe because every Pod write is a metadata-only merge patch diffed against the same object.
import { PODS } from '@agent-sandbox/kube';
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import { informerKey } from '@agent-sandbox/runtime';

/** A copy of the Pod as the cache keeps it; anything that is not a Pod passes through unchanged. */
export function podCacheTransform<T>(obj: T): T {
  if (!isPod(obj)) return obj;
  const metadata = { ...(obj.metadata ?? {}) };
  delete metadata.managedFields;
  delete metadata.finalizers;
  const out: Pod = { ...obj, metadata };
  const nodeName = obj.spec?.nodeName;
  if (obj.spec !== undefined) {
    // Deliberately not a valid PodSpec (no containers), as upstream's PodSpec{NodeName}: nothing
    // downstream reads any other spec field, and Pod writes never carry the spec.
    out.spec = (nodeName === undefined ? {} : { nodeName }) as Pod['spec'];
  }
  return out as T;
}

// List items carry no kind (the list does), so a missing kind counts as a Pod; tombstones and
// other kinds have a different shape or kind and pass through.
function isPod(obj: unknown): obj is Pod {
  if (typeof obj !== 'object' || obj === null) return false;
  const { kind, metadata } = obj as { kind?: unknown; metadata?: unknown };
  return (
    (kind === 'Pod' || kind === undefined) && typeof metadata === 'object' && metadata !== null
  );
}

/** The Manager's `cacheTransforms` for the Sandbox controller (upstream sets the same in main). */
export const sandboxCacheTransforms: Readonly<Record<string, (obj: KubeObject) => KubeObject>> = {
  [informerKey(PODS)]: podCacheTransform,
};

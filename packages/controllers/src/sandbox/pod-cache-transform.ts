// The Pod cache transform (spec §11.1): cached Pods keep metadata (labels, annotations, owner
// references) and status, and lose managedFields, finalizers and every spec field but nodeName.
// Safe because every Pod write is a metadata-only merge patch diffed against the same object.
import type { Pod } from '@agent-sandbox/kube-types';

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

function isPod(obj: unknown): obj is Pod {
  return (
    typeof obj === 'object' &&
    obj !== null &&
    (obj as { kind?: unknown }).kind === 'Pod' &&
    typeof (obj as { metadata?: unknown }).metadata === 'object'
  );
}

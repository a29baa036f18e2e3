// kube-apiserver's namespace strategy (pkg/registry/core/namespace/strategy.go) for the write
// paths: a created namespace is Active and carries the `kubernetes` finalizer in spec.finalizers,
// which only `PUT .../finalize` may change afterwards; every namespace carries the
// `kubernetes.io/metadata.name` label (defaulting). Pure: objects.ts calls these for namespaces.
import type { KubeObject } from '../objects.ts';

export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

function spec(obj: KubeObject): Record<string, unknown> {
  const s = obj['spec'];
  return typeof s === 'object' && s !== null && !Array.isArray(s)
    ? { ...(s as Record<string, unknown>) }
    : {};
}

function labelWithName(obj: KubeObject): void {
  const name = obj.metadata.name;
  if (name) obj.metadata.labels = { ...obj.metadata.labels, [NAMESPACE_NAME_LABEL]: name };
}

/** PrepareForCreate: status is `{phase: Active}`, spec.finalizers includes `kubernetes`. */
export function prepareNamespaceCreate(obj: KubeObject): void {
  const next = spec(obj);
  const finalizers = Array.isArray(next['finalizers']) ? (next['finalizers'] as unknown[]) : [];
  if (!finalizers.includes('kubernetes')) next['finalizers'] = [...finalizers, 'kubernetes'];
  obj['spec'] = next;
  obj['status'] = { phase: 'Active' };
  labelWithName(obj);
}

/** PrepareForUpdate of the main resource: spec.finalizers stay as stored. */
export function prepareNamespaceUpdate(old: KubeObject, next: KubeObject): void {
  const kept = spec(old)['finalizers'];
  const s = spec(next);
  if (kept === undefined) delete s['finalizers'];
  else s['finalizers'] = kept;
  next['spec'] = s;
  labelWithName(next);
}

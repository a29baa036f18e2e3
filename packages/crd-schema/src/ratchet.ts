// Correlation of a new value with its old counterpart on update, for validation ratcheting
// (KEP-4008, CRDValidationRatcheting, on by default in 1.32; kube-openapi
// pkg/validation/validate/ratcheting.go, k8s.io/apiserver/pkg/cel/common CorrelatedObject).
// Values correlate through object properties and map keys and through list-type=map items with
// equal map keys; items of sets and atomic lists do not correlate (CorrelatedObject.Index
// returns nil for them), so they are only ratcheted when their whole list is unchanged.
import { canonicalJSON, jsonEqual } from './json.ts';
import { isObject, type SchemaNode } from './node.ts';

/** The old value a new one correlates with; undefined when there is none (create, new key). */
export type Old = { readonly value: unknown } | undefined;

/** Whether the value is unchanged, so its validation errors are ratcheted away. */
export function isUnchanged(old: Old, value: unknown): boolean {
  return old !== undefined && jsonEqual(old.value, value);
}

export function oldField(old: Old, k: string): Old {
  return old !== undefined && isObject(old.value) && Object.hasOwn(old.value, k)
    ? { value: old.value[k] }
    : undefined;
}

/** A function from a new list item to its old counterpart, for the list at schema `s`. */
export function oldItems(s: SchemaNode, old: Old): (item: unknown) => Old {
  if (old === undefined || !Array.isArray(old.value)) return () => undefined;
  const list = old.value;
  if (s.listType === 'map') {
    const id = (x: unknown): string | undefined =>
      isObject(x)
        ? s.listMapKeys.map((k) => canonicalJSON(x[k] ?? null)).join('\u0000')
        : undefined;
    const byKey = new Map<string, unknown>();
    for (const x of list) {
      const k = id(x);
      if (k !== undefined && !byKey.has(k)) byKey.set(k, x);
    }
    return (item) => {
      const k = id(item);
      return k !== undefined && byKey.has(k) ? { value: byKey.get(k) } : undefined;
    };
  }
  return () => undefined;
}

// Defaulting, after apiextensions-apiserver/pkg/apiserver/schema/defaulting:
// prunenulls.go (PruneNonNullableNullsWithoutDefaults) then algorithm.go (Default).
import { isObject, type SchemaNode } from './node.ts';

/** JSON deep copy: defaults are copied so that objects never share a default's storage. */
function copyJSON(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(copyJSON);
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = copyJSON(x);
    return out;
  }
  return v;
}

/** A `null` the schema does not allow (algorithm.go isNonNullableNull). */
function isNonNullableNull(v: unknown, s: SchemaNode | undefined): boolean {
  return v === null && s !== undefined && !s.nullable;
}

/**
 * Drop `null` values of non-nullable properties that have no default (they are treated as
 * absent); nulls with a default are left for `defaultValue` to replace. List items are never
 * removed, only recursed into.
 */
export function pruneNonNullableNullsWithoutDefaults(x: unknown, s: SchemaNode | undefined): void {
  if (s === undefined) return;
  if (Array.isArray(x)) {
    for (const v of x) pruneNonNullableNullsWithoutDefaults(v, s.items);
    return;
  }
  if (!isObject(x)) return;
  for (const k of Object.keys(x)) {
    const prop = s.properties?.get(k) ?? s.additionalProperties;
    if (prop === undefined) continue;
    if (isNonNullableNull(x[k], prop) && !prop.hasDefault) delete x[k];
    else pruneNonNullableNullsWithoutDefaults(x[k], prop);
  }
}

/**
 * Apply defaults in place: a property's default is set when the property is missing or a
 * non-nullable null; then recurse into every property (so fields inside a freshly defaulted
 * object get their own defaults), additionalProperties values and list items.
 */
export function defaultValue(x: unknown, s: SchemaNode | undefined): void {
  if (s === undefined) return;
  if (Array.isArray(x)) {
    const items = s.items;
    if (items === undefined) return;
    x.forEach((v, i) => {
      if (isNonNullableNull(v, items) && items.hasDefault) x[i] = copyJSON(items.props.default);
      defaultValue(x[i], items);
    });
    return;
  }
  if (!isObject(x)) return;
  for (const [k, prop] of s.properties ?? []) {
    if (!prop.hasDefault) continue;
    if (!Object.hasOwn(x, k) || isNonNullableNull(x[k], prop)) x[k] = copyJSON(prop.props.default);
  }
  for (const k of Object.keys(x)) {
    const prop = s.properties?.get(k);
    if (prop !== undefined) {
      defaultValue(x[k], prop);
    } else if (s.additionalProperties !== undefined) {
      const ap = s.additionalProperties;
      if (isNonNullableNull(x[k], ap) && ap.hasDefault) x[k] = copyJSON(ap.props.default);
      defaultValue(x[k], ap);
    }
  }
}

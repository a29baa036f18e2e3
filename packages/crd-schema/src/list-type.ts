// x-kubernetes-list-type set/map uniqueness, after apiextensions-apiserver
// pkg/apiserver/schema/listtype/validation.go (ValidateListSetsAndMaps). Paths use field.Path
// rendering (map keys as `[key]`); only the second occurrence of a duplicate is reported.
import { duplicate, invalid, type FieldIssue } from './field-issue.ts';
import { canonicalJSON } from './json.ts';
import { isObject, type SchemaNode } from './node.ts';
import { child, index, key } from './paths.ts';

/** Indices whose identity was already seen exactly once before (validateListSet's counting). */
function secondOccurrences(identities: readonly string[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  identities.forEach((id, i) => {
    const times = seen.get(id) ?? 0;
    if (times === 1) out.push(i);
    seen.set(id, times + 1);
  });
  return out;
}

function validateSet(path: string, list: unknown[], out: FieldIssue[]): void {
  if (list.length <= 1) return;
  // Scalars compare by value and compounds by their JSON; a string "1" and a number 1 differ.
  const ids = list.map((x) => `${typeof x}:${canonicalJSON(x)}`);
  for (const i of secondOccurrences(ids)) out.push(duplicate(index(path, i), list[i]));
}

/**
 * validateListMap: with one key, items are identified by that key's value (a null item or a
 * missing key is "unspecified", reported as `{}`); with several keys,
 * by the map of the keys that are present. Defaults play no part here; admission defaulted
 * the keys already.
 */
function validateMap(path: string, s: SchemaNode, list: unknown[], out: FieldIssue[]): void {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && !isObject(x)) {
      out.push(invalid(index(path, i), x, 'must be an object for an array of list-type map'));
      return;
    }
  }
  if (list.length <= 1) return;
  const keyMaps = list.map((x) => {
    const m: Record<string, unknown> = {};
    for (const k of s.listMapKeys) if (isObject(x) && Object.hasOwn(x, k)) m[k] = x[k];
    return m;
  });
  const single = s.listMapKeys.length === 1 ? s.listMapKeys[0] : undefined;
  const ids = keyMaps.map((m) => {
    if (single === undefined) return canonicalJSON(m);
    return Object.hasOwn(m, single)
      ? `${typeof m[single]}:${canonicalJSON(m[single])}`
      : 'unspecified';
  });
  for (const i of secondOccurrences(ids)) out.push(duplicate(index(path, i), keyMaps[i]));
}

function walk(path: string, s: SchemaNode | undefined, x: unknown, out: FieldIssue[]): void {
  if (s === undefined || !s.hasListChecksBelow) return;
  if (Array.isArray(x)) {
    if (s.listType === 'set') validateSet(path, x, out);
    else if (s.listType === 'map') validateMap(path, s, x, out);
    if (s.items !== undefined) x.forEach((v, i) => walk(index(path, i), s.items, v, out));
    return;
  }
  if (!isObject(x)) return;
  for (const [k, v] of Object.entries(x)) {
    const prop = s.properties?.get(k);
    if (prop !== undefined) walk(child(path, k), prop, v, out);
    else if (s.additionalProperties !== undefined)
      walk(key(path, k), s.additionalProperties, v, out);
  }
}

export function validateListTypes(root: SchemaNode, obj: unknown): FieldIssue[] {
  const out: FieldIssue[] = [];
  walk('', root, obj, out);
  return out;
}

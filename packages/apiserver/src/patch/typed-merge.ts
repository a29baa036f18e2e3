// The apply merge and prune of structured-merge-diff's typed package (merge.go, remove.go as
// Updater.prune uses it), over the shapes and list keys defined in typed.ts.
import { FieldSet, fieldElement, serializePathElement, type PathElement } from './field-set.ts';
import { deepClone, isObject, type JsonObject } from './json-value.ts';
import { DEDUCED, type MergeSchema } from './merge-schema.ts';
import { groupList, isEmptyContainer, itemElement, mapChild, pairShape, shapeOf } from './typed.ts';

/** The apply merge (TypedValue.Merge): the right-hand side wins at leaves; maps and lists merge. */
export function mergeValues(l: unknown, r: unknown, schema: MergeSchema): unknown {
  if (r === undefined) return deepClone(l);
  if (l === undefined) return withoutNulls(r);
  const shape = pairShape(schema, l, r);
  if (shape === 'leaf') return withoutNulls(r);
  if (shape === 'map') {
    const lm = (isObject(l) ? l : {}) as JsonObject;
    const rm = (isObject(r) ? r : {}) as JsonObject;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(lm)) {
      const merged = mergeValues(v, rm[k], mapChild(schema, k) ?? DEDUCED);
      if (merged !== undefined) out[k] = merged;
    }
    for (const [k, v] of Object.entries(rm)) {
      if (!Object.hasOwn(lm, k) && v !== null) out[k] = withoutNulls(v);
    }
    return out;
  }
  return mergeLists(Array.isArray(l) ? l : [], Array.isArray(r) ? r : [], schema);
}

/**
 * A copy of applied content without `null` map entries, which clear a field. (kube keeps them in
 * the merged value; decoding into the built-in types and CR pruning of non-nullable nulls then
 * drop them, so the stored object never has them.) A null leaf becomes undefined: removed.
 */
function withoutNulls(v: unknown): unknown {
  if (v === null) return undefined;
  if (Array.isArray(v)) return v.map((x) => (x === null ? null : withoutNulls(x)));
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = withoutNulls(x);
  return out;
}

/**
 * Merge two associative lists keeping a stable order (structured-merge-diff's visitListItems):
 * items shared by both sides follow the right-hand side's order, left-only items keep their
 * place, right-only items are inserted where the right-hand side has them.
 */
function mergeLists(lhs: unknown[], rhs: unknown[], schema: MergeSchema): unknown[] {
  const li = groupList(schema, lhs);
  const ri = groupList(schema, rhs);
  const keyOf = serializePathElement;
  const shared = ri.order.map(keyOf).filter((k) => li.groups.has(k));
  let sharedPos = 0;
  const nextShared = (): string | undefined => shared[sharedPos];
  const out: unknown[] = [];
  const emit = (key: string): void => {
    const lg = li.groups.get(key) ?? [];
    const r = ri.groups.get(key)?.[0];
    // Duplicated live items stay as they are unless the configuration names their key; then
    // the applied item replaces them all.
    if (lg.length > 1) {
      if (r === undefined) out.push(...lg);
      else out.push(withoutNulls(r));
      return;
    }
    const merged = mergeValues(lg[0], r, schema.items());
    if (merged !== undefined) out.push(merged);
  };
  let l = 0;
  let r = 0;
  while (l < li.order.length || r < ri.order.length) {
    if (l < li.order.length && r < ri.order.length) {
      const lk = keyOf(li.order[l] as PathElement);
      if (lk === keyOf(ri.order[r] as PathElement)) {
        emit(lk);
        l++;
        r++;
        sharedPos++;
        continue;
      }
      if (ri.groups.has(lk) && nextShared() !== undefined && nextShared() !== lk) {
        l++; // a shared item the right-hand side places later
        continue;
      }
    }
    if (l < li.order.length) {
      const lk = keyOf(li.order[l] as PathElement);
      if (!ri.groups.has(lk)) {
        emit(lk);
        l++;
        continue;
      }
    }
    if (r < ri.order.length) {
      const rk = keyOf(ri.order[r] as PathElement);
      emit(rk);
      r++;
      if (nextShared() === rk) sharedPos++;
    }
  }
  return out;
}

/**
 * Updater.prune: drop what the applier owned last time (`last`) and nobody owns now (`owned`),
 * both with named fields as members. A removed node takes its whole subtree with it.
 */
export function pruneFields(
  v: unknown,
  last: FieldSet,
  owned: FieldSet,
  schema: MergeSchema,
): unknown {
  const shape = shapeOf(schema, v);
  if (shape === 'leaf' || isEmptyContainer(v)) return v;
  const decide = (child: unknown, pe: PathElement, cs: MergeSchema): unknown => {
    const key = serializePathElement(pe);
    const l = last.children.get(key)?.set;
    if (l === undefined) return child;
    const o = owned.children.get(key)?.set;
    if (l.member && !(o?.member ?? false)) return undefined;
    if (l.children.size === 0) return child;
    return pruneFields(child, l, o ?? new FieldSet(), cs);
  };
  if (shape === 'map') {
    const out: JsonObject = {};
    for (const [k, child] of Object.entries(v as JsonObject)) {
      const kept = decide(child, fieldElement(k), mapChild(schema, k) ?? DEDUCED);
      if (kept !== undefined) out[k] = kept;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  const out: unknown[] = [];
  for (const item of v as unknown[]) {
    const pe = itemElement(schema, item);
    const kept = typeof pe === 'string' ? item : decide(item, pe, schema.items());
    if (kept !== undefined) out.push(kept);
  }
  return out.length > 0 ? out : undefined;
}

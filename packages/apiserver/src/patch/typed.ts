// Schema-aware walks over JSON values, after structured-merge-diff's typed package: the field set
// of a value (tofieldset.go), the comparison of two values (Compare: added/modified/removed),
// the apply merge (merge.go, right-hand side wins) and removal of a field set (remove.go).
import {
  FieldSet,
  fieldElement,
  keyElement,
  pathToString,
  serializePathElement,
  valueElement,
  type FieldPath,
  type PathElement,
} from './field-set.ts';
import { deepEqual, goFormat, isObject, type JsonObject } from './json-value.ts';
import { DEDUCED, type MergeSchema } from './merge-schema.ts';

type Shape = 'leaf' | 'map' | 'list';

/** How a value is walked under a schema node: atomic maps/lists and scalars are leaves. */
export function shapeOf(schema: MergeSchema, v: unknown): Shape {
  if (isObject(v)) {
    if (schema.kind === 'deduced') return 'map';
    return schema.kind === 'map' && schema.mapType === 'granular' ? 'map' : 'leaf';
  }
  if (Array.isArray(v)) {
    return schema.kind === 'list' && schema.listType !== 'atomic' ? 'list' : 'leaf';
  }
  return 'leaf';
}

export function isEmptyContainer(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

/**
 * The shape both sides are walked with. `null` takes the other side's shape (SMD's deduceAtom
 * leaves nil untyped); containers empty or absent on both sides are leaves.
 */
export function pairShape(schema: MergeSchema, l: unknown, r: unknown): Shape {
  const sl = l === undefined || l === null ? undefined : shapeOf(schema, l);
  const sr = r === undefined || r === null ? undefined : shapeOf(schema, r);
  if (sl !== undefined && sr !== undefined && sl !== sr) return 'leaf';
  const s = sl ?? sr ?? 'leaf';
  if (s !== 'leaf' && isEmptyContainer(l) && isEmptyContainer(r)) return 'leaf';
  return s;
}

/** The schema of map key `key`: a declared field, else the element type, else undefined. */
export function mapChild(schema: MergeSchema, key: string): MergeSchema | undefined {
  if (schema.kind === 'deduced') return DEDUCED;
  return schema.field(key) ?? schema.elements();
}

/** The path element of a list item: `k:{…}` for list maps, `v:…` for sets (listItemToPathElement). */
export function itemElement(list: MergeSchema, item: unknown): PathElement | string {
  if (list.listType === 'map' && list.listMapKeys.length > 0) {
    if (item === null) return 'associative list with keys may not have a null element';
    if (!isObject(item)) return 'associative list with keys may not have non-map elements';
    const fields: [string, unknown][] = [];
    for (const key of list.listMapKeys) {
      let v = item[key];
      if (v === undefined) v = list.items().field(key)?.defaultValue;
      if (v === undefined) {
        return `associative list with keys has an element that omits key field ${JSON.stringify(key)} (and doesn't have default value)`;
      }
      fields.push([key, v]);
    }
    return keyElement(fields);
  }
  if (item === null) return "associative list without keys has an element that's an explicit null";
  if (Array.isArray(item)) return 'not supported: associative list with lists as elements';
  return valueElement(item);
}

/** List items grouped by path element, in order of first appearance. */
interface GroupedList {
  readonly order: PathElement[];
  readonly groups: Map<string, unknown[]>;
}

/**
 * Key every item. Items sharing a key (duplicates, which kube 1.27+ tolerates in stored objects)
 * form one group that is compared and owned as a whole; unkeyable items are kept under their
 * index (`i:<n>`) so that a merge never loses them.
 */
export function groupList(schema: MergeSchema, list: readonly unknown[] | undefined): GroupedList {
  const order: PathElement[] = [];
  const groups = new Map<string, unknown[]>();
  (list ?? []).forEach((item, index) => {
    let pe = itemElement(schema, item);
    if (typeof pe === 'string') pe = { kind: 'index', index };
    const key = serializePathElement(pe);
    const group = groups.get(key);
    if (group !== undefined) group.push(item);
    else {
      groups.set(key, [item]);
      order.push(pe);
    }
  });
  return { order, groups };
}

/** Go's `%T` of a decoded JSON value. */
function goType(v: unknown): string {
  if (Array.isArray(v)) return '[]interface {}';
  if (isObject(v)) return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v;
}

/** The validation error structured-merge-diff reports for a value of the wrong JSON type. */
function typeMismatch(s: MergeSchema, v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (s.kind === 'map' && !isObject(v)) return `expected map, got ${goFormat(v)}`;
  if (s.kind === 'list' && !Array.isArray(v)) return `expected list, got ${goFormat(v)}`;
  if (s.kind !== 'scalar' || s.scalarType === 'untyped') return undefined;
  if (isObject(v) || Array.isArray(v)) return `expected ${s.scalarType}, got ${goType(v)}`;
  if (s.scalarType === 'numeric' && typeof v !== 'number') {
    return `expected numeric (int or float), got ${goType(v)}`;
  }
  if (s.scalarType === 'string' && typeof v !== 'string') {
    return `expected string, got ${goFormat(v)}`;
  }
  if (s.scalarType === 'boolean' && typeof v !== 'boolean') {
    return `expected boolean, got ${goFormat(v)}`;
  }
  return undefined;
}

export interface FieldSetOptions {
  /** Report fields the schema does not declare and list items without keys (for applied configs). */
  strict?: boolean;
}

/**
 * The set of fields a value sets (typed.ToFieldSet): leaves, atomic lists/maps, list items and
 * map entries that are not struct fields. With `strict`, schema mismatches are collected in the
 * returned `errors` ("<path>: <message>").
 */
export function toFieldSet(
  value: unknown,
  schema: MergeSchema,
  options: FieldSetOptions = {},
): { set: FieldSet; errors: string[] } {
  const set = new FieldSet();
  const errors: string[] = [];
  const walk = (v: unknown, s: MergeSchema, path: PathElement[]): void => {
    const shape = shapeOf(s, v);
    if (shape === 'leaf') {
      if (options.strict) {
        const problem = typeMismatch(s, v);
        if (problem !== undefined) errors.push(`${pathToString(path)}: ${problem}`);
      }
      // A null granular map or list sets nothing (doMap/doList on a nil value).
      const granular =
        (s.kind === 'map' && s.mapType === 'granular') ||
        (s.kind === 'list' && s.listType !== 'atomic');
      if (v !== null || !granular) set.insert(path);
      return;
    }
    if (shape === 'map') {
      for (const [k, child] of Object.entries(v as JsonObject)) {
        const pe = fieldElement(k);
        let cs = mapChild(s, k);
        if (cs === undefined) {
          if (options.strict)
            errors.push(`${pathToString([...path, pe])}: field not declared in schema`);
          cs = DEDUCED;
        }
        const childPath = [...path, pe];
        walk(child, cs, childPath);
        // Map entries that are not struct fields are members themselves; struct fields are
        // owned only through their leaves, so `{}` in a struct field owns nothing.
        if (s.kind === 'deduced' || s.field(k) === undefined) set.insert(childPath);
      }
      return;
    }
    const counts = new Map<string, number>();
    for (const item of v as unknown[]) {
      const pe = itemElement(s, item);
      if (typeof pe === 'string') continue;
      const key = serializePathElement(pe);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const seen = new Set<string>();
    (v as unknown[]).forEach((item, i) => {
      const pe = itemElement(s, item);
      if (typeof pe === 'string') {
        if (options.strict) errors.push(`${pathToString(path)}: element ${i}: ${pe}`);
        return;
      }
      const key = serializePathElement(pe);
      if (seen.has(key)) {
        if (options.strict) {
          errors.push(`${pathToString(path)}: duplicate entries for key ${pathToString([pe])}`);
        }
        return;
      }
      seen.add(key);
      // Duplicated items are owned once, as a whole.
      if ((counts.get(key) ?? 0) === 1) walk(item, s.items(), [...path, pe]);
      set.insert([...path, pe]);
    });
  };
  walk(value, schema, []);
  return { set, errors };
}

export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/**
 * TypedValue.Compare: leaves that appear, change or disappear, plus non-leaf nodes (maps, list
 * items) that appear or disappear as a whole.
 */
export function compare(lhs: unknown, rhs: unknown, schema: MergeSchema): Comparison {
  const c: Comparison = {
    added: new FieldSet(),
    modified: new FieldSet(),
    removed: new FieldSet(),
  };
  const walk = (l: unknown, r: unknown, s: MergeSchema, path: FieldPath): void => {
    const shape = pairShape(s, l, r);
    if (shape === 'leaf') {
      if (l === undefined) c.added.insert(path);
      else if (r === undefined) c.removed.insert(path);
      else if (!deepEqual(l, r)) c.modified.insert(path);
      return;
    }
    if (shape === 'map') {
      const lm = (isObject(l) ? l : {}) as JsonObject;
      const rm = (isObject(r) ? r : {}) as JsonObject;
      const keys = new Set([...Object.keys(lm), ...Object.keys(rm)]);
      for (const k of keys) {
        walk(lm[k], rm[k], mapChild(s, k) ?? DEDUCED, [...path, fieldElement(k)]);
      }
    } else {
      const li = groupList(s, Array.isArray(l) ? l : undefined);
      const ri = groupList(s, Array.isArray(r) ? r : undefined);
      const pes = [
        ...li.order,
        ...ri.order.filter((pe) => !li.groups.has(serializePathElement(pe))),
      ];
      for (const pe of pes) {
        if (pe.kind === 'index') continue;
        const key = serializePathElement(pe);
        const lg = li.groups.get(key);
        const rg = ri.groups.get(key);
        const itemPath = [...path, pe];
        if ((lg?.length ?? 0) > 1 || (rg?.length ?? 0) > 1) {
          compareDuplicates(lg, rg, s.items(), itemPath);
        } else walk(lg?.[0], rg?.[0], s.items(), itemPath);
      }
    }
    if (l === undefined) c.added.insert(path);
    else if (r === undefined) c.removed.insert(path);
  };
  /**
   * A duplicated key is one leaf: the group as a whole appears, disappears or changes. When one
   * side holds a single item, its sub-fields appear or disappear with it.
   */
  const compareDuplicates = (
    lg: unknown[] | undefined,
    rg: unknown[] | undefined,
    s: MergeSchema,
    path: FieldPath,
  ): void => {
    if (lg === undefined) c.added.insert(path);
    else if (rg === undefined) c.removed.insert(path);
    else if (!deepEqual(lg, rg)) c.modified.insert(path);
    const single = lg?.length === 1 ? lg[0] : rg?.length === 1 ? rg[0] : undefined;
    if (single === undefined) return;
    const sub = compare(
      lg?.length === 1 ? single : undefined,
      rg?.length === 1 ? single : undefined,
      s,
    );
    for (const p of sub.added.paths()) if (p.length > 0) c.added.insert([...path, ...p]);
    for (const p of sub.removed.paths()) if (p.length > 0) c.removed.insert([...path, ...p]);
  };
  walk(lhs, rhs, schema, []);
  return c;
}

/**
 * The object kube compares a create against: Go's zero value of the type, in which non-pointer
 * struct fields serialise as `{}` and fields without `omitempty` as `null` (so neither `spec`
 * nor `spec.containers` is "added" as a whole on create, while `metadata.labels` is).
 */
export function zeroObject(schema: MergeSchema, depth = 0): JsonObject {
  const out: JsonObject = {};
  if (schema.kind !== 'map' || depth > 16) return out;
  for (const name of schema.fieldNames()) {
    const f = schema.field(name);
    if (f?.presentWhenZero) out[name] = zeroObject(f, depth + 1);
    else if (schema.required.includes(name)) out[name] = null;
  }
  return out;
}

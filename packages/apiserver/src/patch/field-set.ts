// A set of field paths stored as a trie: structured-merge-diff's fieldpath.Set, and its FieldsV1
// JSON form in managedFields. Path elements are `f:<field>` (struct field or map key),
// `k:{…}` (list-map item by its key fields, sorted by name), `v:<json>` (set member) and
// `i:<n>` (list index); `"."` inside an element's object means the element itself is a member.
import { compareStrings, compareValues, goJson, isObject, valueToString } from './json-value.ts';
import { DEDUCED, type MergeSchema } from './merge-schema.ts';

export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'key'; readonly fields: readonly (readonly [string, unknown])[] }
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'index'; readonly index: number };

export type FieldPath = readonly PathElement[];

const fieldElements = new Map<string, PathElement>();

/** A struct field or map key element (interned: field names repeat across objects). */
export function fieldElement(name: string): PathElement {
  let pe = fieldElements.get(name);
  if (pe === undefined) {
    pe = { kind: 'field', name };
    if (fieldElements.size < 100_000) fieldElements.set(name, pe);
  }
  return pe;
}

/** A list-map item element; key fields are sorted by name as structured-merge-diff does. */
export function keyElement(fields: readonly (readonly [string, unknown])[]): PathElement {
  return { kind: 'key', fields: [...fields].sort((a, b) => compareStrings(a[0], b[0])) };
}

export function valueElement(value: unknown): PathElement {
  return { kind: 'value', value };
}

const serialized = new WeakMap<PathElement, string>();

/** The FieldsV1 key of a path element (memoised: elements are immutable). */
export function serializePathElement(pe: PathElement): string {
  if (pe.kind === 'field') return 'f:' + pe.name;
  let s = serialized.get(pe);
  if (s === undefined) {
    s = serializeUncached(pe);
    serialized.set(pe, s);
  }
  return s;
}

function serializeUncached(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return 'f:' + pe.name;
    case 'key':
      return 'k:{' + pe.fields.map(([k, v]) => `${goJson(k)}:${goJson(v)}`).join(',') + '}';
    case 'value':
      return 'v:' + goJson(pe.value);
    case 'index':
      return 'i:' + String(pe.index);
  }
}

export function parsePathElement(s: string): PathElement {
  const rest = s.slice(2);
  switch (s.slice(0, 2)) {
    case 'f:':
      return fieldElement(rest);
    case 'k:': {
      const parsed: unknown = JSON.parse(rest);
      if (!isObject(parsed)) throw new Error(`invalid key path element ${s}`);
      return keyElement(Object.entries(parsed));
    }
    case 'v:':
      return valueElement(JSON.parse(rest));
    case 'i:': {
      const index = Number(rest);
      if (!Number.isInteger(index)) throw new Error(`invalid index path element ${s}`);
      return { kind: 'index', index };
    }
    default:
      throw new Error(`unknown path element type in ${JSON.stringify(s)}`);
  }
}

const KIND_ORDER = { field: 0, key: 1, value: 2, index: 3 } as const;

/** fieldpath.PathElement.Compare: fields, then keys, then values, then indexes. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
  if (a.kind === 'field' && b.kind === 'field') return compareStrings(a.name, b.name);
  if (a.kind === 'key' && b.kind === 'key') {
    for (let i = 0; i < Math.max(a.fields.length, b.fields.length); i++) {
      const fa = a.fields[i];
      const fb = b.fields[i];
      if (fa === undefined) return -1;
      if (fb === undefined) return 1;
      const c = compareStrings(fa[0], fb[0]) || compareValues(fa[1], fb[1]);
      if (c !== 0) return c;
    }
    return 0;
  }
  if (a.kind === 'value' && b.kind === 'value') return compareValues(a.value, b.value);
  if (a.kind === 'index' && b.kind === 'index') return a.index - b.index;
  return 0;
}

/** fieldpath.Path.String: `.spec.containers[name="nginx"].ports[containerPort=80,protocol="TCP"]`. */
export function pathToString(path: FieldPath): string {
  return path
    .map((pe) => {
      switch (pe.kind) {
        case 'field':
          return '.' + pe.name;
        case 'key':
          return '[' + pe.fields.map(([k, v]) => `${k}=${valueToString(v)}`).join(',') + ']';
        case 'value':
          return `[=${valueToString(pe.value)}]`;
        case 'index':
          return `[${pe.index}]`;
      }
    })
    .join('');
}

interface Child {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

/**
 * A mutable set of field paths. `member` says whether the path leading to this node is itself in
 * the set; children are keyed by their serialised path element. Set operations are member-wise
 * (as fieldpath.Set's): removing `.a` does not remove `.a.b`.
 */
export class FieldSet {
  member = false;
  readonly children = new Map<string, Child>();

  static fromPaths(paths: readonly FieldPath[]): FieldSet {
    const set = new FieldSet();
    for (const p of paths) set.insert(p);
    return set;
  }

  /** Parse a managedFields `fieldsV1` object. */
  static fromFieldsV1(json: unknown): FieldSet {
    const set = new FieldSet();
    if (!isObject(json)) throw new Error('fieldsV1 must be an object');
    for (const [k, v] of Object.entries(json)) {
      if (k === '.') continue;
      const child = FieldSet.fromFieldsV1(v);
      if (isObject(v) && (Object.keys(v).length === 0 || Object.hasOwn(v, '.'))) {
        child.member = true;
      }
      if (!child.isEmpty()) set.children.set(k, { pe: parsePathElement(k), set: child });
    }
    return set;
  }

  isEmpty(): boolean {
    return !this.member && this.children.size === 0;
  }

  insert(path: FieldPath): void {
    let node = this as FieldSet;
    for (const pe of path) node = node.childOrCreate(pe);
    node.member = true;
  }

  has(path: FieldPath): boolean {
    const node = this.descend(path);
    return node !== undefined && node.member;
  }

  /** The subtree under one path element (empty when absent). */
  withPrefix(pe: PathElement): FieldSet {
    return this.children.get(serializePathElement(pe))?.set ?? new FieldSet();
  }

  descend(path: FieldPath): FieldSet | undefined {
    let node: FieldSet | undefined = this as FieldSet;
    for (const pe of path) node = node?.children.get(serializePathElement(pe))?.set;
    return node;
  }

  clone(): FieldSet {
    return this.union(new FieldSet());
  }

  union(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.member = this.member || other.member;
    for (const [k, c] of this.children) out.children.set(k, { pe: c.pe, set: c.set.clone0() });
    for (const [k, c] of other.children) {
      const mine = out.children.get(k);
      out.children.set(k, {
        pe: c.pe,
        set: mine === undefined ? c.set.clone0() : mine.set.union(c.set),
      });
    }
    return out;
  }

  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.member = this.member && !other.member;
    for (const [k, c] of this.children) {
      const theirs = other.children.get(k);
      const diff = theirs === undefined ? c.set.clone0() : c.set.difference(theirs.set);
      if (!diff.isEmpty()) out.children.set(k, { pe: c.pe, set: diff });
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.member = this.member && other.member;
    for (const [k, c] of this.children) {
      const theirs = other.children.get(k);
      if (theirs === undefined) continue;
      const both = c.set.intersection(theirs.set);
      if (!both.isEmpty()) out.children.set(k, { pe: c.pe, set: both });
    }
    return out;
  }

  /** fieldpath.Set.RecursiveDifference: also drops everything below a member of `other`. */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.member = this.member && !other.member;
    for (const [k, c] of this.children) {
      const theirs = other.children.get(k);
      if (theirs?.set.member) continue;
      const diff = theirs === undefined ? c.set.clone0() : c.set.recursiveDifference(theirs.set);
      if (!diff.isEmpty()) out.children.set(k, { pe: c.pe, set: diff });
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    return this.difference(other).isEmpty() && other.difference(this).isEmpty();
  }

  /**
   * fieldpath.Set.EnsureNamedFieldsAreMembers: a struct field that has descendants in the set is
   * made a member too (map keys and list items are not).
   */
  ensureNamedFieldsAreMembers(schema: MergeSchema): FieldSet {
    const out = new FieldSet();
    out.member = this.member;
    for (const [k, c] of this.children) {
      const childSchema = childSchemaFor(schema, c.pe);
      const set = c.set.ensureNamedFieldsAreMembers(childSchema);
      if (c.pe.kind === 'field' && schema.kind === 'map' && schema.field(c.pe.name) !== undefined) {
        set.member = true;
      }
      out.children.set(k, { pe: c.pe, set });
    }
    return out;
  }

  /** Every member path, in fieldpath.Set.Iterate order (members of a level before descents). */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    this.collect([], out);
    return out;
  }

  /** The managedFields `fieldsV1` object, keys in structured-merge-diff's serialisation order. */
  toFieldsV1(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const c of this.sortedChildren()) {
      const inner = c.set.toFieldsV1();
      out[serializePathElement(c.pe)] =
        c.set.member && c.set.children.size > 0 ? { '.': {}, ...inner } : inner;
    }
    return out;
  }

  private collect(prefix: PathElement[], out: FieldPath[]): void {
    const sorted = this.sortedChildren();
    for (const c of sorted) if (c.set.member) out.push([...prefix, c.pe]);
    for (const c of sorted) {
      if (c.set.children.size > 0) c.set.collect([...prefix, c.pe], out);
    }
  }

  private sortedChildren(): Child[] {
    return [...this.children.values()].sort((a, b) => comparePathElements(a.pe, b.pe));
  }

  private childOrCreate(pe: PathElement): FieldSet {
    const key = serializePathElement(pe);
    let child = this.children.get(key);
    if (child === undefined) {
      child = { pe, set: new FieldSet() };
      this.children.set(key, child);
    }
    return child.set;
  }

  private clone0(): FieldSet {
    const out = new FieldSet();
    out.member = this.member;
    for (const [k, c] of this.children) out.children.set(k, { pe: c.pe, set: c.set.clone0() });
    return out;
  }
}

/** The schema of a child reached through a path element. */
export function childSchemaFor(schema: MergeSchema, pe: PathElement): MergeSchema {
  if (schema.kind === 'deduced') return schema;
  if (pe.kind === 'field') {
    return schema.field(pe.name) ?? schema.elements() ?? DEDUCED;
  }
  return schema.items();
}

/** The schema node at a path (MergeSchema's `at`): unknown fields and values are deduced. */
export function schemaAt(schema: MergeSchema, path: FieldPath): MergeSchema {
  let node = schema;
  for (const pe of path) node = childSchemaFor(node, pe);
  return node;
}

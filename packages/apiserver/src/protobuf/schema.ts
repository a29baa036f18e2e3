// The captured Kubernetes protobuf schema (data/k8s-proto.json, written by
// scripts/protobuf/capture-k8s-proto.ts from generated.proto and the Go struct tags at v0.36.3),
// loaded once on first use.
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';

/** One JSON-visible field of a message, in Go declaration order (see the capture script). */
export interface FieldInfo {
  proto: string;
  /** JSON name; absent for an inlined (embedded) struct. */
  json?: string;
  omitempty?: true;
  omitzero?: true;
  inline?: true;
  pointer?: true;
}

/** Messages whose Go type marshals itself; decode.ts and encode.ts map each by hand. */
export type SpecialKind =
  | 'quantity'
  | 'intOrString'
  | 'time'
  | 'microTime'
  | 'duration'
  | 'rawJSON'
  | 'schemaOrArray'
  | 'schemaOrBool'
  | 'schemaOrStringArray';

interface CapturedSchema {
  descriptor: protobuf.INamespace;
  fields: Record<string, FieldInfo[]>;
  slices: Record<string, string>;
  special: Record<string, SpecialKind>;
}

export interface Schema {
  root: protobuf.Root;
  /** Go JSON fields of each struct message, by full name (no leading dot). */
  fields: ReadonlyMap<string, readonly FieldInfo[]>;
  special: ReadonlyMap<string, SpecialKind>;
  /** Messages that wrap a Go named slice (`type ExtraValue []string` → `{items}`). */
  slices: ReadonlySet<string>;
  /** The synthesized `{key, value}` entry messages that stand for map fields (see below). */
  mapEntries: ReadonlySet<string>;
}

interface DescriptorNode {
  nested?: Record<string, DescriptorNode>;
  fields?: Record<string, { type: string; id: number; keyType?: string; rule?: string }>;
  edition?: string;
}

const MAP_ENTRY_SUFFIX = 'MapEntry';

/**
 * Rewrites every `map<K, V> f = n` as `repeated FMapEntry f = n` with a nested
 * `FMapEntry {K key = 1; V value = 2}`: the same bytes on the wire, but the entries keep their
 * order, so encoding can sort keys bytewise like Go (a JS object puts integer-like keys first).
 */
function mapsToEntries(node: DescriptorNode, path: string, entries: Set<string>): void {
  for (const [name, child] of Object.entries(node.nested ?? {})) {
    mapsToEntries(child, path ? `${path}.${name}` : name, entries);
  }
  for (const [name, field] of Object.entries(node.fields ?? {})) {
    if (field.keyType === undefined) continue;
    const entry = `${name.charAt(0).toUpperCase()}${name.slice(1)}${MAP_ENTRY_SUFFIX}`;
    node.nested = {
      ...node.nested,
      [entry]: {
        ...(node.edition ? { edition: node.edition } : {}),
        fields: { key: { type: field.keyType, id: 1 }, value: { type: field.type, id: 2 } },
      },
    };
    node.fields = { ...node.fields, [name]: { rule: 'repeated', type: entry, id: field.id } };
    entries.add(`${path}.${entry}`);
  }
}

let loaded: Schema | undefined;

export function schema(): Schema {
  if (loaded) return loaded;
  const data = JSON.parse(
    readFileSync(new URL('./data/k8s-proto.json', import.meta.url), 'utf8'),
  ) as CapturedSchema;
  const mapEntries = new Set<string>();
  mapsToEntries(data.descriptor as DescriptorNode, '', mapEntries);
  loaded = {
    root: protobuf.Root.fromJSON(data.descriptor),
    mapEntries,
    fields: new Map(Object.entries(data.fields)),
    special: new Map(Object.entries(data.special)),
    slices: new Set(Object.keys(data.slices)),
  };
  return loaded;
}

/** A message's full name without protobufjs' leading dot. */
export function fullName(type: protobuf.Type): string {
  return type.fullName.startsWith('.') ? type.fullName.slice(1) : type.fullName;
}

export function lookupType(name: string): protobuf.Type {
  return schema().root.lookupType(name);
}

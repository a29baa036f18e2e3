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
}

let loaded: Schema | undefined;

export function schema(): Schema {
  if (loaded) return loaded;
  const data = JSON.parse(
    readFileSync(new URL('./data/k8s-proto.json', import.meta.url), 'utf8'),
  ) as CapturedSchema;
  loaded = {
    root: protobuf.Root.fromJSON(data.descriptor),
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

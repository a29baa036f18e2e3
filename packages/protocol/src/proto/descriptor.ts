// A tiny vocabulary for writing protobuf schemas as protobufjs JSON descriptors, so our wire
// definitions are TypeScript written from the spec tables (dataplane §4.2, §13.3), not a copy of
// upstream's .proto files. proto3 `optional` is a synthetic one-field oneof `_<name>`, exactly
// as protoc and protobufjs represent it.
import type { IEnum, IField, IMapField, IMethod, INamespace, IService, IType } from 'protobufjs';

export type FieldSpec =
  | { kind: 'scalar' | 'message'; type: string; id: number; repeated?: boolean; optional?: boolean }
  | { kind: 'map'; keyType: string; type: string; id: number };

export const field = (type: string, id: number): FieldSpec => ({ kind: 'scalar', type, id });
export const optional = (type: string, id: number): FieldSpec => ({
  kind: 'scalar',
  type,
  id,
  optional: true,
});
export const repeated = (type: string, id: number): FieldSpec => ({
  kind: 'scalar',
  type,
  id,
  repeated: true,
});
export const map = (keyType: string, type: string, id: number): FieldSpec => ({
  kind: 'map',
  keyType,
  type,
  id,
});

/** A message: fields by name, plus real oneofs (name → member field names). */
export function message(
  fields: Record<string, FieldSpec>,
  oneofs: Record<string, string[]> = {},
): IType {
  const out: Record<string, IField | IMapField> = {};
  const allOneofs: Record<string, { oneof: string[] }> = {};
  for (const [name, spec] of Object.entries(fields)) {
    if (spec.kind === 'map') {
      out[name] = { keyType: spec.keyType, type: spec.type, id: spec.id };
      continue;
    }
    const f: IField = { type: spec.type, id: spec.id };
    if (spec.repeated) f.rule = 'repeated';
    if (spec.optional) {
      f.options = { proto3_optional: true };
      allOneofs[`_${name}`] = { oneof: [name] };
    }
    out[name] = f;
  }
  for (const [name, members] of Object.entries(oneofs)) allOneofs[name] = { oneof: members };
  return Object.keys(allOneofs).length > 0 ? { fields: out, oneofs: allOneofs } : { fields: out };
}

export function enumeration(values: Record<string, number>): IEnum {
  return { values };
}

export function rpc(requestType: string, responseType: string, serverStreaming = false): IMethod {
  return serverStreaming
    ? { requestType, responseType, responseStream: true }
    : { requestType, responseType };
}

export function service(methods: Record<string, IMethod>): IService {
  return { methods };
}

/** Nests `body` under a dotted package name (`process.v1` → process → v1). */
export function inPackage(pkg: string, body: INamespace): INamespace {
  return pkg
    .split('.')
    .reverse()
    .reduce<INamespace>((inner, part) => ({ nested: { [part]: inner } }), body);
}

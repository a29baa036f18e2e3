import { describe, expect, it } from 'vitest';
import { ResourceRegistry } from '../resources/registry.ts';
import { readOurCrds } from '../testing/our-crds.ts';
import type { JsonObject } from './definitions.ts';
import { encodeOpenApiV2 } from './openapi-v2-proto.ts';
import { ProtoWriter } from './protobuf-writer.ts';
import { swaggerDocument } from './v2-document.ts';

/** A minimal protobuf decoder: field number → raw values (varint as bigint, bytes as Uint8Array). */
type Value = bigint | Uint8Array | number;

function decode(buf: Uint8Array): Map<number, Value[]> {
  const out = new Map<number, Value[]>();
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[i++];
      if (b === undefined) throw new Error('truncated varint');
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return result;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const field = key >> 3;
    const wire = key & 7;
    let value: Value;
    if (wire === 0) value = varint();
    else if (wire === 1) {
      value = new DataView(buf.buffer, buf.byteOffset + i, 8).getFloat64(0, true);
      i += 8;
    } else if (wire === 2) {
      const len = Number(varint());
      value = buf.subarray(i, i + len);
      if (value.length !== len) throw new Error('truncated bytes');
      i += len;
    } else throw new Error(`unexpected wire type ${wire}`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}

function bytes(v: Value | undefined): Uint8Array {
  if (!(v instanceof Uint8Array)) throw new Error('expected a length-delimited field');
  return v;
}

const text = (v: Value | undefined) => new TextDecoder().decode(bytes(v));
const messages = (m: Map<number, Value[]>, field: number) =>
  (m.get(field) ?? []).map((v) => decode(bytes(v)));
const first = (m: Map<number, Value[]>, field: number) => {
  const [msg] = messages(m, field);
  if (!msg) throw new Error(`field ${field} missing`);
  return msg;
};

/** Named* pairs (name = 1, value = 2) as a map of name → decoded value message. */
function named(m: Map<number, Value[]>, field: number): Map<string, Map<number, Value[]>> {
  return new Map(
    messages(m, field).map((pair) => [text(pair.get(1)?.[0]), decode(bytes(pair.get(2)?.[0]))]),
  );
}

/** Vendor extensions (NamedAny: name, Any { yaml = 2 }) parsed back from their JSON text. */
function extensions(m: Map<number, Value[]>, field: number): Map<string, unknown> {
  return new Map(
    [...named(m, field)].map(([name, any]) => [name, JSON.parse(text(any.get(2)?.[0]))]),
  );
}

describe('ProtoWriter', () => {
  it('writes varints, doubles, strings and nested messages as protobuf does', () => {
    const w = new ProtoWriter()
      .int64(1, 300)
      .double(2, 1.5)
      .string(3, 'hé')
      .bool(4, true)
      .int64(5, -1);
    w.message(6, (m) => m.string(1, 'x'.repeat(200)));
    const out = w.finish();
    expect([...out.subarray(0, 3)]).toEqual([0x08, 0xac, 0x02]);
    const d = decode(out);
    expect(d.get(1)).toEqual([300n]);
    expect(d.get(2)).toEqual([1.5]);
    expect(text(d.get(3)?.[0])).toBe('hé');
    expect(d.get(4)).toEqual([1n]);
    expect(d.get(5)).toEqual([2n ** 64n - 1n]);
    expect(text(first(d, 6).get(1)?.[0])).toBe('x'.repeat(200));
  });

  it('leaves proto3 defaults off the wire but keeps oneof members and empty messages', () => {
    const out = new ProtoWriter()
      .string(1, '')
      .bool(2, false)
      .int64(3, 0)
      .oneofBool(4, false)
      .message(5, () => {})
      .finish();
    expect([...out]).toEqual([0x20, 0x00, 0x2a, 0x00]);
  });
});

describe('/openapi/v2 as gnostic openapi_v2.Document', () => {
  const registry = new ResourceRegistry();
  for (const crd of readOurCrds()) registry.setCrd(crd);
  const doc = swaggerDocument(registry.all());
  const pb = decode(encodeOpenApiV2(doc));

  it('round-trips swagger, info and every definition name', () => {
    expect(text(pb.get(1)?.[0])).toBe('2.0');
    const info = first(pb, 2);
    expect(text(info.get(1)?.[0])).toBe('Kubernetes');
    const definitions = named(first(pb, 9), 1);
    expect([...definitions.keys()]).toEqual(Object.keys(doc['definitions'] as JsonObject));
  });

  it('carries x-kubernetes-group-version-kind on definitions, decodable as YAML/JSON', () => {
    const definitions = named(first(pb, 9), 1);
    const sandbox = definitions.get('io.x-k8s.agents.v1beta1.Sandbox');
    if (!sandbox) throw new Error('no Sandbox definition');
    expect(extensions(sandbox, 31).get('x-kubernetes-group-version-kind')).toEqual([
      { group: 'agents.x-k8s.io', kind: 'Sandbox', version: 'v1beta1' },
    ]);
    // Schema.type = 22 (TypeItem.value), Schema.properties = 25 (NamedSchema list).
    expect(text(first(sandbox, 22).get(1)?.[0])).toBe('object');
    const props = named(first(sandbox, 25), 1);
    expect([...props.keys()].sort()).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    expect(text(props.get('metadata')?.get(1)?.[0])).toBe(
      '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    );
    const configMap = definitions.get('io.k8s.api.core.v1.ConfigMap');
    if (!configMap) throw new Error('no ConfigMap definition');
    expect(extensions(configMap, 31).get('x-kubernetes-group-version-kind')).toEqual([
      { group: '', kind: 'ConfigMap', version: 'v1' },
    ]);
  });

  it('encodes PATCH operations with consumes, query parameters and the GVK extension', () => {
    const paths = named(first(pb, 8), 2);
    const item = paths.get('/api/v1/namespaces/{namespace}/configmaps/{name}');
    if (!item) throw new Error('no configmap path');
    const patch = first(item, 8);
    expect(text(patch.get(5)?.[0])).toBe('patchCoreV1NamespacedConfigMap');
    expect((patch.get(7) ?? []).map(text)).toContain('application/strategic-merge-patch+json');
    expect(extensions(patch, 13).get('x-kubernetes-group-version-kind')).toEqual({
      group: '',
      kind: 'ConfigMap',
      version: 'v1',
    });
    // ParametersItem.parameter = 1 → Parameter.non_body_parameter = 2 → query_parameter_sub_schema = 3 → name = 4
    const queryNames = messages(patch, 8)
      .map((item) => first(item, 1))
      .filter((param) => param.has(2))
      .map((param) => text(first(first(param, 2), 3).get(4)?.[0]));
    expect(queryNames).toEqual(['dryRun', 'fieldManager', 'fieldValidation', 'force']);
    const crdPatch = first(
      paths.get('/apis/agents.x-k8s.io/v1beta1/namespaces/{namespace}/sandboxes/{name}') ??
        new Map(),
      8,
    );
    expect((crdPatch.get(7) ?? []).map(text)).not.toContain(
      'application/strategic-merge-patch+json',
    );
  });
});

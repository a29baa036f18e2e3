import type { JSONSchemaProps } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { StructuralSchema } from './structural-schema.ts';
import { specSchema } from './test-helpers.ts';

interface Case {
  name: string;
  schema: JSONSchemaProps;
  input: unknown;
  want: unknown;
  pruned: string[];
}

const embedded: JSONSchemaProps = {
  type: 'object',
  'x-kubernetes-embedded-resource': true,
  properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } },
};

const cases: Case[] = [
  {
    name: 'unknown fields at every level',
    schema: specSchema({ a: { type: 'object', properties: { b: { type: 'string' } } } }),
    input: { spec: { a: { b: 'x', c: 1 }, d: true }, status: {} },
    want: { spec: { a: { b: 'x' } } },
    pruned: ['spec.a.c', 'spec.d', 'status'],
  },
  {
    name: 'apiVersion, kind and metadata are kept at the root even when not in the schema',
    schema: { type: 'object', properties: { spec: { type: 'object' } } },
    input: { apiVersion: 'g/v1', kind: 'K', metadata: { name: 'n' }, spec: { x: 1 } },
    want: { apiVersion: 'g/v1', kind: 'K', metadata: { name: 'n' }, spec: {} },
    pruned: ['spec.x'],
  },
  {
    name: 'root metadata is coerced to ObjectMeta',
    schema: specSchema({}),
    input: {
      metadata: { name: 'n', labels: { a: 'b' }, annotations: {}, foo: 1, generation: 'x' },
    },
    want: { metadata: { name: 'n', labels: { a: 'b' } } },
    pruned: ['metadata.foo'],
  },
  {
    name: 'items and additionalProperties',
    schema: specSchema({
      list: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } } } },
      map: {
        type: 'object',
        additionalProperties: { type: 'object', properties: { v: { type: 'integer' } } },
      },
    }),
    input: { spec: { list: [{ k: 'a', z: 1 }, { y: 2 }], map: { m1: { v: 1, w: 2 } } } },
    want: { spec: { list: [{ k: 'a' }, {}], map: { m1: { v: 1 } } } },
    pruned: ['spec.list[0].z', 'spec.list[1].y', 'spec.map.m1.w'],
  },
  {
    name: 'x-kubernetes-preserve-unknown-fields keeps unknown keys but prunes inside known ones',
    schema: specSchema({
      free: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: { known: { type: 'object', properties: { k: { type: 'string' } } } },
      },
    }),
    input: { spec: { free: { anything: { deep: [1, { x: 2 }] }, known: { k: 'a', drop: 1 } } } },
    want: { spec: { free: { anything: { deep: [1, { x: 2 }] }, known: { k: 'a' } } } },
    pruned: ['spec.free.known.drop'],
  },
  {
    name: 'preserve-unknown-fields at the root',
    schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    input: { apiVersion: 'g/v1', spec: { anything: 1 }, other: true },
    want: { apiVersion: 'g/v1', spec: { anything: 1 }, other: true },
    pruned: [],
  },
  {
    name: 'embedded resource keeps apiVersion/kind/metadata and coerces its metadata',
    schema: specSchema({ template: embedded }),
    input: {
      spec: {
        template: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'p', bogus: 1, ownerReferences: [{ name: 'o', uid: 'u', extra: 1 }] },
          spec: { a: 'x', b: 'y' },
          other: 1,
        },
      },
    },
    want: {
      spec: {
        template: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'p', ownerReferences: [{ name: 'o', uid: 'u' }] },
          spec: { a: 'x' },
        },
      },
    },
    pruned: [
      'spec.template.other',
      'spec.template.spec.b',
      'spec.template.metadata.bogus',
      'spec.template.metadata.ownerReferences[0].extra',
    ],
  },
  {
    name: 'apiVersion/kind/metadata below the root are ordinary fields',
    schema: specSchema({ nested: { type: 'object', properties: { a: { type: 'string' } } } }),
    input: { spec: { nested: { a: 'x', kind: 'K', metadata: {} } } },
    want: { spec: { nested: { a: 'x' } } },
    pruned: ['spec.nested.kind', 'spec.nested.metadata'],
  },
  {
    name: 'int-or-string and scalars are left alone',
    schema: specSchema({ port: { 'x-kubernetes-int-or-string': true } }),
    input: { spec: { port: 'http' } },
    want: { spec: { port: 'http' } },
    pruned: [],
  },
];

describe('prune (pruning/algorithm.go)', () => {
  it.each(cases)('$name', ({ schema, input, want, pruned }) => {
    const obj = structuredClone(input);
    expect(StructuralSchema.compile(schema).prune(obj)).toEqual(pruned);
    expect(obj).toEqual(want);
  });

  it('returns paths of the schema walk sorted', () => {
    const s = StructuralSchema.compile(specSchema({}));
    expect(s.prune({ spec: { zz: 1, aa: 2, mm: 3 } })).toEqual(['spec.aa', 'spec.mm', 'spec.zz']);
  });
});

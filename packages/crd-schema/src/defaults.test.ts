import type { JSONSchemaProps } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { StructuralSchema } from './structural-schema.ts';
import { specSchema } from './test-helpers.ts';

interface Case {
  name: string;
  props: Record<string, JSONSchemaProps>;
  input: Record<string, unknown>;
  want: Record<string, unknown>;
}

const cases: Case[] = [
  {
    name: 'missing scalar gets its default',
    props: { mode: { type: 'string', default: 'Running' } },
    input: {},
    want: { mode: 'Running' },
  },
  {
    name: 'present values are never replaced',
    props: { mode: { type: 'string', default: 'Running' }, n: { type: 'integer', default: 3 } },
    input: { mode: '', n: 0 },
    want: { mode: '', n: 0 },
  },
  {
    name: 'default on a nested object, then defaults of fields inside it',
    props: {
      policy: {
        type: 'object',
        default: { a: 1 },
        properties: { a: { type: 'integer' }, b: { type: 'string', default: 'B' } },
      },
    },
    input: {},
    want: { policy: { a: 1, b: 'B' } },
  },
  {
    name: 'defaults inside list items',
    props: {
      ports: {
        type: 'array',
        items: {
          type: 'object',
          properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } },
        },
      },
    },
    input: { ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }] },
    want: {
      ports: [
        { port: 80, protocol: 'TCP' },
        { port: 53, protocol: 'UDP' },
      ],
    },
  },
  {
    name: 'defaults inside additionalProperties values',
    props: {
      m: {
        type: 'object',
        additionalProperties: {
          type: 'object',
          properties: { v: { type: 'string', default: 'd' } },
        },
      },
    },
    input: { m: { a: {}, b: { v: 'x' } } },
    want: { m: { a: { v: 'd' }, b: { v: 'x' } } },
  },
  {
    name: 'null for a non-nullable field without default is dropped',
    props: { a: { type: 'string' } },
    input: { a: null },
    want: {},
  },
  {
    name: 'null for a non-nullable field with default is defaulted',
    props: { a: { type: 'string', default: 'x' } },
    input: { a: null },
    want: { a: 'x' },
  },
  {
    name: 'null for a nullable field is kept, even with a default',
    props: { a: { type: 'string', nullable: true, default: 'x' } },
    input: { a: null },
    want: { a: null },
  },
  {
    name: 'null list items are defaulted from the items default',
    props: { l: { type: 'array', items: { type: 'string', default: 'd' } } },
    input: { l: ['a', null] },
    want: { l: ['a', 'd'] },
  },
  {
    name: 'null list items without a default stay (lists are never shortened)',
    props: { l: { type: 'array', items: { type: 'string' } } },
    input: { l: [null] },
    want: { l: [null] },
  },
  {
    name: 'null additionalProperties value with default is defaulted',
    props: { m: { type: 'object', additionalProperties: { type: 'string', default: 'd' } } },
    input: { m: { k: null } },
    want: { m: { k: 'd' } },
  },
  {
    name: 'a missing parent is not created for a child default',
    props: { outer: { type: 'object', properties: { inner: { type: 'string', default: 'x' } } } },
    input: {},
    want: {},
  },
];

describe('applyDefaults (defaulting/algorithm.go, prunenulls.go)', () => {
  it.each(cases)('$name', ({ props, input, want }) => {
    const obj = { spec: structuredClone(input) };
    StructuralSchema.compile(specSchema(props)).applyDefaults(obj);
    expect(obj).toEqual({ spec: want });
  });

  it('copies defaults so objects never share them', () => {
    const s = StructuralSchema.compile(
      specSchema({
        o: {
          type: 'object',
          default: { l: [] },
          properties: { l: { type: 'array', items: { type: 'string' } } },
        },
      }),
    );
    const a: { spec: { o?: { l: string[] } } } = { spec: {} };
    const b: { spec: { o?: { l: string[] } } } = { spec: {} };
    s.applyDefaults(a);
    s.applyDefaults(b);
    a.spec.o?.l.push('x');
    expect(b.spec.o).toEqual({ l: [] });
  });
});

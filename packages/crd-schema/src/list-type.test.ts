import type { JSONSchemaProps } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { admit } from './structural-schema.ts';
import { compileSpec, messages } from './test-helpers.ts';

const set: JSONSchemaProps = {
  type: 'array',
  'x-kubernetes-list-type': 'set',
  items: { type: 'string' },
};
const objectSet: JSONSchemaProps = {
  type: 'array',
  'x-kubernetes-list-type': 'set',
  items: {
    type: 'object',
    'x-kubernetes-map-type': 'atomic',
    properties: { a: { type: 'integer' }, b: { type: 'string' } },
  },
};
const portMap: JSONSchemaProps = {
  type: 'array',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
  items: {
    type: 'object',
    required: ['containerPort'],
    properties: {
      containerPort: { type: 'integer' },
      protocol: { type: 'string', default: 'TCP' },
      name: { type: 'string' },
    },
  },
};
const nameMap: JSONSchemaProps = {
  type: 'array',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['name'],
  items: {
    type: 'object',
    required: ['name'],
    properties: { name: { type: 'string' }, v: { type: 'string' } },
  },
};

describe('x-kubernetes-list-type (listtype/validation.go)', () => {
  it.each([
    ['unique set', set, ['a', 'b'], []],
    [
      'set duplicate: only the second occurrence is reported',
      set,
      ['a', 'b', 'a', 'a'],
      ['spec.l[2]: Duplicate value: "a"'],
    ],
    [
      'set of objects compares by value, key order ignored',
      objectSet,
      [
        { a: 1, b: 'x' },
        { b: 'x', a: 1 },
      ],
      ['spec.l[1]: Duplicate value: {"a":1,"b":"x"}'],
    ],
    [
      'set with numbers',
      { ...set, items: { type: 'integer' } },
      [1, 2, 1],
      ['spec.l[2]: Duplicate value: 1'],
    ],
    [
      'list-map single key',
      nameMap,
      [{ name: 'a' }, { name: 'b' }, { name: 'a', v: 'x' }],
      ['spec.l[2]: Duplicate value: {"name":"a"}'],
    ],
    [
      'list-map compound keys',
      portMap,
      [
        { containerPort: 80, protocol: 'TCP' },
        { containerPort: 80, protocol: 'UDP' },
        { containerPort: 80, protocol: 'TCP', name: 'x' },
      ],
      ['spec.l[2]: Duplicate value: {"containerPort":80,"protocol":"TCP"}'],
    ],
    ['list-map unique', portMap, [{ containerPort: 80 }, { containerPort: 81 }], []],
    [
      'list-map items must be objects',
      nameMap,
      [{ name: 'a' }, 'x'],
      [
        'spec.l[1]: Invalid value: "string": spec.l[1] in body must be of type object: "string"',
        'spec.l[1]: Invalid value: "x": must be an object for an array of list-type map',
      ],
    ],
    [
      'atomic lists may repeat',
      { type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'string' } },
      ['a', 'a'],
      [],
    ],
  ] as [string, JSONSchemaProps, unknown[], string[]][])('%s', (_name, schema, list, want) => {
    expect(messages(compileSpec({ l: schema }).validate({ spec: { l: list } }))).toEqual(want);
  });

  it('compares keys as given: a missing key is not its default (admission defaults first)', () => {
    const s = compileSpec({ l: portMap });
    const list = [{ containerPort: 80 }, { containerPort: 80, protocol: 'TCP' }];
    expect(s.validate({ spec: { l: list } })).toEqual([]);
    const issues = admit(s, { spec: { l: list } }).issues;
    expect(messages(issues)).toEqual([
      'spec.l[1]: Duplicate value: {"containerPort":80,"protocol":"TCP"}',
    ]);
    expect(issues[0]?.type).toBe('FieldValueDuplicate');
  });

  it('treats null items and missing single keys as the same unspecified key', () => {
    const s = compileSpec({
      l: {
        ...nameMap,
        items: { type: 'object', nullable: true, properties: { name: { type: 'string' } } },
      },
    });
    expect(messages(s.validate({ spec: { l: [{ name: 'a' }, null, {}] } }))).toEqual([
      'spec.l[2]: Duplicate value: {}',
    ]);
  });

  it('names nested lists with kube field paths, map keys in brackets', () => {
    const s = compileSpec({ m: { type: 'object', additionalProperties: set } });
    expect(messages(s.validate({ spec: { m: { k1: ['a', 'a'] } } }))).toEqual([
      'spec.m[k1][1]: Duplicate value: "a"',
    ]);
  });
});

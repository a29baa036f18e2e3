import type { JSONSchemaProps } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { compileSpec, messages } from './test-helpers.ts';

// Validation ratcheting (KEP-4008, on by default in 1.32): on update, errors on values that
// are unchanged from the stored object are not reported.
describe('ratcheting on update', () => {
  const named: JSONSchemaProps = {
    type: 'object',
    required: ['name'],
    properties: { name: { type: 'string' }, size: { type: 'integer', maximum: 5 } },
  };
  const s = compileSpec({
    size: { type: 'integer', maximum: 5 },
    other: { type: 'string' },
    byName: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: named,
    },
    atomic: { type: 'array', items: named },
    tags: {
      type: 'array',
      'x-kubernetes-list-type': 'set',
      items: { type: 'string', maxLength: 2 },
    },
    labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 2 } },
  });
  const tooBig = (path: string, v: number): string =>
    `${path}: Invalid value: ${v}: ${path} in body should be less than or equal to 5`;

  it.each([
    ['create reports everything', { size: 9 }, undefined, [tooBig('spec.size', 9)]],
    ['an unchanged invalid field passes', { size: 9, other: 'new' }, { size: 9 }, []],
    ['a changed invalid field fails', { size: 8 }, { size: 9 }, [tooBig('spec.size', 8)]],
    ['a new invalid field fails', { size: 9 }, {}, [tooBig('spec.size', 9)]],
    [
      'list-map items correlate by key',
      {
        byName: [
          { name: 'b', size: 7 },
          { name: 'a', size: 9 },
        ],
      },
      { byName: [{ name: 'a', size: 9 }] },
      [tooBig('spec.byName[0].size', 7)],
    ],
    [
      'atomic list items do not correlate',
      { atomic: [{ name: 'a', size: 9 }, { name: 'b' }] },
      { atomic: [{ name: 'a', size: 9 }] },
      [tooBig('spec.atomic[0].size', 9)],
    ],
    [
      'set items do not correlate',
      { tags: ['long', 'x'] },
      { tags: ['long'] },
      ['spec.tags[0]: Too long: may not be more than 2 bytes'],
    ],
    [
      'an unchanged set is ratcheted as a whole',
      { tags: ['long'], size: 1 },
      { tags: ['long'] },
      [],
    ],
    [
      'map values correlate by key',
      { labels: { a: 'long', b: 'longer' } },
      { labels: { a: 'long' } },
      ['spec.labels.b: Too long: may not be more than 2 bytes'],
    ],
  ] as [string, unknown, unknown, string[]][])('%s', (_name, spec, old, want) => {
    expect(messages(s.validate({ spec }, old === undefined ? undefined : { spec: old }))).toEqual(
      want,
    );
  });

  it('ratchets CEL rules on unchanged values but not transition rules', () => {
    const rules = compileSpec({
      a: {
        type: 'string',
        'x-kubernetes-validations': [{ rule: "self != 'bad'", message: 'a is bad' }],
      },
      b: {
        type: 'string',
        'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'b is immutable' }],
      },
    });
    expect(
      messages(rules.validate({ spec: { a: 'bad', b: 'x' } }, { spec: { a: 'bad', b: 'x' } })),
    ).toEqual([]);
    expect(
      messages(rules.validate({ spec: { a: 'bad', b: 'y' } }, { spec: { a: 'bad', b: 'x' } })),
    ).toEqual(['spec.b: Invalid value: "y": b is immutable']);
    expect(messages(rules.validate({ spec: { a: 'bad' } }))).toEqual([
      'spec.a: Invalid value: "bad": a is bad',
    ]);
  });

  it('ratchets rules on items of an unchanged atomic list through the list', () => {
    const atomic = compileSpec({
      l: {
        type: 'array',
        items: {
          type: 'string',
          'x-kubernetes-validations': [{ rule: "self != 'bad'", message: 'bad item' }],
        },
      },
      other: { type: 'string' },
    });
    const old = { spec: { l: ['bad'], other: 'a' } };
    expect(messages(atomic.validate({ spec: { l: ['bad'], other: 'b' } }, old))).toEqual([]);
    expect(messages(atomic.validate({ spec: { l: ['bad', 'ok'] } }, old))).toEqual([
      'spec.l[0]: Invalid value: "bad": bad item',
    ]);
  });
});

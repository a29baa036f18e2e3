import { describe, expect, it } from 'vitest';
import {
  FieldSet,
  fieldElement,
  keyElement,
  parsePathElement,
  pathToString,
  serializePathElement,
  valueElement,
  type FieldPath,
} from './field-set.ts';

const f = fieldElement;

describe('path elements', () => {
  const cases: { pe: ReturnType<typeof f>; serialized: string; printed: string }[] = [
    { pe: f('spec'), serialized: 'f:spec', printed: '.spec' },
    {
      pe: keyElement([['name', 'nginx']]),
      serialized: 'k:{"name":"nginx"}',
      printed: '[name="nginx"]',
    },
    {
      pe: keyElement([
        ['protocol', 'TCP'],
        ['containerPort', 80],
      ]),
      serialized: 'k:{"containerPort":80,"protocol":"TCP"}',
      printed: '[containerPort=80,protocol="TCP"]',
    },
    { pe: valueElement('a<b'), serialized: 'v:"a\\u003cb"', printed: '[="a<b"]' },
    { pe: { kind: 'index', index: 3 }, serialized: 'i:3', printed: '[3]' },
  ];
  it.each(cases)('$serialized', ({ pe, serialized, printed }) => {
    expect(serializePathElement(pe)).toBe(serialized);
    expect(serializePathElement(parsePathElement(serialized))).toBe(serialized);
    expect(pathToString([pe])).toBe(printed);
  });

  it('rejects unknown prefixes', () => {
    expect(() => parsePathElement('x:y')).toThrow(/unknown path element/);
  });
});

describe('FieldSet', () => {
  const paths: FieldPath[] = [
    [f('spec'), f('replicas')],
    [f('metadata'), f('labels')],
    [f('metadata'), f('labels'), f('app')],
    [f('spec'), f('containers'), keyElement([['name', 'b']])],
    [f('spec'), f('containers'), keyElement([['name', 'b']]), f('image')],
    [f('spec'), f('containers'), keyElement([['name', 'a']])],
    [f('metadata'), f('finalizers'), valueElement('x')],
  ];

  it('serialises as FieldsV1 with "." markers and sorted keys', () => {
    const set = FieldSet.fromPaths(paths);
    expect(JSON.stringify(set.toFieldsV1())).toBe(
      JSON.stringify({
        'f:metadata': {
          'f:finalizers': { 'v:"x"': {} },
          'f:labels': { '.': {}, 'f:app': {} },
        },
        'f:spec': {
          'f:containers': {
            'k:{"name":"a"}': {},
            'k:{"name":"b"}': { '.': {}, 'f:image': {} },
          },
          'f:replicas': {},
        },
      }),
    );
  });

  it('round-trips FieldsV1', () => {
    const set = FieldSet.fromPaths(paths);
    const again = FieldSet.fromFieldsV1(JSON.parse(JSON.stringify(set.toFieldsV1())));
    expect(again.equals(set)).toBe(true);
    expect(again.paths().map(pathToString)).toEqual(set.paths().map(pathToString));
  });

  it('iterates members of a level before descending (fieldpath.Set.Iterate)', () => {
    expect(FieldSet.fromPaths(paths).paths().map(pathToString)).toEqual([
      '.metadata.labels',
      '.metadata.finalizers[="x"]',
      '.metadata.labels.app',
      '.spec.replicas',
      '.spec.containers[name="a"]',
      '.spec.containers[name="b"]',
      '.spec.containers[name="b"].image',
    ]);
  });

  it('has member-wise union, difference and intersection', () => {
    const a = FieldSet.fromPaths([[f('a')], [f('a'), f('b')]]);
    const b = FieldSet.fromPaths([[f('a')]]);
    expect(a.difference(b).paths().map(pathToString)).toEqual(['.a.b']);
    expect(a.recursiveDifference(b).isEmpty()).toBe(true);
    expect(a.intersection(b).paths().map(pathToString)).toEqual(['.a']);
    expect(
      b
        .union(FieldSet.fromPaths([[f('c')]]))
        .paths()
        .map(pathToString),
    ).toEqual(['.a', '.c']);
    expect(a.has([f('a'), f('b')])).toBe(true);
    expect(a.has([f('b')])).toBe(false);
  });
});

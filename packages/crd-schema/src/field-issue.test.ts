import { describe, expect, it } from 'vitest';
import {
  OMIT_VALUE,
  duplicate,
  formatBadValue,
  formatFieldIssue,
  forbidden,
  invalid,
  notSupported,
  required,
  tooLong,
  tooMany,
  typeInvalid,
} from './field-issue.ts';
import { goFloat, goJSON, goQuote } from './go-format.ts';

describe('field error rendering (field.Error.ErrorBody)', () => {
  it.each([
    ['required', required('spec.image'), 'spec.image: Required value'],
    [
      'required with detail',
      required('metadata.name', 'name or generateName is required'),
      'metadata.name: Required value: name or generateName is required',
    ],
    [
      'invalid int',
      invalid('spec.replicas', -1, 'spec.replicas in body should be greater than or equal to 0'),
      'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
    ],
    [
      'invalid string',
      invalid('spec.id', 'x', "spec.id in body should match '^[a-z]+$'"),
      `spec.id: Invalid value: "x": spec.id in body should match '^[a-z]+$'`,
    ],
    ['invalid null', invalid('<nil>', null, 'some rule'), '<nil>: Invalid value: null: some rule'],
    ['invalid bool', invalid('spec.b', true, 'd'), 'spec.b: Invalid value: true: d'],
    ['invalid float', invalid('spec.f', 1.5, 'd'), 'spec.f: Invalid value: 1.5: d'],
    [
      'type invalid',
      typeInvalid('spec.name', 'integer', 'spec.name in body must be of type string: "integer"'),
      'spec.name: Invalid value: "integer": spec.name in body must be of type string: "integer"',
    ],
    [
      'not supported',
      notSupported('spec.mode', 'x', ['a', 'b']),
      'spec.mode: Unsupported value: "x": supported values: "a", "b"',
    ],
    ['duplicate', duplicate('spec.tags[1]', 'a'), 'spec.tags[1]: Duplicate value: "a"'],
    [
      'duplicate map',
      duplicate('spec.ports[1]', { port: 80, name: 'a' }),
      'spec.ports[1]: Duplicate value: {"name":"a","port":80}',
    ],
    [
      'not supported list (dryRun)',
      notSupported('dryRun', ['Yes'], ['All']),
      'dryRun: Unsupported value: ["Yes"]: supported values: "All"',
    ],
    [
      'invalid uint64 zero',
      invalid('metadata.resourceVersion', 0n, 'must be specified for an update'),
      'metadata.resourceVersion: Invalid value: 0: must be specified for an update',
    ],
    [
      'invalid, value omitted',
      invalid('spec', OMIT_VALUE, 'volumeClaimTemplates is immutable'),
      'spec: Invalid value: volumeClaimTemplates is immutable',
    ],
    ['duplicate, value omitted', duplicate('spec.x', OMIT_VALUE), 'spec.x: Duplicate value'],
    ['forbidden', forbidden('spec.x', 'may not be set'), 'spec.x: Forbidden: may not be set'],
    [
      'too long',
      tooLong('spec.name', 'abc', 63),
      'spec.name: Too long: may not be more than 63 bytes',
    ],
    [
      'too long, one byte',
      tooLong('spec.name', 'abc', 1),
      'spec.name: Too long: may not be more than 1 byte',
    ],
    [
      'too many',
      tooMany('spec.items', 11, 10),
      'spec.items: Too many: 11: must have at most 10 items',
    ],
    [
      'too many, one item',
      tooMany('spec.items', 2, 1),
      'spec.items: Too many: 2: must have at most 1 item',
    ],
  ])('%s', (_name, issue, want) => {
    expect(formatFieldIssue(issue)).toBe(want);
  });

  it('keeps the cause type, value and detail', () => {
    expect(notSupported('spec.mode', 'x', ['a'])).toEqual({
      type: 'FieldValueNotSupported',
      field: 'spec.mode',
      badValue: 'x',
      detail: 'supported values: "a"',
      message: 'Unsupported value: "x": supported values: "a"',
    });
    expect(required('spec.a')).toEqual({
      type: 'FieldValueRequired',
      field: 'spec.a',
      message: 'Required value',
    });
    expect(invalid('spec', OMIT_VALUE, 'd')).toEqual({
      type: 'FieldValueInvalid',
      field: 'spec',
      detail: 'd',
      message: 'Invalid value: d',
    });
    expect(invalid('<nil>', undefined, 'd').badValue).toBeNull();
  });
});

describe('Go value printing', () => {
  it.each([
    [0, '0'],
    [1.5, '1.5'],
    [-2.25, '-2.25'],
    [123456.5, '123456.5'],
    [1234567.5, '1.2345675e+06'],
    [1e21, '1e+21'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
  ])('%%v of float64 %d is %s', (f, want) => {
    expect(goFloat(f)).toBe(want);
  });

  it.each([
    ['abc', '"abc"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['tab\tnl\n', '"tab\\tnl\\n"'],
    ['\x01', '"\\x01"'],
    ['ünï', '"ünï"'],
  ])('%%q of %j', (s, want) => {
    expect(goQuote(s)).toBe(want);
  });

  it.each([
    [null, 'null'],
    [undefined, 'null'],
    ['s', '"s"'],
    [80, '80'],
    [2 ** 60, '1152921504606846976'],
    [0.5, '0.5'],
    [1e21, '1e+21'],
    [false, 'false'],
    [['a', 1], '["a",1]'],
    [[], '[]'],
    [{}, '{}'],
    [{ b: null, a: { c: true } }, '{"a":{"c":true},"b":null}'],
    [[1.5, 1e21, 1e-7, 0.000001, 2 ** 60], '[1.5,1e+21,1e-7,0.000001,1152921504606846976]'],
  ])('bad value %j prints as %s', (v, want) => {
    expect(formatBadValue(v)).toBe(want);
  });

  it('bad values of other integer types (uint64) print as plain digits', () => {
    expect(formatBadValue(0n)).toBe('0');
    expect(formatBadValue(18446744073709551615n)).toBe('18446744073709551615');
  });

  it.each([
    ['x', '"x"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['\b\f\n\r\t', '"\\b\\f\\n\\r\\t"'],
    ['\x01\x1f\x7f', '"\\u0001\\u001f\x7f"'],
    ['<a&b>', '"\\u003ca\\u0026b\\u003e"'],
    ['\u2028\u2029', '"\\u2028\\u2029"'],
    ['\ud800', '"\\ufffd"'],
    ['ünï😀', '"ünï😀"'],
  ])('json.Marshal of string %j is %s', (v, want) => {
    expect(goJSON(v)).toBe(want);
  });

  it('json.Marshal sorts map keys bytewise', () => {
    expect(goJSON({ b: 1, a: 2, B: 3, é: 4, '😀': 5, '\uffff': 6 })).toBe(
      '{"B":3,"a":2,"b":1,"é":4,"\uffff":6,"😀":5}',
    );
    expect(goJSON([-0])).toBe('[0]');
  });
});

import { describe, expect, it } from 'vitest';
import {
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
import { goFloat, goQuote, goSyntax } from './go-format.ts';

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
    [
      'invalid null',
      invalid('<nil>', null, 'some rule'),
      '<nil>: Invalid value: "null": some rule',
    ],
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
      'spec.ports[1]: Duplicate value: map[string]interface {}{"name":"a", "port":80}',
    ],
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
    [null, '"null"'],
    ['s', '"s"'],
    [80, '80'],
    [2 ** 60, '1152921504606846976'],
    [0.5, '0.5'],
    [false, 'false'],
    [['a', 1], '[]interface {}{"a", 1}'],
    [
      { b: null, a: { c: true } },
      'map[string]interface {}{"a":map[string]interface {}{"c":true}, "b":interface {}(nil)}',
    ],
  ])('bad value %j prints as %s', (v, want) => {
    expect(formatBadValue(v)).toBe(want);
  });

  it('goSyntax of a bare string is quoted', () => {
    expect(goSyntax('x')).toBe('"x"');
  });
});

import type { JSONSchemaProps } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { StructuralSchema } from './structural-schema.ts';
import { compileSpec, messages, specSchema } from './test-helpers.ts';

interface Case {
  name: string;
  schema: JSONSchemaProps;
  value: unknown;
  want: string[];
}

const ANY_OF_NIL = (name: string): string =>
  `<nil>: Invalid value: "": "${name}" must validate at least one schema (anyOf)`;

// Expected strings follow kube-openapi pkg/validation/errors (message templates) and
// apiextensions kubeOpenAPIResultToFieldErrors (cause types), as kube-apiserver 1.36 prints them.
const cases: Case[] = [
  // type
  { name: 'string ok', schema: { type: 'string' }, value: 'a', want: [] },
  {
    name: 'string got integer',
    schema: { type: 'string' },
    value: 1,
    want: ['spec.x: Invalid value: "integer": spec.x in body must be of type string: "integer"'],
  },
  {
    name: 'string got boolean',
    schema: { type: 'string' },
    value: true,
    want: ['spec.x: Invalid value: "boolean": spec.x in body must be of type string: "boolean"'],
  },
  {
    name: 'integer got number',
    schema: { type: 'integer' },
    value: 1.5,
    want: ['spec.x: Invalid value: "number": spec.x in body must be of type integer: "number"'],
  },
  {
    name: 'integer got string',
    schema: { type: 'integer' },
    value: '1',
    want: ['spec.x: Invalid value: "string": spec.x in body must be of type integer: "string"'],
  },
  { name: 'number accepts integer', schema: { type: 'number' }, value: 1, want: [] },
  {
    name: 'boolean got string',
    schema: { type: 'boolean' },
    value: 'true',
    want: ['spec.x: Invalid value: "string": spec.x in body must be of type boolean: "string"'],
  },
  {
    name: 'object got array',
    schema: { type: 'object' },
    value: [],
    want: ['spec.x: Invalid value: "array": spec.x in body must be of type object: "array"'],
  },
  {
    name: 'array got object',
    schema: { type: 'array', items: { type: 'string' } },
    value: {},
    want: ['spec.x: Invalid value: "object": spec.x in body must be of type array: "object"'],
  },
  {
    name: 'null not nullable',
    schema: { type: 'string' },
    value: null,
    want: ['spec.x: Invalid value: "null": spec.x in body must be of type string: "null"'],
  },
  { name: 'null nullable', schema: { type: 'string', nullable: true }, value: null, want: [] },
  {
    name: 'int32 got string',
    schema: { type: 'integer', format: 'int32' },
    value: 'a',
    want: ['spec.x: Invalid value: "string": spec.x in body must be of type integer: "string"'],
  },
  { name: 'int64 ok', schema: { type: 'integer', format: 'int64' }, value: 2 ** 40, want: [] },
  // int-or-string: types become [integer, string] (ConvertJSONSchemaProps)
  {
    name: 'int-or-string int',
    schema: { 'x-kubernetes-int-or-string': true },
    value: 8080,
    want: [],
  },
  {
    name: 'int-or-string string',
    schema: { 'x-kubernetes-int-or-string': true },
    value: 'http',
    want: [],
  },
  {
    name: 'int-or-string bool',
    schema: { 'x-kubernetes-int-or-string': true },
    value: true,
    want: [
      'spec.x: Invalid value: "boolean": spec.x in body must be of type integer,string: "boolean"',
    ],
  },
  {
    name: 'int-or-string with the anyOf pattern (controller-gen)',
    schema: {
      'x-kubernetes-int-or-string': true,
      anyOf: [{ type: 'integer' }, { type: 'string' }],
    },
    value: 1.5,
    want: [
      'spec.x: Invalid value: "number": spec.x in body must be of type integer,string: "number"',
      ANY_OF_NIL('spec.x'),
      'spec.x: Invalid value: "number": spec.x in body must be of type integer: "number"',
    ],
  },
  // enum
  {
    name: 'enum',
    schema: { type: 'string', enum: ['a', 'b'] },
    value: 'x',
    want: ['spec.x: Unsupported value: "x": supported values: "a", "b"'],
  },
  {
    name: 'enum of integers',
    schema: { type: 'integer', enum: [1, 2] },
    value: 3,
    want: ['spec.x: Unsupported value: 3: supported values: "1", "2"'],
  },
  {
    name: 'type and enum both fail',
    schema: { type: 'string', enum: ['a'] },
    value: 5,
    want: [
      'spec.x: Invalid value: "integer": spec.x in body must be of type string: "integer"',
      'spec.x: Unsupported value: 5: supported values: "a"',
    ],
  },
  // numbers
  {
    name: 'minimum',
    schema: { type: 'integer', minimum: 0 },
    value: -1,
    want: ['spec.x: Invalid value: -1: spec.x in body should be greater than or equal to 0'],
  },
  {
    name: 'exclusiveMinimum',
    schema: { type: 'integer', minimum: 0, exclusiveMinimum: true },
    value: 0,
    want: ['spec.x: Invalid value: 0: spec.x in body should be greater than 0'],
  },
  {
    name: 'maximum',
    schema: { type: 'integer', maximum: 10 },
    value: 11,
    want: ['spec.x: Invalid value: 11: spec.x in body should be less than or equal to 10'],
  },
  {
    name: 'exclusiveMaximum',
    schema: { type: 'integer', maximum: 10, exclusiveMaximum: true },
    value: 10,
    want: ['spec.x: Invalid value: 10: spec.x in body should be less than 10'],
  },
  {
    name: 'number minimum',
    schema: { type: 'number', minimum: 0.5 },
    value: 0.25,
    want: ['spec.x: Invalid value: 0.25: spec.x in body should be greater than or equal to 0.5'],
  },
  {
    name: 'large float limit prints like Go',
    schema: { type: 'number', maximum: 1500000 },
    value: 1500000.5,
    want: [
      'spec.x: Invalid value: 1.5000005e+06: spec.x in body should be less than or equal to 1.5e+06',
    ],
  },
  {
    name: 'multipleOf',
    schema: { type: 'integer', multipleOf: 3 },
    value: 4,
    want: ['spec.x: Invalid value: 4: spec.x in body should be a multiple of 3'],
  },
  { name: 'multipleOf ok', schema: { type: 'number', multipleOf: 0.5 }, value: 1.5, want: [] },
  {
    name: 'multipleOf tolerates float error',
    schema: { type: 'number', multipleOf: 0.1 },
    value: 0.3,
    want: [],
  },
  {
    name: 'multipleOf float',
    schema: { type: 'number', multipleOf: 0.25 },
    value: 0.3,
    want: ['spec.x: Invalid value: 0.3: spec.x in body should be a multiple of 0.25'],
  },
  // integer formats: IsValueValidAgainstRange's "Checked" error, on the nil path
  { name: 'int32 max', schema: { type: 'integer', format: 'int32' }, value: 2 ** 31 - 1, want: [] },
  { name: 'int32 min', schema: { type: 'integer', format: 'int32' }, value: -(2 ** 31), want: [] },
  {
    name: 'int32 overflow',
    schema: { type: 'integer', format: 'int32' },
    value: 2 ** 31,
    want: [
      '<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.x',
    ],
  },
  {
    name: 'int32 underflow, then the limits',
    schema: { type: 'integer', format: 'int32', minimum: 0 },
    value: -(2 ** 31) - 1,
    want: [
      '<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.x',
      'spec.x: Invalid value: -2147483649: spec.x in body should be greater than or equal to 0',
    ],
  },
  {
    name: 'uint32 negative',
    schema: { type: 'integer', format: 'uint32' },
    value: -1,
    want: [
      '<nil>: Invalid value: "": Checked value must be of type integer with format uint32 in spec.x',
    ],
  },
  { name: 'int64 large', schema: { type: 'integer', format: 'int64' }, value: 2 ** 62, want: [] },
  { name: 'no format', schema: { type: 'integer' }, value: 2 ** 40, want: [] },
  { name: 'numbers are not range-checked', schema: { type: 'number' }, value: 2 ** 40, want: [] },
  // strings
  {
    name: 'minLength',
    schema: { type: 'string', minLength: 2 },
    value: 'x',
    want: ['spec.x: Invalid value: "x": spec.x in body should be at least 2 chars long'],
  },
  {
    name: 'maxLength',
    schema: { type: 'string', maxLength: 3 },
    value: 'abcd',
    want: ['spec.x: Too long: may not be more than 3 bytes'],
  },
  {
    name: 'maxLength counts runes',
    schema: { type: 'string', maxLength: 3 },
    value: 'äöü',
    want: [],
  },
  {
    name: 'maxLength wins over pattern',
    schema: { type: 'string', maxLength: 1, pattern: '^[a-z]+$' },
    value: 'A1',
    want: ['spec.x: Too long: may not be more than 1 byte'],
  },
  {
    name: 'pattern',
    schema: { type: 'string', pattern: '^[a-z]+$' },
    value: 'x1',
    want: [`spec.x: Invalid value: "x1": spec.x in body should match '^[a-z]+$'`],
  },
  {
    name: 'pattern is unanchored like Go',
    schema: { type: 'string', pattern: '[0-9]' },
    value: 'ab1',
    want: [],
  },
  // arrays
  {
    name: 'minItems',
    schema: { type: 'array', items: { type: 'string' }, minItems: 1 },
    value: [],
    want: ['spec.x: Invalid value: 0: spec.x in body should have at least 1 items'],
  },
  {
    name: 'maxItems',
    schema: { type: 'array', items: { type: 'integer' }, maxItems: 2 },
    value: [1, 2, 3],
    want: ['spec.x: Too many: 3: must have at most 2 items'],
  },
  {
    name: 'item errors come before the list size',
    schema: { type: 'array', items: { type: 'integer' }, maxItems: 1 },
    value: ['a', 2],
    want: [
      'spec.x[0]: Invalid value: "string": spec.x[0] in body must be of type integer: "string"',
      'spec.x: Too many: 2: must have at most 1 item',
    ],
  },
  {
    name: 'required inside list items',
    schema: {
      type: 'array',
      items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    },
    value: [{ name: 'a' }, {}],
    want: ['spec.x[1].name: Required value'],
  },
  // objects
  {
    name: 'required',
    schema: {
      type: 'object',
      required: ['a', 'b'],
      properties: { a: { type: 'string' }, b: { type: 'string' } },
    },
    value: { b: 'x' },
    want: ['spec.x.a: Required value'],
  },
  {
    name: 'minProperties',
    schema: { type: 'object', minProperties: 1, additionalProperties: { type: 'string' } },
    value: {},
    want: ['spec.x: Invalid value: 0: spec.x in body should have at least 1 properties'],
  },
  {
    name: 'maxProperties stops object validation',
    schema: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } },
    value: { a: 1, b: 2 },
    want: ['spec.x: Too many: 2: must have at most 1 item'],
  },
  {
    name: 'additionalProperties values are named with dots by kube-openapi',
    schema: { type: 'object', additionalProperties: { type: 'string' } },
    value: { a: 'ok', b: 1 },
    want: [
      'spec.x.b: Invalid value: "integer": spec.x.b in body must be of type string: "integer"',
    ],
  },
  // value validations combined with logic keywords
  {
    name: 'anyOf with none matching reports the best failure',
    schema: { type: 'integer', anyOf: [{ minimum: 5 }, { maximum: 1 }] },
    value: 3,
    want: [
      ANY_OF_NIL('spec.x'),
      'spec.x: Invalid value: 3: spec.x in body should be greater than or equal to 5',
    ],
  },
  {
    name: 'anyOf with one matching',
    schema: { type: 'integer', anyOf: [{ minimum: 5 }, { maximum: 1 }] },
    value: 0,
    want: [],
  },
  {
    name: 'oneOf with two matching',
    schema: { type: 'integer', oneOf: [{ minimum: 0 }, { maximum: 10 }] },
    value: 5,
    want: [
      '<nil>: Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found 2 valid alternatives',
    ],
  },
  {
    name: 'oneOf with none matching',
    schema: { type: 'integer', oneOf: [{ minimum: 10 }, { maximum: 0 }] },
    value: 5,
    want: [
      '<nil>: Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found none valid',
      'spec.x: Invalid value: 5: spec.x in body should be greater than or equal to 10',
    ],
  },
  {
    name: 'allOf',
    schema: { type: 'string', allOf: [{ minLength: 2 }, { pattern: '^a' }] },
    value: 'b',
    want: [
      'spec.x: Invalid value: "b": spec.x in body should be at least 2 chars long',
      `spec.x: Invalid value: "b": spec.x in body should match '^a'`,
      '<nil>: Invalid value: "": "spec.x" must validate all the schemas (allOf). None validated',
    ],
  },
  {
    name: 'not',
    schema: { type: 'string', not: { enum: ['forbidden'] } },
    value: 'forbidden',
    want: ['<nil>: Invalid value: "": "spec.x" must not validate the schema (not)'],
  },
  {
    name: 'anyOf of required properties (a common CRD idiom)',
    schema: {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      anyOf: [{ required: ['a'] }, { required: ['b'] }],
    },
    value: {},
    want: [ANY_OF_NIL('spec.x'), 'spec.x.a: Required value'],
  },
];

describe('OpenAPI validation (kube-openapi semantics and messages)', () => {
  it.each(cases)('$name', ({ schema, value, want }) => {
    const s = compileSpec({ x: schema });
    expect(messages(s.validate({ spec: { x: value } }))).toEqual(want);
  });

  it('reports the cause types kube uses', () => {
    const s = compileSpec({
      a: { type: 'string' },
      b: { type: 'string', enum: ['x'] },
      c: { type: 'string', maxLength: 1 },
      d: { type: 'array', items: { type: 'string' }, maxItems: 0 },
      e: { type: 'integer', minimum: 1 },
    });
    const issues = s.validate({ spec: { a: 1, b: 'y', c: 'yy', d: ['z'], e: 0 } });
    expect(issues.map((i) => [i.field, i.type])).toEqual([
      ['spec.a', 'FieldValueTypeInvalid'],
      ['spec.b', 'FieldValueNotSupported'],
      ['spec.c', 'FieldValueTooLong'],
      ['spec.d', 'FieldValueTooMany'],
      ['spec.e', 'FieldValueInvalid'],
    ]);
  });

  it('checks int64 range of big integers and does not block CEL with the range error', () => {
    const s = compileSpec(
      { n: { type: 'integer', format: 'int64' }, m: { type: 'integer' } },
      { 'x-kubernetes-validations': [{ rule: 'false', message: 'rule ran' }] },
    );
    expect(messages(s.validate({ spec: { n: 2n ** 63n, m: -(2n ** 63n) - 1n } }))).toEqual([
      '<nil>: Invalid value: "": Checked value must be of type integer with format int64 in spec.n',
      '<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.m',
      'spec: Invalid value: rule ran',
    ]);
    expect(messages(s.validate({ spec: { n: 2n ** 63n - 1n } }))).toEqual([
      'spec: Invalid value: rule ran',
    ]);
  });

  it('tells whether the schema has x-kubernetes-validations rules', () => {
    expect(compileSpec({ x: { type: 'integer' } }).hasValidationRules).toBe(false);
    expect(
      compileSpec({
        x: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0' }] },
      }).hasValidationRules,
    ).toBe(true);
  });

  it('validates the root: a missing required spec', () => {
    const s = StructuralSchema.compile({ ...specSchema({}), required: ['spec'] });
    expect(messages(s.validate({ apiVersion: 'v1', kind: 'K' }))).toEqual(['spec: Required value']);
  });
});

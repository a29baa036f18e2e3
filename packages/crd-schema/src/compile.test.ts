import type { JSONSchemaProps } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { SchemaError } from './errors.ts';
import { StructuralSchema } from './structural-schema.ts';
import { specSchema } from './test-helpers.ts';

function compileError(schema: JSONSchemaProps): SchemaError {
  try {
    StructuralSchema.compile(schema);
  } catch (err: unknown) {
    if (err instanceof SchemaError) return err;
    throw err;
  }
  throw new Error('expected a SchemaError');
}

describe('StructuralSchema.compile rejects non-structural schemas (schema/validation.go)', () => {
  it.each([
    [
      'missing type on a field',
      specSchema({ a: {} }),
      'properties[spec].properties[a].type: Required value: must not be empty for specified object fields',
    ],
    [
      'missing type on items',
      specSchema({ a: { type: 'array', items: {} } }),
      'properties[spec].properties[a].items.type: Required value: must not be empty for specified array items',
    ],
    [
      'array without items',
      specSchema({ a: { type: 'array' } }),
      'properties[spec].properties[a].items: Required value: must be specified',
    ],
    [
      'root without type',
      { properties: {} },
      'type: Required value: must not be empty at the root',
    ],
    [
      'root not an object',
      { type: 'string' },
      'type: Invalid value: "string": must be object at the root',
    ],
    [
      'default at the root',
      { type: 'object', default: {} },
      'default: Forbidden: must not be set at the root',
    ],
    [
      'type inside anyOf',
      specSchema({ a: { type: 'string', anyOf: [{ type: 'string' }] } }),
      'properties[spec].properties[a].anyOf[0].type: Forbidden: must be empty to be structural',
    ],
    [
      'default inside allOf',
      specSchema({ a: { type: 'string', allOf: [{ default: 'x' }] } }),
      'properties[spec].properties[a].allOf[0].default: Forbidden: must be undefined to be structural',
    ],
    [
      'embedded resource not an object',
      specSchema({ a: { type: 'string', 'x-kubernetes-embedded-resource': true } }),
      'properties[spec].properties[a].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true',
    ],
    [
      'int-or-string with preserve-unknown-fields',
      specSchema({
        a: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true },
      }),
      'properties[spec].properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true',
    ],
    [
      'metadata constraints beyond name',
      {
        type: 'object',
        properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } },
      },
      'properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
    ],
    [
      'uniqueItems',
      specSchema({ a: { type: 'array', items: { type: 'string' }, uniqueItems: true } }),
      'properties[spec].properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
    ],
    [
      'properties with additionalProperties',
      specSchema({
        a: {
          type: 'object',
          properties: { b: { type: 'string' } },
          additionalProperties: { type: 'string' },
        },
      }),
      'properties[spec].properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive',
    ],
    [
      'list-type map without keys',
      specSchema({
        a: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          items: { type: 'object', properties: { k: { type: 'string' } } },
        },
      }),
      'properties[spec].properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map',
    ],
  ] as [string, JSONSchemaProps, string][])('%s', (_name, schema, want) => {
    const err = compileError(schema);
    expect(err.code).toBe('NonStructuralSchema');
    expect(err.message).toContain(want);
    expect(err.paths.length).toBeGreaterThan(0);
  });

  it('names every offending path', () => {
    const err = compileError(specSchema({ a: {}, b: { type: 'array' } }));
    expect(err.paths).toEqual([
      'properties[spec].properties[a].type',
      'properties[spec].properties[b].items',
    ]);
  });

  it.each([
    [
      'preserve-unknown-fields without type',
      specSchema({ a: { 'x-kubernetes-preserve-unknown-fields': true } }),
    ],
    [
      'int-or-string without type, with the anyOf pattern',
      specSchema({
        a: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      }),
    ],
    [
      'metadata with name and generateName',
      {
        type: 'object',
        properties: {
          metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } },
        },
      },
    ],
    [
      'embedded resource with preserve-unknown-fields',
      specSchema({
        a: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
      }),
    ],
  ] as [string, JSONSchemaProps][])('accepts %s', (_name, schema) => {
    expect(() => StructuralSchema.compile(schema)).not.toThrow();
  });

  it('rejects a pattern RE2 would not accept', () => {
    const err = compileError(specSchema({ a: { type: 'string', pattern: '^(?=a)' } }));
    expect(err.code).toBe('InvalidPattern');
  });

  it('rejects a CEL rule that does not parse', () => {
    const err = compileError(specSchema({}, { 'x-kubernetes-validations': [{ rule: 'self. +' }] }));
    expect(err).toBeInstanceOf(SchemaError);
    expect(err.code).toBe('InvalidValidationRule');
    expect(err.paths).toEqual(['properties[spec]']);
  });

  it('rejects a fieldPath that names no field', () => {
    const err = compileError(
      specSchema({}, { 'x-kubernetes-validations': [{ rule: 'true', fieldPath: '.nope' }] }),
    );
    expect(err.code).toBe('InvalidValidationRule');
  });

  it.each([
    [
      'of the wrong type',
      specSchema({ n: { type: 'integer', default: 'x' } }),
      'properties[spec].properties[n].default: Invalid value: "string":  in body must be of type integer: "string"',
    ],
    [
      'violating a constraint',
      specSchema({ n: { type: 'integer', minimum: 1, default: 0 } }),
      'properties[spec].properties[n].default: Invalid value: 0:  in body should be greater than or equal to 1',
    ],
    [
      'missing a required field',
      specSchema({
        o: { type: 'object', required: ['a'], properties: { a: { type: 'string' } }, default: {} },
      }),
      'properties[spec].properties[o].default.a: Required value',
    ],
    [
      'with unknown fields',
      specSchema({
        o: { type: 'object', properties: { a: { type: 'string' } }, default: { a: 'x', b: 1 } },
      }),
      'properties[spec].properties[o].default: Invalid value: {"a":"x","b":1}: must not have unknown fields: b',
    ],
  ] as [string, JSONSchemaProps, string][])('rejects a default %s', (_name, schema, want) => {
    const err = compileError(schema);
    expect(err.code).toBe('InvalidDefault');
    expect(err.message).toContain(want);
  });

  it('accepts admissible defaults, including objects whose fields have their own defaults', () => {
    const schema = specSchema({
      o: { type: 'object', default: {}, properties: { a: { type: 'string', default: 'x' } } },
      l: { type: 'array', items: { type: 'string' }, default: ['a'] },
    });
    expect(() => StructuralSchema.compile(schema)).not.toThrow();
  });
});

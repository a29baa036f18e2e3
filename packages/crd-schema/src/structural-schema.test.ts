import type { JSONSchemaProps } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { StructuralSchema, admit, isRulesSkippedIssue } from './structural-schema.ts';
import { compileSpec, messages, specSchema } from './test-helpers.ts';

describe('admit (prune, default, validate)', () => {
  const s = compileSpec({
    mode: { type: 'string', enum: ['A', 'B'], default: 'A' },
    size: { type: 'integer', minimum: 1 },
  });

  it('works on a copy and reports pruned paths and issues', () => {
    const input = { apiVersion: 'g/v1', kind: 'K', spec: { size: 0, junk: 1 } };
    const result = admit(s, input);
    expect(input).toEqual({ apiVersion: 'g/v1', kind: 'K', spec: { size: 0, junk: 1 } });
    expect(result.object).toEqual({ apiVersion: 'g/v1', kind: 'K', spec: { mode: 'A', size: 0 } });
    expect(result.pruned).toEqual(['spec.junk']);
    expect(messages(result.issues)).toEqual([
      'spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1',
    ]);
  });

  it('defaults before validating, so a null with a default passes', () => {
    expect(admit(s, { spec: { mode: null, size: 2 } }).issues).toEqual([]);
  });

  it('prunes before validating, so unknown fields never fail validation', () => {
    const strict = compileSpec({ a: { type: 'string' } }, { maxProperties: 1 });
    expect(admit(strict, { spec: { a: 'x', b: 'y', c: 'z' } }).issues).toEqual([]);
  });

  it('validate does not mutate its input', () => {
    const obj = { spec: { size: 5 } };
    s.validate(obj);
    expect(obj).toEqual({ spec: { size: 5 } });
  });
});

describe('embedded resources (schemaobjectmeta.Validate)', () => {
  const template: JSONSchemaProps = {
    type: 'object',
    'x-kubernetes-embedded-resource': true,
    'x-kubernetes-preserve-unknown-fields': true,
  };
  const s = compileSpec({ template });

  it.each([
    ['complete', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }, []],
    [
      'missing apiVersion and kind',
      { metadata: {} },
      ['spec.template.apiVersion: Required value', 'spec.template.kind: Required value'],
    ],
    [
      'kind not a string',
      { apiVersion: 'v1', kind: 5 },
      ['spec.template.kind: Invalid value: 5: must be a string'],
    ],
    [
      'bad apiVersion',
      { apiVersion: 'a/b/c', kind: 'Pod' },
      ['spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c'],
    ],
    [
      'bad kind',
      { apiVersion: 'v1', kind: 'Not_A_Kind' },
      [
        `spec.template.kind: Invalid value: "Not_A_Kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      ],
    ],
  ])('%s', (_name, value, want) => {
    expect(messages(s.validate({ spec: { template: value } }))).toEqual(want);
  });
});

describe('isRulesSkippedIssue', () => {
  it('recognises the notice kube appends when CEL was skipped', () => {
    const s = StructuralSchema.compile({
      ...specSchema({ a: { type: 'string' } }, { 'x-kubernetes-validations': [{ rule: 'true' }] }),
      required: ['spec'],
    });
    const issues = s.validate({});
    expect(issues.map(isRulesSkippedIssue)).toEqual([false, true]);
  });

  it('adds no notice when the schema has no rules (kube has no CEL validator then)', () => {
    const s = compileSpec({ a: { type: 'string' } });
    expect(messages(s.validate({ spec: { a: 1 } }))).toEqual([
      'spec.a: Invalid value: "integer": spec.a in body must be of type string: "integer"',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { compileSpec, messages } from './test-helpers.ts';

const QUALIFIED_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('metadata of embedded resources (schema/objectmeta/validation.go)', () => {
  const s = compileSpec({
    template: {
      type: 'object',
      'x-kubernetes-embedded-resource': true,
      'x-kubernetes-preserve-unknown-fields': true,
    },
  });
  it.each([
    ['no name is fine', { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { a: 'b' } } }, []],
    [
      'names are path segments',
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a/b' } },
      [`spec.template.metadata.name: Invalid value: "a/b": may not contain '/'`],
    ],
    ['upper case names are fine', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'Web' } }, []],
    [
      'dot names are refused',
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: '..' } },
      [`spec.template.metadata.name: Invalid value: "..": may not be '..'`],
    ],
    [
      'bad label keys',
      { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { 'bad key': 'v' } } },
      [`spec.template.metadata.labels: Invalid value: "bad key": ${QUALIFIED_MSG}`],
    ],
    [
      'labels are checked',
      { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { k: 'a b' } } },
      [`spec.template.metadata.labels: Invalid value: "a b": ${LABEL_VALUE_MSG}`],
    ],
  ] as [string, unknown, string[]][])('%s', (_name, template, want) => {
    expect(messages(s.validate({ spec: { template } }))).toEqual(want);
  });
});

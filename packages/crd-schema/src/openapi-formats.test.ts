import type { JSONSchemaProps } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { compileSpec, messages } from './test-helpers.ts';

// String formats: kube-openapi's formatValidator reports errors.InvalidType with the format
// as the type name (FieldValueTypeInvalid); unknown formats are not checked.
const cases: { name: string; schema: JSONSchemaProps; value: unknown; want: string[] }[] = [
  {
    name: 'date-time ok',
    schema: { type: 'string', format: 'date-time' },
    value: '2025-01-02T03:04:05Z',
    want: [],
  },
  {
    name: 'date-time with offset and fraction',
    schema: { type: 'string', format: 'date-time' },
    value: '2025-01-02T03:04:05.123+02:00',
    want: [],
  },
  {
    name: 'date-time bad',
    schema: { type: 'string', format: 'date-time' },
    value: 'bad',
    want: ['spec.x: Invalid value: "bad": spec.x in body must be of type date-time: "bad"'],
  },
  {
    name: 'date-time bad day',
    schema: { type: 'string', format: 'date-time' },
    value: '2025-02-30T00:00:00Z',
    want: [
      'spec.x: Invalid value: "2025-02-30T00:00:00Z": spec.x in body must be of type date-time: "2025-02-30T00:00:00Z"',
    ],
  },
  {
    name: 'date-time got integer (format wins in the message)',
    schema: { type: 'string', format: 'date-time' },
    value: 5,
    want: ['spec.x: Invalid value: "int64": spec.x in body must be of type date-time: "int64"'],
  },
  { name: 'date ok', schema: { type: 'string', format: 'date' }, value: '2024-02-29', want: [] },
  {
    name: 'date bad',
    schema: { type: 'string', format: 'date' },
    value: '2023-02-29',
    want: [
      'spec.x: Invalid value: "2023-02-29": spec.x in body must be of type date: "2023-02-29"',
    ],
  },
  { name: 'byte ok', schema: { type: 'string', format: 'byte' }, value: 'aGVsbG8=', want: [] },
  {
    name: 'byte bad',
    schema: { type: 'string', format: 'byte' },
    value: 'abc',
    want: ['spec.x: Invalid value: "abc": spec.x in body must be of type byte: "abc"'],
  },
  {
    name: 'uuid bad',
    schema: { type: 'string', format: 'uuid' },
    value: 'nope',
    want: ['spec.x: Invalid value: "nope": spec.x in body must be of type uuid: "nope"'],
  },
  { name: 'ipv4 ok', schema: { type: 'string', format: 'ipv4' }, value: '10.0.0.1', want: [] },
  {
    name: 'unknown format is not checked',
    schema: { type: 'string', format: 'k8s-thing' },
    value: '!!',
    want: [],
  },
  { name: 'ipv6 ok', schema: { type: 'string', format: 'ipv6' }, value: 'fd00::1', want: [] },
  {
    name: 'ipv6 bad',
    schema: { type: 'string', format: 'ipv6' },
    value: '10.0.0.1',
    want: ['spec.x: Invalid value: "10.0.0.1": spec.x in body must be of type ipv6: "10.0.0.1"'],
  },
  { name: 'cidr ok', schema: { type: 'string', format: 'cidr' }, value: '10.0.0.0/8', want: [] },
  {
    name: 'cidr bad',
    schema: { type: 'string', format: 'cidr' },
    value: '10.0.0.0/33',
    want: [
      'spec.x: Invalid value: "10.0.0.0/33": spec.x in body must be of type cidr: "10.0.0.0/33"',
    ],
  },
  {
    name: 'mac ok',
    schema: { type: 'string', format: 'mac' },
    value: '00:1a:2b:3c:4d:5e',
    want: [],
  },
  {
    name: 'hostname ok',
    schema: { type: 'string', format: 'hostname' },
    value: 'example.com',
    want: [],
  },
  { name: 'duration ok', schema: { type: 'string', format: 'duration' }, value: '1h30m', want: [] },
  {
    name: 'duration bad',
    schema: { type: 'string', format: 'duration' },
    value: 'soon',
    want: ['spec.x: Invalid value: "soon": spec.x in body must be of type duration: "soon"'],
  },
  {
    name: 'byte empty',
    schema: { type: 'string', format: 'byte' },
    value: '',
    want: ['spec.x: Invalid value: "": spec.x in body must be of type byte: ""'],
  },
  {
    name: 'hostname bad',
    schema: { type: 'string', format: 'hostname' },
    value: '-bad',
    want: ['spec.x: Invalid value: "-bad": spec.x in body must be of type hostname: "-bad"'],
  },
  {
    name: 'datetime alias',
    schema: { type: 'string', format: 'datetime' },
    value: '2025-01-02T03:04:05Z',
    want: [],
  },
];

describe('OpenAPI string formats', () => {
  it.each(cases)('$name', ({ schema, value, want }) => {
    const s = compileSpec({ x: schema });
    expect(messages(s.validate({ spec: { x: value } }))).toEqual(want);
  });

  it('reports format errors as FieldValueTypeInvalid', () => {
    const s = compileSpec({ x: { type: 'string', format: 'date-time' } });
    expect(s.validate({ spec: { x: 'bad' } })[0]?.type).toBe('FieldValueTypeInvalid');
  });
});

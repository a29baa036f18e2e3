import type { JSONSchemaProps, ValidationRule } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { StructuralSchema } from './structural-schema.ts';
import { compileSpec, messages, specSchema } from './test-helpers.ts';

function withRules(schema: JSONSchemaProps, ...rules: ValidationRule[]): JSONSchemaProps {
  return { ...schema, 'x-kubernetes-validations': rules };
}

interface Case {
  name: string;
  props: Record<string, JSONSchemaProps>;
  rules: ValidationRule[];
  spec: unknown;
  old?: unknown;
  want: string[];
}

const intProps: Record<string, JSONSchemaProps> = {
  replicas: { type: 'integer' },
  max: { type: 'integer' },
  ratio: { type: 'number' },
  name: { type: 'string' },
  labels: { type: 'object', additionalProperties: { type: 'string' } },
  tags: { type: 'array', items: { type: 'string' } },
  port: { 'x-kubernetes-int-or-string': true },
  at: { type: 'string', format: 'date-time' },
};

const cases: Case[] = [
  {
    name: 'passing rule',
    props: intProps,
    rules: [{ rule: 'self.replicas <= self.max' }],
    spec: { replicas: 1, max: 2 },
    want: [],
  },
  {
    name: 'default message is "failed rule: <rule>"; an object value is omitted',
    props: intProps,
    rules: [{ rule: 'self.replicas <= self.max' }],
    spec: { replicas: 3, max: 2 },
    want: ['spec: Invalid value: failed rule: self.replicas <= self.max'],
  },
  {
    name: 'message',
    props: intProps,
    rules: [{ rule: 'self.replicas <= self.max', message: ' replicas must not exceed max ' }],
    spec: { replicas: 3, max: 2 },
    want: ['spec: Invalid value: replicas must not exceed max'],
  },
  {
    name: 'messageExpression',
    props: intProps,
    rules: [
      {
        rule: 'self.replicas <= self.max',
        message: 'static',
        messageExpression: '"replicas " + string(self.replicas) + " > " + string(self.max)',
      },
    ],
    spec: { replicas: 3, max: 2 },
    want: ['spec: Invalid value: replicas 3 > 2'],
  },
  {
    name: 'messageExpression result is trimmed',
    props: intProps,
    rules: [{ rule: 'false', messageExpression: '"  padded  "' }],
    spec: {},
    want: ['spec: Invalid value: padded'],
  },
  {
    name: 'multi-line messageExpression result falls back to the default message',
    props: intProps,
    rules: [{ rule: 'false', messageExpression: '"a\\nb"' }],
    spec: {},
    want: ['spec: Invalid value: failed rule: false'],
  },
  {
    name: 'overload errors at run time (int-or-string is dynamic)',
    props: intProps,
    rules: [{ rule: 'self.port > 80' }],
    spec: { port: 'http' },
    want: [
      "spec: Invalid value: 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self.port > 80",
    ],
  },
  {
    name: 'empty messageExpression result falls back to the message',
    props: intProps,
    rules: [{ rule: 'false', message: 'static', messageExpression: '""' }],
    spec: {},
    want: ['spec: Invalid value: static'],
  },
  {
    name: 'reason and fieldPath',
    props: intProps,
    rules: [
      {
        rule: 'has(self.name)',
        reason: 'FieldValueRequired',
        fieldPath: '.name',
        message: 'name is required',
      },
    ],
    spec: {},
    want: ['spec.name: Required value: name is required'],
  },
  {
    name: 'fieldPath into a map uses a key segment',
    props: intProps,
    rules: [
      {
        rule: "!('bad' in self.labels)",
        reason: 'FieldValueForbidden',
        fieldPath: ".labels['bad']",
        message: 'no',
      },
    ],
    spec: { labels: { bad: 'x' } },
    want: ['spec.labels[bad]: Forbidden: no'],
  },
  {
    name: 'reason FieldValueDuplicate omits an object value (and ignores the message)',
    props: intProps,
    rules: [{ rule: 'false', reason: 'FieldValueDuplicate' }],
    spec: {},
    want: ['spec: Duplicate value'],
  },
  {
    name: 'integers are CEL ints',
    props: intProps,
    rules: [{ rule: 'self.replicas + 1 == 3 && type(self.replicas) == int' }],
    spec: { replicas: 2 },
    want: [],
  },
  {
    name: 'numbers are CEL doubles',
    props: intProps,
    rules: [{ rule: 'self.ratio > 0.5 && type(self.ratio) == double' }],
    spec: { ratio: 1 },
    want: [],
  },
  {
    name: 'int-or-string as int',
    props: intProps,
    rules: [{ rule: 'type(self.port) == int' }],
    spec: { port: 8080 },
    want: [],
  },
  {
    name: 'int-or-string as string',
    props: intProps,
    rules: [{ rule: 'type(self.port) == string' }],
    spec: { port: 'http' },
    want: [],
  },
  {
    name: 'date-time is a timestamp',
    props: intProps,
    rules: [{ rule: "self.at > timestamp('2020-01-01T00:00:00Z')" }],
    spec: { at: '2025-01-01T00:00:00Z' },
    want: [],
  },
  {
    name: 'list functions and macros',
    props: intProps,
    rules: [
      {
        rule: "self.tags.all(t, t.startsWith('x')) && self.tags.isSorted() && size(self.tags) == 2",
      },
    ],
    spec: { tags: ['xa', 'xb'] },
    want: [],
  },
  {
    name: 'string functions',
    props: intProps,
    rules: [
      {
        rule: "self.name.matches('^[a-z]+$') && self.name.lowerAscii() == self.name && self.name.find('[b]') == 'b'",
      },
    ],
    spec: { name: 'abc' },
    want: [],
  },
  {
    name: 'evaluation errors are reported as Invalid',
    props: intProps,
    rules: [{ rule: 'self.name == "x"' }],
    spec: {},
    want: ['spec: Invalid value: no such key: name evaluating rule: self.name == "x"'],
  },
  {
    name: 'transition rules are skipped on create',
    props: intProps,
    rules: [{ rule: 'self.replicas >= oldSelf.replicas', message: 'no scale down' }],
    spec: { replicas: 1 },
    want: [],
  },
  {
    name: 'transition rule on update',
    props: intProps,
    rules: [{ rule: 'self.replicas >= oldSelf.replicas', message: 'no scale down' }],
    spec: { replicas: 1 },
    old: { replicas: 2 },
    want: ['spec: Invalid value: no scale down'],
  },
  {
    name: 'optionalOldSelf sees none on create',
    props: intProps,
    rules: [
      {
        rule: '!oldSelf.hasValue() || self.replicas >= oldSelf.value().replicas',
        optionalOldSelf: true,
        message: 'first or grow',
      },
    ],
    spec: { replicas: 1 },
    want: [],
  },
  {
    name: 'optionalOldSelf with a value',
    props: intProps,
    rules: [
      {
        rule: '!oldSelf.hasValue() || self.replicas >= oldSelf.value().replicas',
        optionalOldSelf: true,
        message: 'first or grow',
      },
    ],
    spec: { replicas: 1 },
    old: { replicas: 5 },
    want: ['spec: Invalid value: first or grow'],
  },
];

describe('x-kubernetes-validations (schema/cel/validation.go)', () => {
  it.each(cases)('$name', ({ props, rules, spec, old, want }) => {
    const s = StructuralSchema.compile(specSchema(props, { 'x-kubernetes-validations': rules }));
    const oldObj = old === undefined ? undefined : { spec: old };
    expect(messages(s.validate({ spec }, oldObj))).toEqual(want);
  });

  it('runs rules on nested nodes with kube field paths', () => {
    const s = compileSpec({
      containers: {
        type: 'array',
        items: withRules(
          { type: 'object', properties: { name: { type: 'string' } } },
          { rule: "self.name != 'bad'", message: 'bad name' },
        ),
      },
      env: {
        type: 'object',
        additionalProperties: withRules({ type: 'string' }, { rule: 'self.size() < 3' }),
      },
    });
    const issues = s.validate({
      spec: { containers: [{ name: 'ok' }, { name: 'bad' }], env: { A: 'x', B: 'long' } },
    });
    expect(messages(issues)).toEqual([
      'spec.containers[1]: Invalid value: bad name',
      'spec.env[B]: Invalid value: "long": failed rule: self.size() < 3',
    ]);
  });

  it('skips null values', () => {
    const s = compileSpec({
      name: withRules({ type: 'string', nullable: true }, { rule: 'false' }),
    });
    expect(s.validate({ spec: { name: null } })).toEqual([]);
  });

  it('correlates list-map items with their old versions by key for transition rules', () => {
    const s = compileSpec({
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: withRules(
          {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, port: { type: 'integer' } },
          },
          { rule: 'self.port == oldSelf.port', message: 'port is immutable' },
        ),
      },
      atomic: {
        type: 'array',
        items: withRules(
          { type: 'object', properties: { v: { type: 'integer' } } },
          { rule: 'self.v == oldSelf.v' },
        ),
      },
    });
    const old = {
      spec: {
        ports: [
          { name: 'a', port: 1 },
          { name: 'b', port: 2 },
        ],
        atomic: [{ v: 1 }],
      },
    };
    const cur = {
      spec: {
        ports: [
          { name: 'b', port: 2 },
          { name: 'a', port: 9 },
          { name: 'c', port: 3 },
        ],
        atomic: [{ v: 2 }],
      },
    };
    expect(messages(s.validate(cur, old))).toEqual([
      'spec.ports[1]: Invalid value: port is immutable',
    ]);
  });

  it('skips CEL after blocking errors and says so', () => {
    const s = compileSpec(
      { name: { type: 'string' } },
      { 'x-kubernetes-validations': [{ rule: 'false' }] },
    );
    expect(messages(s.validate({ spec: { name: 5 } }))).toEqual([
      'spec.name: Invalid value: "integer": spec.name in body must be of type string: "integer"',
      '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
  });

  it('shows scalar values of failing rules and omits objects and lists (1.35+)', () => {
    const s = compileSpec({
      n: withRules({ type: 'integer' }, { rule: 'self < 3', message: 'too big' }),
      f: withRules({ type: 'number' }, { rule: 'self < 1.0' }),
      b: withRules({ type: 'boolean' }, { rule: '!self', reason: 'FieldValueDuplicate' }),
      s: withRules({ type: 'string' }, { rule: "self != 'a<b>'", message: 'no' }),
      l: withRules({ type: 'array', items: { type: 'string' } }, { rule: 'size(self) == 0' }),
      m: withRules(
        { type: 'object', additionalProperties: { type: 'string' } },
        { rule: 'self.missing == "x"' },
      ),
    });
    expect(
      messages(s.validate({ spec: { n: 5, f: 2.5, b: true, s: 'a<b>', l: ['x'], m: { k: 'v' } } })),
    ).toEqual([
      'spec.n: Invalid value: 5: too big',
      'spec.f: Invalid value: 2.5: failed rule: self < 1.0',
      'spec.b: Duplicate value: true',
      'spec.s: Invalid value: "a<b>": no',
      'spec.l: Invalid value: failed rule: size(self) == 0',
      'spec.m: Invalid value: no such key: missing evaluating rule: self.missing == "x"',
    ]);
    const [, , , , list] = s.validate({
      spec: { n: 5, f: 2.5, b: true, s: 'a<b>', l: ['x'], m: { missing: 'x' } },
    });
    expect(list).toEqual({
      type: 'FieldValueInvalid',
      field: 'spec.l',
      detail: 'failed rule: size(self) == 0',
      message: 'Invalid value: failed rule: size(self) == 0',
    });
  });

  it('still runs CEL after non-blocking errors', () => {
    const s = compileSpec(
      { n: { type: 'integer', minimum: 5 } },
      { 'x-kubernetes-validations': [{ rule: 'false', message: 'm' }] },
    );
    expect(messages(s.validate({ spec: { n: 1 } }))).toEqual([
      'spec.n: Invalid value: 1: spec.n in body should be greater than or equal to 5',
      'spec: Invalid value: m',
    ]);
  });
});

describe('the upstream Sandbox rule: volumeClaimTemplates is immutable', () => {
  const rule =
    'has(self.volumeClaimTemplates) == has(oldSelf.volumeClaimTemplates) && (!has(self.volumeClaimTemplates) || self.volumeClaimTemplates == oldSelf.volumeClaimTemplates)';
  const s = compileSpec(
    {
      volumeClaimTemplates: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            metadata: { type: 'object', properties: { name: { type: 'string' } } },
            spec: {
              type: 'object',
              properties: {
                storage: { type: 'integer' },
                modes: { type: 'array', items: { type: 'string' } },
              },
            },
          },
        },
      },
      other: { type: 'string' },
    },
    { 'x-kubernetes-validations': [{ rule, message: 'volumeClaimTemplates is immutable' }] },
  );
  const vct = [{ metadata: { name: 'data' }, spec: { storage: 10, modes: ['RWO'] } }];
  const immutable = ['spec: Invalid value: volumeClaimTemplates is immutable'];

  it.each([
    ['create', { volumeClaimTemplates: vct }, undefined, []],
    [
      'unchanged',
      { volumeClaimTemplates: structuredClone(vct), other: 'changed' },
      { volumeClaimTemplates: vct },
      [],
    ],
    [
      'changed',
      { volumeClaimTemplates: [{ ...vct[0], spec: { storage: 20, modes: ['RWO'] } }] },
      { volumeClaimTemplates: vct },
      immutable,
    ],
    ['removed', {}, { volumeClaimTemplates: vct }, immutable],
    ['added', { volumeClaimTemplates: vct }, {}, immutable],
    ['neither', { other: 'x' }, {}, []],
  ])('%s', (_name, spec, old, want) => {
    expect(messages(s.validate({ spec }, old === undefined ? undefined : { spec: old }))).toEqual(
      want,
    );
  });
});

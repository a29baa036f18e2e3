import { describe, expect, it } from 'vitest';
import { JsonPathError } from './errors.ts';
import { parseJsonPath, parseJsonPathTemplate } from './evaluate.ts';
import { humanDuration, parseRfc3339 } from './human-duration.ts';
import { printerColumnCell } from './printer-column.ts';

const sandbox = {
  apiVersion: 'agents.x-k8s.io/v1beta1',
  kind: 'Sandbox',
  metadata: {
    name: 'sb-1',
    namespace: 'team',
    creationTimestamp: '2025-01-02T03:04:05Z',
    labels: { app: 'web' },
  },
  spec: { replicas: 1, ratio: 1.5, big: 1000000.5 },
  status: {
    readyReplicas: 2,
    sandbox: { name: 'sb-1-pod' },
    conditions: [
      { type: 'Scheduled', status: 'True', reason: 'Done' },
      { type: 'Ready', status: 'False', reason: 'PodPending', message: 'waiting' },
    ],
  },
};

const numbers = { items: [{ n: 1 }, { n: 2 }, { n: 3, s: 'x' }, { s: 'y' }] };

function failure(run: () => unknown): JsonPathError {
  try {
    run();
  } catch (err: unknown) {
    if (err instanceof JsonPathError) return err;
    throw err;
  }
  throw new Error('expected a JsonPathError');
}

describe('printer-column expressions used by our CRDs', () => {
  it.each([
    [".status.conditions[?(@.type=='Ready')].status", ['False']],
    ['.status.conditions[?(@.type=="Ready")].status', ['False']],
    [".status.conditions[?(@.type=='Ready')].reason", ['PodPending']],
    [".status.conditions[?(@.type=='Missing')].reason", []],
    ['.status.sandbox.name', ['sb-1-pod']],
    ['.status.readyReplicas', [2]],
    ['.spec.replicas', [1]],
    ['.metadata.creationTimestamp', ['2025-01-02T03:04:05Z']],
  ])('%s', (expr, want) => {
    expect(parseJsonPath(expr).evaluate(sandbox)).toEqual(want);
  });

  it('yields nothing for a status that is not there yet', () => {
    const fresh = { metadata: { name: 'sb-2' }, spec: { replicas: 1 } };
    expect(parseJsonPath(".status.conditions[?(@.type=='Ready')].status").evaluate(fresh)).toEqual(
      [],
    );
    expect(parseJsonPath('.status.readyReplicas').evaluate(fresh)).toEqual([]);
  });
});

describe('JSONPath dialect', () => {
  it.each<[string, unknown, unknown[]]>([
    ['.metadata.labels.app', sandbox, ['web']],
    ["['metadata']['name']", sandbox, ['sb-1']],
    ['$.metadata.name', sandbox, ['sb-1']],
    ['.status.conditions[*].type', sandbox, ['Scheduled', 'Ready']],
    ['.status.conditions[0].type', sandbox, ['Scheduled']],
    ['.status.conditions[-1].type', sandbox, ['Ready']],
    ['.status.conditions[0:1].type', sandbox, ['Scheduled']],
    ['.status.conditions[1:].type', sandbox, ['Ready']],
    ['.status.conditions[::2].type', sandbox, ['Scheduled']],
    ['.status.conditions[0,1].type', sandbox, ['Scheduled', 'Ready']],
    ['.status.conditions[?(@.message)].type', sandbox, ['Ready']],
    ['..name', sandbox, ['sb-1', 'sb-1-pod']],
    ['.metadata.labels.*', sandbox, ['web']],
    ['.items[?(@.n > 1)].n', numbers, [2, 3]],
    ['.items[?(@.n >= 2)].n', numbers, [2, 3]],
    ['.items[?(@.n < 2)].n', numbers, [1]],
    ['.items[?(@.n <= 2)].n', numbers, [1, 2]],
    ['.items[?(@.n != 2)].n', numbers, [1, 3]],
    [".items[?(@.s == 'y')].s", numbers, ['y']],
    ['.items[*].n', numbers, [1, 2, 3]],
    ['.a\\.b', { 'a.b': 1 }, [1]],
    ['.flag', { flag: false }, [false]],
    ['.nothing', { nothing: null }, [null]],
    ['.nothing.deeper', { nothing: null }, []],
  ])('%s', (expr, data, want) => {
    expect(parseJsonPath(expr).evaluate(data)).toEqual(want);
  });

  it.each<[string, unknown, string]>([
    ['.items[5].n', numbers, 'array index out of bounds: index 5, length 4'],
    ['.items[0]', { items: [] }, 'array index out of bounds: index 0, length 0'],
    ['.items[1:9]', numbers, 'array index out of bounds: index 8, length 4'],
    ['.items[::0]', numbers, 'step must be > 0'],
    ['.metadata[0]', sandbox, 'map[string]interface {} is not array or slice'],
    [
      '.metadata[?(@.x)]',
      { metadata: { x: 1 } },
      'map[x:1] is not array or slice and cannot be filtered',
    ],
    ['.items[?(@.n == 2.0)]', numbers, 'incompatible types for comparison'],
    [".items[?(@.n == 'a')]", numbers, 'incompatible types for comparison'],
    ['.items[?(@ == 1)]', { items: [{ a: 1 }] }, 'invalid type for comparison'],
    ['.items[?(@.b < true)]', { items: [{ b: false }] }, 'invalid type for comparison'],
  ])('%s fails with %j', (expr, data, message) => {
    const err = failure(() => parseJsonPath(expr).evaluate(data));
    expect(err.code).toBe('JsonPathEvaluation');
    expect(err.message).toBe(message);
  });

  it('reports missing keys only when asked to', () => {
    expect(parseJsonPath('.missing.field').evaluate(sandbox)).toEqual([]);
    const err = failure(() =>
      parseJsonPath('.missing.field', { allowMissingKeys: false }).evaluate(sandbox),
    );
    expect(err.message).toBe('missing is not found');
  });

  it.each([
    ['{.a', 'unclosed action'],
    ['{.a[0}', 'unterminated array'],
    ['{.a[x]}', 'invalid array index x'],
    ['{.a["x"]}', 'invalid array index "x"'],
    ['{.a[?(@.b == 1}', 'unterminated filter'],
    ['{.a[?(@.b == 1)}', 'unclosed array expect ]'],
    ['{#}', "unrecognized character in action: U+0023 '#'"],
    ["{'abc}", 'unterminated quoted string'],
    ['{....a}', 'invalid multiple recursive descent'],
    ['{1.2.3}', 'cannot parse number 1.2.3'],
    ['{"a\\qb"}', 'unquote string "a\\qb" error invalid syntax'],
  ])('parse error %j', (text, message) => {
    const err = failure(() => parseJsonPathTemplate(text));
    expect(err.code).toBe('InvalidJsonPath');
    expect(err.message).toBe(message);
  });
});

describe('templates (kubectl -o jsonpath)', () => {
  it.each<[string, unknown, string]>([
    ['name={.metadata.name} ready={.status.readyReplicas}', sandbox, 'name=sb-1 ready=2'],
    ['{.status.conditions[*].type}', sandbox, 'Scheduled Ready'],
    [
      '{range .status.conditions[*]}{.type}={.status};{end}',
      sandbox,
      'Scheduled=True;Ready=False;',
    ],
    ['{range .items[*]}[{.n}]{end}', numbers, '[1][2][3][]'],
    ['{.metadata.labels}', sandbox, '{"app":"web"}'],
    ['{.status.conditions[0]}', sandbox, '{"reason":"Done","status":"True","type":"Scheduled"}'],
    ['{.spec.ratio} {.spec.big}', sandbox, '1.5 1.0000005e+06'],
    ['{.x}', { x: '<b>&' }, '<b>&'],
    ['{.x}', { x: { y: '<b>&' } }, '{"y":"\\u003cb\\u003e\\u0026"}'],
    ['{.x}', { x: null }, '<nil>'],
    ["{'quoted \\'text\\''}", {}, "quoted 'text'"],
    ['plain text', {}, 'plain text'],
  ])('%s', (text, data, want) => {
    expect(parseJsonPathTemplate(text).print(data)).toBe(want);
  });

  it('rejects an end without a range', () => {
    expect(failure(() => parseJsonPathTemplate('{end}').print({})).message).toBe(
      'not in range, nothing to end',
    );
  });
});

describe('printer-column cells (apiextensions tableconvertor)', () => {
  const now = new Date('2025-01-02T03:09:05Z');
  it.each<[string, string, unknown, unknown]>([
    ['string', ".status.conditions[?(@.type=='Ready')].status", sandbox, 'False'],
    ['string', ".status.conditions[?(@.type=='Ready')].reason", sandbox, 'PodPending'],
    ['string', '.status.sandbox.name', sandbox, 'sb-1-pod'],
    ['string', '.status.sandbox', sandbox, '{"name":"sb-1-pod"}'],
    ['string', '.status.readyReplicas', sandbox, '2'],
    ['string', '.status.conditions[*].type', sandbox, 'Scheduled'],
    ['string', '.x', { x: null }, '<no value>'],
    ['string', '.status.missing', sandbox, null],
    ['integer', '.status.readyReplicas', sandbox, 2],
    ['integer', '.spec.replicas', sandbox, 1],
    ['integer', '.spec.ratio', sandbox, 1],
    ['integer', '.status.readyReplicas', { status: {} }, null],
    ['integer', '.metadata.name', sandbox, null],
    ['number', '.spec.ratio', sandbox, 1.5],
    ['number', '.spec.replicas', sandbox, 1],
    ['boolean', '.x', { x: true }, true],
    ['boolean', '.x', { x: 'true' }, null],
    ['date', '.metadata.creationTimestamp', sandbox, '5m'],
    ['date', '.x', { x: 'yesterday' }, '<invalid>'],
    ['date', '.x', { x: '' }, '<unknown>'],
    ['date', '.x', { x: 5 }, null],
    ['unknown-type', '.x', { x: 5 }, null],
    ['string', '.metadata[0]', sandbox, null],
  ])('%s %s', (type, expr, obj, want) => {
    expect(printerColumnCell({ type }, parseJsonPath(expr), obj, now)).toEqual(want);
  });
});

describe('humanDuration (util/duration.HumanDuration)', () => {
  const s = 1000;
  const m = 60 * s;
  const h = 60 * m;
  const d = 24 * h;
  it.each([
    [42 * s, '42s'],
    [0, '0s'],
    [119 * s, '119s'],
    [120 * s, '2m'],
    [184 * s, '3m4s'],
    [599 * s, '9m59s'],
    [10 * m, '10m'],
    [95 * m, '95m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [5 * h + 12 * m, '5h12m'],
    [8 * h, '8h'],
    [27 * h, '27h'],
    [48 * h, '2d'],
    [3 * d + 4 * h, '3d4h'],
    [8 * d, '8d'],
    [400 * d, '400d'],
    [730 * d, '2y'],
    [730 * d + 45 * d, '2y45d'],
    [8 * 365 * d, '8y'],
    [-1500, '0s'],
    [-2 * s, '<invalid>'],
  ])('%d ms → %s', (ms, want) => {
    expect(humanDuration(ms)).toBe(want);
  });

  it('parses RFC 3339 like metav1.Time', () => {
    expect(parseRfc3339('2025-01-02T03:04:05Z')).toBe(Date.UTC(2025, 0, 2, 3, 4, 5));
    expect(parseRfc3339('2025-01-02T03:04:05.5+01:00')).toBe(Date.UTC(2025, 0, 2, 2, 4, 5, 500));
    expect(parseRfc3339('')).toBeNull();
    expect(parseRfc3339('null')).toBeNull();
    expect(parseRfc3339('2025-02-30T00:00:00Z')).toBeUndefined();
    expect(parseRfc3339('2025-01-02 03:04:05Z')).toBeUndefined();
    expect(parseRfc3339('2025-01-02T03:04:05')).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { PatchError, patchErrorToStatus } from './errors.ts';
import { applyJsonPatch } from './json-patch.ts';

// RFC 6902 Appendix A: every example (A.13, a duplicate "op" member, cannot survive JSON.parse).
const ok: { name: string; doc: unknown; ops: unknown[]; result: unknown }[] = [
  {
    name: 'A.1 add object member',
    doc: { foo: 'bar' },
    ops: [{ op: 'add', path: '/baz', value: 'qux' }],
    result: { baz: 'qux', foo: 'bar' },
  },
  {
    name: 'A.2 add array element',
    doc: { foo: ['bar', 'baz'] },
    ops: [{ op: 'add', path: '/foo/1', value: 'qux' }],
    result: { foo: ['bar', 'qux', 'baz'] },
  },
  {
    name: 'A.3 remove object member',
    doc: { baz: 'qux', foo: 'bar' },
    ops: [{ op: 'remove', path: '/baz' }],
    result: { foo: 'bar' },
  },
  {
    name: 'A.4 remove array element',
    doc: { foo: ['bar', 'qux', 'baz'] },
    ops: [{ op: 'remove', path: '/foo/1' }],
    result: { foo: ['bar', 'baz'] },
  },
  {
    name: 'A.5 replace value',
    doc: { baz: 'qux', foo: 'bar' },
    ops: [{ op: 'replace', path: '/baz', value: 'boo' }],
    result: { baz: 'boo', foo: 'bar' },
  },
  {
    name: 'A.6 move value',
    doc: { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    ops: [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    result: { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  },
  {
    name: 'A.7 move array element',
    doc: { foo: ['all', 'grass', 'cows', 'eat'] },
    ops: [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
    result: { foo: ['all', 'cows', 'eat', 'grass'] },
  },
  {
    name: 'A.8 test success',
    doc: { baz: 'qux', foo: ['a', 2, 'c'] },
    ops: [
      { op: 'test', path: '/baz', value: 'qux' },
      { op: 'test', path: '/foo/1', value: 2 },
    ],
    result: { baz: 'qux', foo: ['a', 2, 'c'] },
  },
  {
    name: 'A.10 add nested member object',
    doc: { foo: 'bar' },
    ops: [{ op: 'add', path: '/child', value: { grandchild: {} } }],
    result: { foo: 'bar', child: { grandchild: {} } },
  },
  {
    name: 'A.11 ignore unrecognized elements',
    doc: { foo: 'bar' },
    ops: [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }],
    result: { foo: 'bar', baz: 'qux' },
  },
  {
    name: 'A.14 ~ escape ordering',
    doc: { '/': 9, '~1': 10 },
    ops: [{ op: 'test', path: '/~01', value: 10 }],
    result: { '/': 9, '~1': 10 },
  },
  {
    name: 'A.16 add array value',
    doc: { foo: ['bar'] },
    ops: [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }],
    result: { foo: ['bar', ['abc', 'def']] },
  },
  {
    name: 'test of a missing path against null passes (evanphx/json-patch)',
    doc: { a: 1 },
    ops: [{ op: 'test', path: '/b', value: null }],
    result: { a: 1 },
  },
  {
    name: 'operations see the effect of earlier ones',
    doc: { a: 1 },
    ops: [
      { op: 'add', path: '/b', value: { c: 1 } },
      { op: 'test', path: '/b/c', value: 1 },
      { op: 'move', from: '/b/c', path: '/d' },
    ],
    result: { a: 1, b: {}, d: 1 },
  },
  {
    name: 'copy',
    doc: { metadata: { labels: { a: '1' } } },
    ops: [{ op: 'copy', from: '/metadata/labels/a', path: '/metadata/labels/b' }],
    result: { metadata: { labels: { a: '1', b: '1' } } },
  },
  {
    name: 'kubectl patch --type=json escaped label key',
    doc: { metadata: { labels: { 'app.kubernetes.io/name': 'x' } } },
    ops: [{ op: 'remove', path: '/metadata/labels/app.kubernetes.io~1name' }],
    result: { metadata: { labels: {} } },
  },
];

const failing: { name: string; doc: unknown; ops: unknown[] }[] = [
  {
    name: 'A.9 test error',
    doc: { baz: 'qux' },
    ops: [{ op: 'test', path: '/baz', value: 'bar' }],
  },
  {
    name: 'A.12 add to a nonexistent target',
    doc: { foo: 'bar' },
    ops: [{ op: 'add', path: '/baz/bat', value: 'qux' }],
  },
  {
    name: 'A.15 string is not a number',
    doc: { '/': 9, '~1': 10 },
    ops: [{ op: 'test', path: '/~01', value: '10' }],
  },
  { name: 'remove missing path', doc: { a: 1 }, ops: [{ op: 'remove', path: '/b' }] },
  { name: 'replace missing path', doc: { a: 1 }, ops: [{ op: 'replace', path: '/b', value: 2 }] },
  { name: 'move from missing', doc: { a: 1 }, ops: [{ op: 'move', from: '/x', path: '/y' }] },
  { name: 'unknown op', doc: { a: 1 }, ops: [{ op: 'frobnicate', path: '/a' }] },
  { name: 'index out of bounds', doc: { a: [1] }, ops: [{ op: 'add', path: '/a/5', value: 2 }] },
];

describe('applyJsonPatch (RFC 6902)', () => {
  it.each(ok)('$name', ({ doc, ops, result }) => {
    const before = structuredClone(doc);
    expect(applyJsonPatch(doc, ops)).toEqual(result);
    expect(doc).toEqual(before);
  });

  it.each(failing)('$name → 422 with the generic message (spec §5.2)', ({ doc, ops }) => {
    let caught: unknown;
    try {
      applyJsonPatch(doc, ops);
    } catch (err: unknown) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(PatchError);
    const err = caught as PatchError;
    expect(err.code).toBe('JsonPatchFailed');
    expect(patchErrorToStatus(err)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: {},
      code: 422,
    });
    expect(err.cause).toBeInstanceOf(Error);
  });

  it('rejects a body that is not an array with 400', () => {
    expect(() => applyJsonPatch({}, { op: 'add' })).toThrowError(
      expect.objectContaining({
        code: 'MalformedPatch',
        statusCode: 400,
        reason: 'BadRequest',
        message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
      }),
    );
  });

  it('rejects more than 10000 operations with 413', () => {
    const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/a', value: 1 }));
    let caught: unknown;
    try {
      applyJsonPatch({ a: 1 }, ops);
    } catch (err: unknown) {
      caught = err;
    }
    expect(patchErrorToStatus(caught as PatchError)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
      reason: 'RequestEntityTooLarge',
      code: 413,
    });
  });

  it('does not alias operation values into the result', () => {
    const ops = [{ op: 'add', path: '/a', value: { b: 1 } }];
    const out = applyJsonPatch({}, ops) as { a: { b: number } };
    out.a.b = 2;
    expect(ops[0]?.value.b).toBe(1);
  });
});

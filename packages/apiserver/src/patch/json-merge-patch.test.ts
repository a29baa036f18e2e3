import { describe, expect, it } from 'vitest';
import { applyMergePatch } from './json-merge-patch.ts';

// RFC 7386 Appendix A, every example, plus the merge patches kube clients send (semantics §5.1).
const cases: { name: string; target: unknown; patch: unknown; result: unknown }[] = [
  { name: 'A.1 replace member', target: { a: 'b' }, patch: { a: 'c' }, result: { a: 'c' } },
  { name: 'A.2 add member', target: { a: 'b' }, patch: { b: 'c' }, result: { a: 'b', b: 'c' } },
  { name: 'A.3 null deletes', target: { a: 'b' }, patch: { a: null }, result: {} },
  {
    name: 'A.4 null deletes one member',
    target: { a: 'b', b: 'c' },
    patch: { a: null },
    result: { b: 'c' },
  },
  {
    name: 'A.5 scalar replaces array',
    target: { a: ['b'] },
    patch: { a: 'c' },
    result: { a: 'c' },
  },
  {
    name: 'A.6 array replaces scalar',
    target: { a: 'c' },
    patch: { a: ['b'] },
    result: { a: ['b'] },
  },
  {
    name: 'A.7 nested merge with null',
    target: { a: { b: 'c' } },
    patch: { a: { b: 'd', c: null } },
    result: { a: { b: 'd' } },
  },
  {
    name: 'A.8 arrays replaced',
    target: { a: [{ b: 'c' }] },
    patch: { a: [1] },
    result: { a: [1] },
  },
  { name: 'A.9 array root', target: ['a', 'b'], patch: ['c', 'd'], result: ['c', 'd'] },
  { name: 'A.10 array patch', target: { a: 'b' }, patch: ['c'], result: ['c'] },
  { name: 'A.11 null patch', target: { a: 'foo' }, patch: null, result: null },
  { name: 'A.12 string patch', target: { a: 'foo' }, patch: 'bar', result: 'bar' },
  {
    name: 'A.13 nulls in target kept',
    target: { e: null },
    patch: { a: 1 },
    result: { e: null, a: 1 },
  },
  {
    name: 'A.14 non-object target',
    target: [1, 2],
    patch: { a: 'b', c: null },
    result: { a: 'b' },
  },
  {
    name: 'A.15 nulls pruned from new members',
    target: {},
    patch: { a: { bb: { ccc: null } } },
    result: { a: { bb: {} } },
  },
  {
    name: 'kubectl label',
    target: { metadata: { name: 'p', labels: { a: '1', b: '2' } } },
    patch: { metadata: { labels: { b: null, c: '3' } } },
    result: { metadata: { name: 'p', labels: { a: '1', c: '3' } } },
  },
  {
    name: 'kubectl scale',
    target: { spec: { replicas: 1, selector: { app: 'x' } } },
    patch: { spec: { replicas: 3 } },
    result: { spec: { replicas: 3, selector: { app: 'x' } } },
  },
  {
    name: 'finalizers replaced wholesale',
    target: { metadata: { finalizers: ['a', 'b'] } },
    patch: { metadata: { finalizers: ['b'] } },
    result: { metadata: { finalizers: ['b'] } },
  },
];

describe('applyMergePatch (RFC 7386)', () => {
  it.each(cases)('$name', ({ target, patch, result }) => {
    const before = structuredClone(target);
    expect(applyMergePatch(target, patch)).toEqual(result);
    expect(target).toEqual(before);
  });

  it('does not alias patch values into the result', () => {
    const patch = { a: { b: [1] } };
    const out = applyMergePatch({}, patch) as { a: { b: number[] } };
    out.a.b.push(2);
    expect(patch.a.b).toEqual([1]);
  });
});

import { describe, expect, it } from 'vitest';
import { compareKeys, prefixEnd } from './key-range.ts';

describe('prefixEnd', () => {
  it.each([
    ['/registry/pods/', '/registry/pods0'],
    ['a', 'b'],
    ['a/b', 'a/c'],
    ['é', 'ê'],
    ['\u{d7ff}', '\u{e000}'],
    ['a\u{10ffff}', 'b'],
    ['\u{10ffff}', undefined],
    ['', undefined],
  ])('%j → %j', (prefix, end) => {
    expect(prefixEnd(prefix)).toBe(end);
  });
});

describe('compareKeys', () => {
  it('orders by UTF-8 bytes, as SQLite and etcd do (semantics doc §12.4)', () => {
    const keys = [
      '/p/a/x',
      '/p/a-b/x',
      '/p/ab/x',
      '/p/a.b/x',
      '/p/\u{ff61}',
      '/p/\u{1f600}',
      '/p/B',
    ];
    expect([...keys].sort(compareKeys)).toEqual([
      '/p/B',
      '/p/a-b/x',
      '/p/a.b/x',
      '/p/a/x',
      '/p/ab/x',
      '/p/\u{ff61}',
      '/p/\u{1f600}', // UTF-16 order would put this surrogate pair before U+FF61
    ]);
  });
});

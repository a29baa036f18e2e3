// shlexSplit against Python's shlex.split (posix=True) on the cases python-runtime sees.
import { describe, expect, it } from 'vitest';
import { ShlexError, shlexSplit } from './shlex.ts';

describe('shlexSplit', () => {
  it.each([
    ['a b  c', ['a', 'b', 'c']],
    ['"a b" c', ['a b', 'c']],
    ["'x y'z", ['x yz']],
    ['a\\ b', ['a b']],
    ['"a\\"b"', ['a"b']],
    ['"a\\nb"', ['a\\nb']],
    ['""', ['']],
    ['echo $HOME', ['echo', '$HOME']],
    ['x"y z"w', ['xy zw']],
    ['', []],
  ])('%j', (input, expected) => expect(shlexSplit(input)).toEqual(expected));
  it('reports unbalanced input as Python does', () => {
    expect(() => shlexSplit('"open')).toThrow(new ShlexError('No closing quotation'));
    expect(() => shlexSplit('trailing\\')).toThrow(new ShlexError('No escaped character'));
  });
});

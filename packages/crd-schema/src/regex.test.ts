import { describe, expect, it } from 'vitest';
import { SchemaError } from './errors.ts';
import { compileRE2 } from './regex.ts';

describe('RE2 patterns as RegExp', () => {
  it.each([
    ['^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', 'my-name', true],
    ['^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', 'My-name', false],
    ['(?i)^abc$', 'ABC', true],
    ['\\Aab\\z', 'ab', true],
    ['\\Aab\\z', 'abc', false],
    ['^[[:alpha:]]+$', 'abc', true],
    ['^[[:digit:]_]+$', '1_2', true],
    ['^\\s$', '\u00a0', false],
    ['^[\\s-]+$', ' -', true],
    ['^a\\-b$', 'a-b', true],
    ['[0-9]', 'x1y', true],
  ])('%s on %j is %s', (pattern, input, want) => {
    expect(compileRE2(pattern, 'p').test(input)).toBe(want);
  });

  it('refuses what RE2 does not support', () => {
    expect(() => compileRE2('a(?=b)', 'p')).toThrow(SchemaError);
    expect(() => compileRE2('(a)\\1', 'p')).toThrow(SchemaError);
    expect(() => compileRE2('a(', 'p')).toThrow(/does not compile/);
  });
});

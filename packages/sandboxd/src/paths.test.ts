// The lexical half of path confinement (dataplane §4.5); the symlink half is in the REST tests.
import { describe, expect, it } from 'vitest';
import { isWithin, joinUnderRoot } from './paths.ts';

describe('joinUnderRoot / isWithin', () => {
  const root = '/workspace';
  it.each([
    ['', '/workspace'],
    ['.', '/workspace'],
    ['a/b', '/workspace/a/b'],
    ['/etc/passwd', '/workspace/etc/passwd'],
    ['/../x', '/workspace/x'],
    ['/workspace/a', '/workspace/a'],
    ['/workspace', '/workspace'],
    ['../etc', '/etc'],
    ['a/../../x', '/x'],
  ])('%j → %j', (p, expected) => expect(joinUnderRoot(root, p)).toBe(expected));
  it('refuses the prefix trick', () => {
    expect(isWithin(root, '/workspace-evil/x')).toBe(false);
    expect(isWithin(root, '/workspace/x')).toBe(true);
    expect(isWithin(root, '/workspace')).toBe(true);
    expect(isWithin(root, '/etc')).toBe(false);
  });
});

import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { entryComponents, resolveInRoot } from './safe-path.ts';

describe('resolveInRoot', () => {
  const root = mkdtempSync(join(tmpdir(), 'asb-safe-'));
  mkdirSync(join(root, 'usr/bin'), { recursive: true });
  symlinkSync('/etc', join(root, 'evil'));
  symlinkSync('../../../..', join(root, 'up'));
  symlinkSync('usr/bin', join(root, 'bin'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('resolves absolute symlinks among the parents against the root, not the host', () => {
    expect(resolveInRoot(root, ['evil', 'shadow'])).toBe(join(root, 'etc/shadow'));
  });
  it('never climbs above the root through a relative symlink', () => {
    expect(resolveInRoot(root, ['up', 'etc', 'passwd'])).toBe(join(root, 'etc/passwd'));
  });
  it('follows merged-usr style links and leaves the last component alone', () => {
    expect(resolveInRoot(root, ['bin', 'sh'])).toBe(join(root, 'usr/bin/sh'));
    expect(resolveInRoot(root, ['bin'])).toBe(join(root, 'bin'));
  });
  it('rejects .. in entry names', () => {
    expect(() => entryComponents('a/../../etc/passwd')).toThrow('".." component');
    expect(entryComponents('./a//b/')).toEqual(['a', 'b']);
  });
});

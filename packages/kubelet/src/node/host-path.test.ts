import type { Volume } from '@agent-sandbox/kube-types';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST_PATH_REFUSED, hostPathSource } from './host-path.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'asb-hostpath-'));
  await writeFile(join(dir, 'file'), 'x');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const vol = (path: string, type?: string): Volume => ({
  name: 'h',
  hostPath: { path, ...(type !== undefined ? { type } : {}) },
});

describe('hostPath volumes', () => {
  it('are refused unless allowed, saying what to do', async () => {
    await expect(hostPathSource(vol(dir), false)).rejects.toThrow(
      `volume "h": ${HOST_PATH_REFUSED}`,
    );
    expect(HOST_PATH_REFUSED).toContain('--allow-host-path');
    expect(HOST_PATH_REFUSED).toContain('pod-security.kubernetes.io/enforce=privileged');
  });

  it('allowed, bind the path after checking its type', async () => {
    expect(await hostPathSource(vol(dir), true)).toBe(dir);
    expect(await hostPathSource(vol(dir, 'Directory'), true)).toBe(dir);
    expect(await hostPathSource(vol(join(dir, 'file'), 'File'), true)).toBe(join(dir, 'file'));
    await expect(hostPathSource(vol(join(dir, 'file'), 'Directory'), true)).rejects.toThrow(
      `volume "h": hostPath.path ${join(dir, 'file')} is not a Directory`,
    );
    await expect(hostPathSource(vol(join(dir, 'none'), 'Directory'), true)).rejects.toThrow(
      'does not exist (hostPath.type Directory)',
    );
    await expect(hostPathSource(vol('rel/path'), true)).rejects.toThrow(
      'hostPath.path must be an absolute path; got "rel/path"',
    );
    await expect(hostPathSource(vol(dir, 'Dir'), true)).rejects.toThrow(
      'hostPath.type "Dir" is not one of',
    );
  });

  it('create what DirectoryOrCreate and FileOrCreate name', async () => {
    const d = join(dir, 'made', 'dir');
    const f = join(dir, 'made2', 'f');
    await hostPathSource(vol(d, 'DirectoryOrCreate'), true);
    await hostPathSource(vol(f, 'FileOrCreate'), true);
    expect((await stat(d)).isDirectory()).toBe(true);
    expect((await stat(f)).isFile()).toBe(true);
  });
});

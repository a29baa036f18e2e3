import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stageLaunchDir } from './launch-dir.ts';
import type { SandboxdLaunch } from './launch.ts';

const base = mkdtempSync(path.join(tmpdir(), 'asb-launch-dir-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function hostFile(name: string, content: string): string {
  const p = path.join(base, name);
  writeFileSync(p, content);
  return p;
}

function launchOf(files: Record<string, string>): SandboxdLaunch {
  return {
    argv: [],
    mountPoint: '/.sbx',
    mounts: Object.entries(files).map(([containerPath, hostPath]) => ({
      hostPath,
      containerPath,
      readOnly: true,
    })),
  };
}

describe('stageLaunchDir', () => {
  const node = hostFile('node', 'node binary');
  const libc = hostFile('libc.so.6', 'libc');
  const files = (bundle: string) => ({
    '/.sbx/node': node,
    '/.sbx/lib/libc.so.6': libc,
    '/.sbx/sandboxd.mjs': bundle,
  });

  it('gathers the files under one read-only mount, as hard links, and finds it again', () => {
    const parent = path.join(base, 'same-fs');
    const bundle = hostFile('a.mjs', 'bundle v1');
    const mount = stageLaunchDir(launchOf(files(bundle)), parent);
    expect(mount).toMatchObject({ containerPath: '/.sbx', readOnly: true });
    expect(path.dirname(mount.hostPath)).toBe(parent);
    expect(statSync(path.join(mount.hostPath, 'lib/libc.so.6')).ino).toBe(statSync(libc).ino);
    expect(readFileSync(path.join(mount.hostPath, 'sandboxd.mjs'), 'utf8')).toBe('bundle v1');
    // The next `up` writes the same bundle again (a new mtime): the same directory serves.
    writeFileSync(bundle, 'bundle v1');
    expect(stageLaunchDir(launchOf(files(bundle)), parent)).toEqual(mount);
  });

  it('names a new directory for new content and leaves the old one whole', () => {
    const parent = path.join(base, 'versions');
    const bundle = hostFile('b.mjs', 'bundle v1');
    const first = stageLaunchDir(launchOf(files(bundle)), parent);
    const second = stageLaunchDir(launchOf(files(hostFile('c.mjs', 'bundle v2'))), parent);
    expect(second.hostPath).not.toBe(first.hostPath);
    expect(readFileSync(path.join(first.hostPath, 'sandboxd.mjs'), 'utf8')).toBe('bundle v1');
    expect(readFileSync(path.join(second.hostPath, 'sandboxd.mjs'), 'utf8')).toBe('bundle v2');
  });

  it('copies where a hard link cannot be made (another filesystem)', () => {
    if (!existsSync('/dev/shm')) throw new Error('/dev/shm (tmpfs) is needed for this case');
    const parent = mkdtempSync('/dev/shm/asb-launch-dir-');
    try {
      const mount = stageLaunchDir(launchOf(files(hostFile('d.mjs', 'bundle'))), parent);
      const copied = path.join(mount.hostPath, 'node');
      expect(readFileSync(copied, 'utf8')).toBe('node binary');
      expect(statSync(copied).dev).not.toBe(statSync(node).dev);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('refuses a mount that is not below the mount point, naming it', () => {
    const launch = launchOf({ '/etc/hosts': node });
    expect(() => stageLaunchDir(launch, path.join(base, 'bad'))).toThrow(
      'launch mount /etc/hosts is not below /.sbx',
    );
  });
});

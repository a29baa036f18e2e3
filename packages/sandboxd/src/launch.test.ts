// sandboxdLaunch and parseLdd are pure: the mount list and argv the node agent uses.
import { describe, expect, it } from 'vitest';
import { parseLdd, sandboxdLaunch } from './launch.ts';

const LDD = `\tlinux-vdso.so.1 (0x00007ffd)
\tlibdl.so.2 => /lib/x86_64-linux-gnu/libdl.so.2 (0x00007f)
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)
\t/lib64/ld-linux-x86-64.so.2 (0x00007f)
`;

describe('parseLdd', () => {
  it('reads sonames, host paths and the loader; skips the vdso', () => {
    expect(parseLdd(LDD)).toEqual({
      loader: 'ld-linux-x86-64.so.2',
      libraries: {
        'libdl.so.2': '/lib/x86_64-linux-gnu/libdl.so.2',
        'libc.so.6': '/lib/x86_64-linux-gnu/libc.so.6',
        'ld-linux-x86-64.so.2': '/lib64/ld-linux-x86-64.so.2',
      },
    });
  });
});

describe('sandboxdLaunch', () => {
  const node = { path: '/usr/bin/node', ...parseLdd(LDD) };
  it('mounts node, its libraries and the bundle read-only and starts node via the loader', () => {
    const l = sandboxdLaunch({
      node,
      bundlePath: '/opt/sandboxd.mjs',
      flags: ['--root-dir', '/workspace'],
    });
    expect(l.argv).toEqual([
      '/.sbx/lib/ld-linux-x86-64.so.2',
      '--library-path',
      '/.sbx/lib',
      '/.sbx/node',
      '/.sbx/sandboxd.mjs',
      '--root-dir',
      '/workspace',
    ]);
    expect(l.mounts).toContainEqual({
      hostPath: '/usr/bin/node',
      containerPath: '/.sbx/node',
      readOnly: true,
    });
    expect(l.mounts).toContainEqual({
      hostPath: '/lib/x86_64-linux-gnu/libc.so.6',
      containerPath: '/.sbx/lib/libc.so.6',
      readOnly: true,
    });
    expect(l.mounts.every((m) => m.readOnly)).toBe(true);
  });
  it('adds script and stty as PTY helpers started through the same loader', () => {
    const script = { ...node, path: '/usr/bin/script' };
    const l = sandboxdLaunch({ node, script, bundlePath: '/b.mjs', mountPoint: '/.x' });
    expect(l.argv.slice(-2)).toEqual([
      '--pty-command',
      '/.x/lib/ld-linux-x86-64.so.2 --library-path /.x/lib /.x/bin/script',
    ]);
    expect(new Set(l.mounts.map((m) => m.containerPath)).size).toBe(l.mounts.length);
  });
  it('starts the boot script of a code-cached bundle, with its bundle and cache beside it', () => {
    const codeCache = {
      bootPath: '/d/cc/sandboxd-boot.cjs',
      bundlePath: '/d/cc/sandboxd.cjs',
      cachePath: '/d/cc/sandboxd.cjs.cache',
    };
    const l = sandboxdLaunch({ node, bundlePath: '/d/sandboxd.mjs', codeCache });
    expect(l.argv.slice(3)).toEqual(['/.sbx/node', '/.sbx/sandboxd-boot.cjs']);
    const byPath = Object.fromEntries(l.mounts.map((m) => [m.containerPath, m.hostPath]));
    expect(byPath['/.sbx/sandboxd.cjs']).toBe('/d/cc/sandboxd.cjs');
    expect(byPath['/.sbx/sandboxd.cjs.cache']).toBe('/d/cc/sandboxd.cjs.cache');
    expect(byPath['/.sbx/sandboxd.mjs']).toBeUndefined();
  });
});

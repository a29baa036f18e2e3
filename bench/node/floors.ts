// The spawn floors a Pod start is compared with, measured in the same run: a bare `runc run` of a
// bundle on the test image's root, `runsc do` (gVisor's quickest sandboxed command) and `bwrap` on
// the same root, and a plain local spawn for the exec round trip. Each prints `hi`; the time is
// from spawn to that output. `runc --version` and `runsc --version` show what starting the
// runtime's CLI alone costs, the part of every `runc exec` / `runsc exec` no agent can save.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface Floor {
  name: string;
  file: string;
  args: string[];
  /** What its stdout shows when the clock stops. @default 'hi' */
  output?: string;
}

/** ms from spawn until stdout shows `output` (the process may still be exiting). */
export function timeToOutput(
  file: string,
  args: readonly string[],
  output = 'hi',
): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes(output)) resolve(performance.now() - t0);
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (!out.includes(output))
        reject(new Error(`${file} ${args.join(' ')}: exit ${code ?? signal}: ${err}`));
    });
  });
}

/**
 * How long one spawn() holds this process's event loop: libuv forks on Linux, copying the page
 * tables of the whole process (the API server, controller and agent share it, as in `up`), and
 * returns once the child has exec'd. Every spawn on a Pod's start pays it (`mount`, `runc run`,
 * `runc exec`); a small spawn helper would not.
 */
export async function spawnHold(): Promise<number> {
  const t0 = performance.now();
  const child = spawn('/bin/true', [], { stdio: 'ignore' });
  const ms = performance.now() - t0;
  await new Promise((r) => child.once('close', r));
  return ms;
}

/** A runc bundle on `rootfs` that echoes `hi`, plus the floor commands. */
export async function floors(rootfs: string, dir: string): Promise<Floor[]> {
  const bundle = join(dir, 'floor-bundle');
  await mkdir(bundle, { recursive: true });
  const config = {
    ociVersion: '1.0.2',
    process: {
      terminal: false,
      user: { uid: 0, gid: 0 },
      args: ['echo', 'hi'],
      env: ['PATH=/bin'],
      cwd: '/',
    },
    root: { path: rootfs, readonly: true },
    mounts: [{ destination: '/proc', type: 'proc', source: 'proc' }],
    linux: {
      namespaces: ['pid', 'ipc', 'uts', 'mount', 'network'].map((type) => ({ type })),
    },
  };
  await writeFile(join(bundle, 'config.json'), JSON.stringify(config));
  return [
    {
      name: 'runc run',
      file: 'sh',
      // a fresh id each time; `run` without --keep deletes the container when it ends
      args: ['-c', `exec runc --root ${join(dir, 'floor-runc')} run --bundle ${bundle} f$$`],
    },
    {
      name: 'runsc do',
      file: 'runsc',
      args: [
        '--root',
        join(dir, 'floor-runsc'),
        '--platform=ptrace',
        '--network=none',
        'do',
        'echo',
        'hi',
      ],
    },
    {
      name: 'bwrap',
      file: 'bwrap',
      args: [
        '--unshare-all',
        '--die-with-parent',
        '--ro-bind',
        rootfs,
        '/',
        '--proc',
        '/proc',
        '--dev',
        '/dev',
        '/bin/echo',
        'hi',
      ],
    },
    { name: 'local spawn', file: '/bin/echo', args: ['hi'] },
    { name: 'runc --version', file: 'runc', args: ['--version'], output: 'version' },
    { name: 'runsc --version', file: 'runsc', args: ['--version'], output: 'version' },
  ];
}

// The packaging contract end to end: the esbuild bundle, started through the host's loader with
// node, its libraries, script and stty mounted read-only (sandboxdLaunch), inside a busybox
// rootfs under bubblewrap — an image with no Node and no libc — serves REST, legacy and gRPC,
// compiled from the code cache the host's node made (ADR 0045).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleSandboxd } from './bundle.ts';
import { buildCodeCachedBundle } from './code-cache.ts';
import { describeHostBinary, sandboxdLaunch } from './launch.ts';
import { collect, upstreamProcessClient } from './testing/grpc-clients.ts';
import { raw } from './testing/http.ts';

const BWRAP = '/usr/bin/bwrap';
const BUSYBOX = '/usr/bin/busybox';
const ready = existsSync(BWRAP) && existsSync(BUSYBOX);
if (!ready && process.env.CI)
  throw new Error('CI needs bubblewrap and busybox-static (.ci/run installs them)');

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });

let base: string;
let daemon: ChildProcess | undefined;
let serving: Record<string, unknown> = {};
const ports = { rest: 0, grpc: 0, legacy: 0 };

beforeAll(async () => {
  if (!ready) return;
  base = await mkdtemp(path.join(tmpdir(), 'sandboxd-launch-'));
  const rootfs = path.join(base, 'rootfs');
  for (const d of ['bin', '.sbx', 'workspace', 'proc', 'dev', 'tmp'])
    await mkdir(path.join(rootfs, d), { recursive: true });
  await copyFile(BUSYBOX, path.join(rootfs, 'bin/busybox'));
  for (const applet of ['sh', 'echo', 'ls', 'cat', 'stty', 'tty', 'sleep'])
    await symlink('busybox', path.join(rootfs, 'bin', applet));
  const bundle = path.join(base, 'sandboxd.mjs');
  await bundleSandboxd(bundle);
  Object.assign(ports, {
    rest: await freePort(),
    grpc: await freePort(),
    legacy: await freePort(),
  });
  const launch = sandboxdLaunch({
    node: await describeHostBinary(process.execPath),
    script: await describeHostBinary('/usr/bin/script'),
    stty: await describeHostBinary('/usr/bin/stty'),
    bundlePath: bundle,
    codeCache: await buildCodeCachedBundle(path.join(base, 'code-cache'), process.execPath),
    flags: [
      '--listen-host',
      '127.0.0.1',
      '--rest-port',
      String(ports.rest),
      '--grpc-port',
      String(ports.grpc),
      '--legacy-port',
      String(ports.legacy),
    ],
  });
  const binds = launch.mounts.flatMap((m) => ['--ro-bind', m.hostPath, m.containerPath]);
  daemon = spawn(
    BWRAP,
    [
      '--bind',
      rootfs,
      '/',
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      ...binds,
      '--unshare-pid',
      '--die-with-parent',
      '--clearenv',
      '--setenv',
      'PATH',
      '/bin',
      '--setenv',
      'SHELL',
      '/bin/sh',
      '--chdir',
      '/workspace',
      '--',
      ...launch.argv,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  daemon.stderr?.on('data', (b: Buffer) => (log += b.toString()));
  for (let i = 0; i < 100 && !log.includes('"serving"'); i++)
    await new Promise((r) => setTimeout(r, 100));
  const line = log.split('\n').find((l) => l.includes('"serving"'));
  if (!line) throw new Error(`daemon did not start in the busybox rootfs: ${log}`);
  serving = JSON.parse(line) as Record<string, unknown>;
}, 60_000);

afterAll(async () => {
  daemon?.kill('SIGTERM');
  if (base) await rm(base, { recursive: true, force: true });
});

describe.skipIf(!ready)('sandboxd in a busybox image with no Node and no libc', () => {
  it('serves REST and the legacy runtime, running the image’s own tools', async () => {
    const url = `http://127.0.0.1:${ports.rest}`;
    expect((await raw(url, '/v1/health')).json()).toMatchObject({ status: 'ok' });
    expect((await raw(url, '/v1/files/', { method: 'PUT' })).status).toBe(400);
    const r = await raw(`http://127.0.0.1:${ports.legacy}`, '/execute', {
      method: 'POST',
      body: JSON.stringify({ command: "sh -c 'echo from-image; ls /; ls /.sbx'" }),
    });
    // No /lib, /usr or node in the image: only busybox and what the launch contract mounted.
    expect(r.json()).toMatchObject({
      exit_code: 0,
      stdout:
        'from-image\nbin\ndev\nproc\ntmp\nworkspace\nbin\nlib\nnode\nsandboxd-boot.cjs\nsandboxd.cjs\nsandboxd.cjs.cache\n',
    });
  });
  it('compiled the bundle from the code cache, not from source', () => {
    expect(serving).toMatchObject({ codeCache: 'used' });
  });
  it('gives Start a PTY through the mounted script', async () => {
    const client = upstreamProcessClient(`127.0.0.1:${ports.grpc}`);
    const { events } = await collect<{ stdout?: Buffer; exit?: { exit_code: number } }>(
      client.Start({ config: { command: ['tty'] }, pty: { cols: 80, rows: 24 } }) as never,
    );
    client.close();
    expect(Buffer.concat(events.filter((e) => e.stdout).map((e) => e.stdout!)).toString()).toMatch(
      /^\/dev\/pts\/\d+/,
    );
    expect(events.at(-1)?.exit?.exit_code).toBe(0);
  });
});

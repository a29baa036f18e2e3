// commands and files against a real sandboxd on loopback, reached the way the SDK reaches any
// sandbox without a router: the Sandbox's Pod IP (the scripted kubelet reports 127.0.0.1) and
// sandboxd's ports.
// eslint-disable-next-line no-restricted-imports -- the test runs a real daemon
import type { SandboxdHandle } from '@agent-sandbox/sandboxd';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AbortedError,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  Sandbox,
  TimeoutError,
  UnsupportedError,
  type FileWatchEvent,
} from '../index.ts';
import { startTestSandboxd } from '../testing/sandboxd.ts';
import { openSdkWorld, type SdkWorld } from '../testing/world.ts';

describe('commands and files through sandboxd', () => {
  let world: SdkWorld;
  let daemon: SandboxdHandle;
  let base: string;
  let sandbox: Sandbox;
  beforeAll(async () => {
    world = await openSdkWorld();
    await world.createTemplate('tpl');
    await world.createPool('pool', 'tpl', 1);
    ({ daemon, base } = await startTestSandboxd('sdk-sandboxd-'));
    const grpcPort = Number(daemon.grpcAddress?.split(':').pop());
    const restPort = Number(new URL(daemon.restUrl ?? '').port);
    sandbox = await Sandbox.create({
      kubeconfig: world.kubeconfigPath,
      namespace: world.namespace,
      hostEnv: {},
      sandboxdPorts: { rest: restPort, grpc: grpcPort },
      warmPool: 'pool',
    });
  });
  afterAll(async () => {
    await sandbox?.kill();
    await sandbox?.close();
    await daemon?.close();
    await world?.close();
    if (base) await rm(base, { recursive: true, force: true });
  });

  describe('commands.run', () => {
    it('returns exit code and output; a non-zero exit is a result, not an error', async () => {
      const r = await sandbox.commands.run('echo out; echo err >&2; exit 3');
      expect(r).toEqual({ exitCode: 3, stdout: 'out\n', stderr: 'err\n' });
      const py = await sandbox.commands.run('printf "%s" "$GREETING" && pwd', {
        env: { GREETING: 'hi ' },
        cwd: '.',
      });
      expect(py.stdout).toBe(`hi ${daemon.root}\n`);
    });

    it('streams output to onStdout/onStderr as it comes', async () => {
      const chunks: string[] = [];
      const errs: string[] = [];
      const r = await sandbox.commands.run(
        'for i in 1 2 3; do echo $i; sleep 0.05; done; echo e >&2',
        {
          onStdout: (d) => chunks.push(d),
          onStderr: (d) => errs.push(d),
        },
      );
      expect(chunks.join('')).toBe('1\n2\n3\n');
      expect(chunks.length).toBeGreaterThan(1);
      expect(errs.join('')).toBe('e\n');
      expect(r.exitCode).toBe(0);
    });

    it('background: a handle with wait, sendStdin/closeStdin and kill', async () => {
      const cat = await sandbox.commands.run('cat', { background: true, stdin: true });
      expect(cat.pid).toBeGreaterThan(0);
      await cat.sendStdin('hello ');
      await cat.sendStdin(new TextEncoder().encode('world'));
      await cat.closeStdin();
      expect(await cat.wait()).toEqual({ exitCode: 0, stdout: 'hello world', stderr: '' });

      const sleeper = await sandbox.commands.run('sleep 30', { background: true });
      expect(await sleeper.kill()).toBe(true);
      expect((await sleeper.wait()).exitCode).not.toBe(0);
      expect(await sleeper.kill()).toBe(false);
    });

    it('stdin is closed unless asked for, so a command reading it does not hang', async () => {
      expect((await sandbox.commands.run('cat; echo done')).stdout).toBe('done\n');
    });

    it('timeoutMs kills the command with TimeoutError; an AbortSignal with AbortedError', async () => {
      const started = Date.now();
      const slow = sandbox.commands.run('sleep 30', { timeoutMs: 300 });
      await expect(slow).rejects.toBeInstanceOf(TimeoutError);
      await expect(slow).rejects.toThrow('command timed out after 300 ms');
      const abort = new AbortController();
      const aborted = sandbox.commands.run('sleep 30', { signal: abort.signal });
      setTimeout(() => abort.abort(), 200);
      await expect(aborted).rejects.toBeInstanceOf(AbortedError);
      expect(Date.now() - started).toBeLessThan(10_000);
      await expect(sandbox.commands.run('true', { timeoutMs: -5 })).rejects.toBeInstanceOf(
        InvalidArgumentError,
      );
    });

    it('a PTY command sees a terminal of the given size', async () => {
      const r = await sandbox.commands.run('stty size; test -t 0 && echo tty', {
        pty: { cols: 91, rows: 17 },
      });
      expect(r.stdout.replace(/\r/g, '')).toContain('17 91\ntty');
    });

    it('a cwd outside the root is PermissionDenied', async () => {
      await expect(sandbox.commands.run('pwd', { cwd: '../..' })).rejects.toBeInstanceOf(
        PermissionDeniedError,
      );
    });
  });

  describe('files', () => {
    it('write and read text, bytes and streams; list, exists, remove', async () => {
      await sandbox.files.write('notes/a.txt', 'héllo');
      expect(await readFile(join(daemon.root, 'notes/a.txt'), 'utf8')).toBe('héllo');
      expect(await sandbox.files.read('notes/a.txt')).toBe('héllo');
      await sandbox.files.write('notes/b.bin', new Uint8Array([0, 1, 255]), { mode: '0600' });
      expect(await sandbox.files.read('notes/b.bin', { format: 'bytes' })).toEqual(
        new Uint8Array([0, 1, 255]),
      );
      const big = 'x'.repeat(300_000);
      await sandbox.files.write(
        'notes/c.txt',
        new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode(big));
            c.close();
          },
        }),
      );
      const stream = await sandbox.files.read('notes/c.txt', { format: 'stream' });
      let length = 0;
      for await (const chunk of stream) length += chunk.length;
      expect(length).toBe(300_000);

      const entries = await sandbox.files.list('notes');
      expect(entries.map((e) => [e.name, e.path, e.type, e.size, e.mode])).toEqual([
        ['a.txt', 'notes/a.txt', 'file', 6, '0644'],
        ['b.bin', 'notes/b.bin', 'file', 3, '0600'],
        ['c.txt', 'notes/c.txt', 'file', 300_000, '0644'],
      ]);
      expect(entries[0]?.modifiedAt).toBeInstanceOf(Date);
      expect((await sandbox.files.list('.')).map((e) => e.name)).toContain('notes');
      expect(await sandbox.files.exists('notes/a.txt')).toBe(true);
      expect(await sandbox.files.exists('notes/none')).toBe(false);
      await sandbox.files.remove('notes/a.txt');
      expect(await sandbox.files.exists('notes/a.txt')).toBe(false);
      await expect(sandbox.files.remove('notes')).rejects.toThrow(/pass recursive=true/);
      await sandbox.files.remove('notes', { recursive: true });
      expect(await sandbox.files.exists('notes')).toBe(false);
    });

    it('files written by commands are read back, and the other way round', async () => {
      await writeFile(join(daemon.root, 'from-host.txt'), 'x');
      await sandbox.commands.run('echo made > made.txt');
      expect(await sandbox.files.read('made.txt')).toBe('made\n');
      await sandbox.files.write('script.sh', 'echo from script', { mode: '0755' });
      expect((await sandbox.commands.run('./script.sh')).stdout).toBe('from script\n');
    });

    it('missing paths, escapes and wrong kinds are typed errors', async () => {
      await expect(sandbox.files.read('nope.txt')).rejects.toBeInstanceOf(NotFoundError);
      await expect(sandbox.files.read('nope.txt')).rejects.toThrow(
        'read nope.txt: path does not exist within the sandbox',
      );
      await expect(sandbox.files.read('../../etc/passwd')).rejects.toBeInstanceOf(
        PermissionDeniedError,
      );
      await sandbox.files.write('d/f', 'x');
      await expect(sandbox.files.read('d')).rejects.toThrow(/is a directory; use files.list/);
      await expect(sandbox.files.list('d/f')).rejects.toThrow(/is a file/);
      await expect(sandbox.files.write('d/g', 'x', { mode: '777' })).rejects.toThrow(
        'mode "777" must match',
      );
      await expect(sandbox.files.read('')).rejects.toBeInstanceOf(InvalidArgumentError);
    });

    it('watch reports changes until stopped', async () => {
      await sandbox.files.write('w/.keep', '');
      const events: FileWatchEvent[] = [];
      const watch = await sandbox.files.watch('w', (e) => events.push(e), { recursive: true });
      // Write until an event names one of the files (the daemon's watcher starts asynchronously;
      // the atomic write's temp file shows up too).
      const named = (): FileWatchEvent | undefined =>
        events.find((e) => /^w\/new-\d+\.txt$/.test(e.path));
      const deadline = Date.now() + 10_000;
      for (let i = 0; !named() && Date.now() < deadline; i++) {
        await sandbox.files.write(`w/new-${i}.txt`, 'x');
        await new Promise((r) => setTimeout(r, 300));
      }
      expect(named()?.type).toMatch(/create|write|rename/);
      await watch.stop();
      await watch.done;
    });
  });

  it('through a router the gRPC calls say what to do instead', async () => {
    const routed = await Sandbox.connect(sandbox.id, {
      kubeconfig: world.kubeconfigPath,
      namespace: world.namespace,
      hostEnv: {},
      routerUrl: 'http://127.0.0.1:9',
    });
    try {
      await expect(routed.commands.run('true')).rejects.toBeInstanceOf(UnsupportedError);
    } finally {
      await routed.close();
    }
  });
});

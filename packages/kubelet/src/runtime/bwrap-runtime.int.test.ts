// The bubblewrap runtime on its own, as a restarted agent meets it: a container left running by
// one BwrapRuntime is listed from the state directory by the next and killed by remove(), whose
// start-time check keeps it from signalling a pid that now belongs to someone else.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnStreamProcess } from '../streaming/host-process.ts';
import { BUSYBOX } from '../testing/test-image.ts';
import { BwrapRuntime } from './bwrap-runtime.ts';

let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'asb-bwrap-rt-'));
  bundle = join(dir, 'bundle');
  const rootfs = join(bundle, 'rootfs');
  mkdirSync(join(rootfs, 'bin'), { recursive: true });
  copyFileSync(BUSYBOX, join(rootfs, 'bin', 'busybox'));
  for (const a of execFileSync(BUSYBOX, ['--list'], { encoding: 'utf8' }).split('\n'))
    if (a && a !== 'busybox') symlinkSync('busybox', join(rootfs, 'bin', a));
  const config = {
    hostname: 'rt',
    process: { args: ['sleep', '600'], env: ['PATH=/bin'], cwd: '/', user: { uid: 0, gid: 0 } },
    root: { path: rootfs },
    mounts: [{ destination: '/proc', type: 'proc', source: 'proc' }],
  };
  await writeFile(join(bundle, 'config.json'), JSON.stringify(config));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const until = async (f: () => Promise<boolean>): Promise<void> => {
  const end = Date.now() + 10_000;
  while (!(await f())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('BwrapRuntime across an agent restart', () => {
  it('lists what an earlier runtime left and kills it on remove', async () => {
    const stateDir = join(dir, 'state');
    const first = new BwrapRuntime({ stateDir });
    const p = await first.start({ id: 'left-behind', bundleDir: bundle, stdin: false });
    await until(() => first.isRunning('left-behind'));
    await until(async () => (await readdir(stateDir)).includes('left-behind.json'));
    const next = new BwrapRuntime({ stateDir });
    expect(await next.list()).toEqual(['left-behind']);
    expect(await next.isRunning('left-behind')).toBe(false); // not its own: no exec into it
    await next.remove('left-behind');
    expect((await p.exited).exitCode).toBe(137);
    expect(await next.list()).toEqual([]);
  });

  it('never signals a pid whose start time is not the container’s', async () => {
    const stateDir = join(dir, 'state2');
    mkdirSync(stateDir);
    const bystander = spawn('sleep', ['600']);
    await new Promise((r) => bystander.once('spawn', r));
    // A state file naming a live process of someone else (same pid, another start time).
    await writeFile(
      join(stateDir, 'stale.json'),
      JSON.stringify({ pid: bystander.pid, startTime: '1' }),
    );
    const rt = new BwrapRuntime({ stateDir });
    await rt.remove('stale');
    // A SIGKILL would end it at once; half a second of nothing says none was sent.
    const ended = await Promise.race([
      new Promise((r) => bystander.once('exit', () => r(true))),
      new Promise((r) => setTimeout(() => r(false), 500)),
    ]);
    expect(ended).toBe(false);
    expect(bystander.exitCode).toBeNull();
    expect(bystander.signalCode).toBeNull();
    expect(await rt.list()).toEqual([]);
    bystander.kill('SIGKILL');
  });
});

describe('BwrapRuntime exec exits', () => {
  it('passes up a command killed inside as 137 with no signal; a killed exec process names it', async () => {
    const rt = new BwrapRuntime({ stateDir: join(dir, 'state3') });
    const c = await rt.start({ id: 'exits', bundleDir: bundle, stdin: false });
    await until(() => rt.isRunning('exits'));
    const streams = { stdin: false, stdout: true, stderr: false, tty: false } as const;
    const exec = (script: string) =>
      spawnStreamProcess(rt.execCommand('exits', ['sh', '-c', script], { tty: false }), streams);
    // bwrap waits for the command and exits 128 + the signal that ended it.
    expect(await (await exec('kill -KILL $$')).exited).toEqual({ exitCode: 137 });
    const held = await exec('echo up; exec sleep 600');
    await new Promise((r) => held.stdout?.once('data', r)); // bwrap has exec'd the command
    const host = execFileSync('pgrep', ['-f', '-n', '^bwrap .*exec sleep 600'], {
      encoding: 'utf8',
    }).trim();
    process.kill(Number(host), 'SIGKILL');
    expect(await held.exited).toEqual({ exitCode: 137, signal: 'SIGKILL' });
    await rt.remove('exits');
    expect((await c.exited).exitCode).toBe(137);
  });
});

describe('BwrapRuntime exec while bwrap --pidns is slow to shed its intermediate', () => {
  it('runs the command: no parent-death signal fires when the intermediate process exits late', async () => {
    const rt = new BwrapRuntime({ stateDir: join(dir, 'state4') });
    const c = await rt.start({ id: 'late', bundleDir: bundle, stdin: false });
    await until(() => rt.isRunning('late'));
    const cmd = rt.execCommand('late', ['sh', '-c', 'sleep 1; echo hi'], { tty: false });
    // strace holds every exit_group for 0.5 s: the intermediate bwrap forks for --pidns exits
    // late, as a loaded machine can make it, after the command's setup is done.
    const traced = {
      file: 'strace',
      args: ['-f', '-qq', '-o', '/dev/null', '-e', 'trace=exit_group'],
      env: cmd.env,
    };
    traced.args.push('-e', 'inject=exit_group:delay_enter=500000', cmd.file, ...cmd.args);
    const p = await spawnStreamProcess(traced, {
      stdin: false,
      stdout: true,
      stderr: false,
      tty: false,
    });
    let out = '';
    p.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    expect(await p.exited).toEqual({ exitCode: 0 });
    expect(out).toBe('hi\n');
    await rt.remove('late');
    await c.exited;
  });
});

// The daemon's node-exec channel against a real unix-socket listener playing the node agent:
// the daemon dials in, keeps a connection idle, and runs one exec per connection.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxd, type SandboxdHandle } from '../daemon.ts';
import { parseFlags } from '../flags.ts';
import {
  encodeFrame,
  FrameDecoder,
  FrameType,
  type Frame,
} from '@agent-sandbox/protocol/node-exec';

let dir: string;
let server: Server;
let daemon: SandboxdHandle;
const waiting: ((s: Socket) => void)[] = [];
const idle: Socket[] = [];

/** The next idle connection the daemon dialled in. */
function take(): Promise<Socket> {
  const s = idle.shift();
  return s ? Promise.resolve(s) : new Promise((resolve) => waiting.push(resolve));
}

interface Outcome {
  out: string;
  err: string;
  frames: Frame[];
  last: Record<string, unknown>;
}

async function run(
  frames: Buffer[],
  afterStart?: (s: Socket) => void,
  onOutput?: (s: Socket, out: string) => void,
): Promise<Outcome> {
  const s = await take();
  const decoder = new FrameDecoder();
  const got: Frame[] = [];
  return new Promise((resolve) => {
    s.on('data', (chunk: Buffer) => {
      for (const f of decoder.push(chunk)) {
        got.push(f);
        if (f.type === FrameType.started) afterStart?.(s);
        if (f.type === FrameType.stdout && onOutput)
          onOutput(
            s,
            Buffer.concat(got.filter((g) => g.type === f.type).map((g) => g.payload)).toString(),
          );
      }
    });
    s.once('close', () => {
      const text = (t: number) =>
        Buffer.concat(got.filter((f) => f.type === t).map((f) => f.payload)).toString();
      const last = got.at(-1);
      resolve({
        out: text(FrameType.stdout),
        err: text(FrameType.stderr),
        frames: got,
        last: last ? (JSON.parse(last.payload.toString()) as Record<string, unknown>) : {},
      });
    });
    for (const f of frames) s.write(f);
  });
}

const start = (spec: unknown) => encodeFrame(FrameType.start, JSON.stringify(spec));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'node-exec-'));
  server = createServer((s) => {
    const w = waiting.shift();
    if (w) w(s);
    else idle.push(s);
  });
  await new Promise<void>((r) => server.listen(join(dir, 'exec.sock'), () => r()));
  // Through the daemon's own options, as `--node-exec-socket` starts it.
  daemon = await startSandboxd({
    rootDir: join(dir, 'root'),
    listenHost: '127.0.0.1',
    restPort: -1,
    grpcPort: -1,
    legacyPort: -1,
    nodeExecSocket: join(dir, 'exec.sock'),
    ptyCommand: ['script'],
    sttyCommand: ['stty'],
  });
});

afterAll(async () => {
  await daemon.close();
  for (const s of idle) s.destroy();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('node-exec', () => {
  it('takes its socket from --node-exec-socket, an absolute path', async () => {
    expect(parseFlags(['--node-exec-socket', '/run/agent-sandbox/exec.sock'])).toEqual({
      nodeExecSocket: '/run/agent-sandbox/exec.sock',
    });
    await expect(startSandboxd({ nodeExecSocket: 'exec.sock' })).rejects.toThrow(
      'node exec socket exec.sock must be an absolute path (--node-exec-socket)',
    );
  });

  it('runs the spec it is given: argv, env, cwd, stdin, both streams and the exit code', async () => {
    const r = await run([
      start({
        argv: ['sh', '-c', 'read x; echo "got $x in $PWD as $WHO"; echo e >&2; exit 3'],
        env: { WHO: 'agent', PATH: process.env.PATH ?? '/usr/bin:/bin' },
        cwd: dir,
      }),
      encodeFrame(FrameType.stdin, 'line\n'),
      encodeFrame(FrameType.stdinClose),
    ]);
    expect(r.frames[0]!.type).toBe(FrameType.started);
    expect([r.out, r.err, r.last]).toEqual([
      `got line in ${dir} as agent\n`,
      'e\n',
      { exitCode: 3 },
    ]);
  });

  it('signals the process group and reports the signal', async () => {
    const r = await run([start({ argv: ['sleep', '30'], env: {}, cwd: '/' })], (s) =>
      s.write(encodeFrame(FrameType.signal, 'SIGTERM')),
    );
    expect(r.last).toEqual({ signal: 'SIGTERM' });
  });

  it('runs a TTY session on a pty of the size asked, and follows resizes', async () => {
    const path = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    let sent = false;
    // The size is set before the command runs; a resize reaches the pty (stty size after it).
    const r = await run(
      [
        start({
          argv: ['sh', '-c', 'tty; stty size; echo e >&2; read x; stty size; exit 5'],
          env: path,
          cwd: '/',
          tty: true,
          size: { cols: 91, rows: 31 },
        }),
      ],
      undefined,
      (s, out) => {
        // Once the first size is out: resize, then the next line reads the size again (a stty
        // of its own in the daemon applies the resize; until then, the line is not sent).
        if (sent || !out.includes('e\r\n')) return;
        sent = true;
        s.write(encodeFrame(FrameType.resize, JSON.stringify({ cols: 120, rows: 40 })));
        setTimeout(() => s.write(encodeFrame(FrameType.stdin, 'go\n')), 1000);
      },
    );
    expect(r.last).toEqual({ exitCode: 5 });
    // One terminal: stderr comes through it, on stdout; no stderr frames.
    expect(r.err).toBe('');
    const lines = r.out.split(/\r?\n/);
    expect(lines[0]).toMatch(/^\/dev\/pts\/\d+$/);
    expect(lines.slice(1, 3)).toEqual(['31 91', 'e']);
    expect(lines).toContain('40 120');
    // The container's env reaches the command: SHELL, named for `script` only, is unset again.
    const env = await run([
      start({ argv: ['sh', '-c', 'echo "[$SHELL]"'], env: path, cwd: '/', tty: true }),
    ]);
    expect(env.out.trim()).toBe('[]');
    const bad = await run([start({ argv: ['true'], env: {}, cwd: '/', tty: 'yes' })]);
    expect(String(bad.last['message'])).toMatch(/tty must be a boolean/);
  });

  it('keeps one connection idle: a taken one is replaced at once', async () => {
    await expect.poll(() => idle.length, { timeout: 10_000 }).toBe(1);
    const r = await run([start({ argv: ['true'], env: {}, cwd: '/' })]);
    expect(r.last).toEqual({ exitCode: 0 });
    await expect.poll(() => idle.length, { timeout: 10_000 }).toBe(1);
  });

  it('answers bad input with an error frame naming the problem, and closes', async () => {
    const cases: [Buffer[], RegExp][] = [
      [[start({ env: {}, cwd: '/' })], /argv must be a non-empty list/],
      [[start({ argv: ['true'], cwd: 'relative' })], /cwd must be an absolute path/],
      [[start({ argv: ['true'], cwd: '/', uid: -1 })], /uid must be a non-negative integer/],
      [[encodeFrame(FrameType.stdin, 'x')], /first frame must be start/],
      [[Buffer.from([0xff, 0xff, 0xff, 0xff, 1])], /over the 1048576-byte limit/],
      [[start({ argv: ['no-such-binary-xyz'], env: {}, cwd: '/' })], /start no-such-binary-xyz/],
    ];
    for (const [frames, message] of cases) {
      const r = await run(frames);
      expect(r.frames.at(-1)!.type).toBe(FrameType.error);
      expect(String(r.last['message'])).toMatch(message);
    }
    const bad = await run([start({ argv: ['sleep', '30'], env: {}, cwd: '/' })], (s) =>
      s.write(encodeFrame(FrameType.signal, 'SIGNOPE')),
    );
    expect(String(bad.last['message'])).toMatch(/unknown signal SIGNOPE/);
    // Breaking the protocol ends the exec: the process is not left running.
    const { pid } = JSON.parse(bad.frames[0]!.payload.toString()) as { pid: number };
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await expect.poll(alive, { timeout: 10_000 }).toBe(false);
  });
});

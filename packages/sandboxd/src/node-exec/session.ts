// One exec on one node-exec connection (ADR 0037): the first frame says what to run, then stdin
// and signals (and a TTY session's resizes) come in and output goes out until the exit frame. The
// daemon forks it, so it runs with the daemon's namespaces, cgroup, seccomp filter and
// capabilities — the container's. A TTY session runs on a pty (tty.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import { errorText } from '../errors.ts';
import { signalGroup } from '../exec.ts';
import type { ProcessLimiter } from '../process-limiter.ts';
import {
  encodeFrame,
  FrameDecoder,
  FrameError,
  FrameType,
  MAX_FRAME_BYTES,
  parseResize,
  parseStart,
  type Frame,
} from '@agent-sandbox/protocol/node-exec';
import { resizePty } from '../process/pty.ts';
import { ttyLaunch, ttyLeader, ttyUnavailable, type TtyCommands } from './tty.ts';

const SIGNALS = constants.signals as Record<string, number>;
/** How often (every 20 ms) a resize looks for the session leader before it is dropped. */
const RESIZE_TRIES = 100;

function send(socket: Socket, type: FrameType, payload?: Buffer | string): boolean {
  return socket.destroyed ? false : socket.write(encodeFrame(type, payload));
}

function relay(socket: Socket, source: Readable, type: FrameType): void {
  source.on('data', (chunk: Buffer) => {
    let ok = true;
    for (let at = 0; at < chunk.length; at += MAX_FRAME_BYTES)
      ok = send(socket, type, chunk.subarray(at, at + MAX_FRAME_BYTES)) && ok;
    if (!ok) {
      source.pause();
      socket.once('drain', () => source.resume());
    }
  });
}

/** Signals a TTY session: the leader's group on the pty, then `script`'s own group. */
async function signalSession(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const leader = child.pid === undefined ? undefined : await ttyLeader(child.pid);
  if (leader !== undefined) {
    try {
      process.kill(-leader, signal);
    } catch {
      // the session already ended
    }
  }
  signalGroup(child, signal);
}

/** Serves the exec whose frames start with `first` (bytes already read). Never throws. */
export function serveNodeExec(
  socket: Socket,
  first: Buffer,
  limiter: ProcessLimiter,
  tty: TtyCommands = { ptyCommand: [], sttyCommand: ['stty'] },
): void {
  const decoder = new FrameDecoder();
  let child: ChildProcess | undefined;
  let isTty = false;
  let over = false;
  socket.on('error', () => undefined); // the agent's side may reset; 'close' follows
  /** The last frame: nothing is sent after it. */
  const finish = (type: FrameType, value: unknown) => {
    if (over) return;
    over = true;
    send(socket, type, JSON.stringify(value));
    socket.end();
  };
  // A peer that breaks the protocol ends the exec, process included.
  const fail = (message: string) => {
    if (child && child.exitCode === null && child.signalCode === null)
      signalGroup(child, 'SIGKILL');
    finish(FrameType.error, { message });
  };
  const onFrame = (f: Frame) => {
    if (over) return;
    if (!child) return start(f);
    if (f.type === FrameType.stdin) child.stdin?.write(f.payload);
    else if (f.type === FrameType.stdinClose) child.stdin?.end();
    else if (f.type === FrameType.signal) {
      const name = f.payload.toString('utf8');
      if (SIGNALS[name] === undefined) return fail(`signal: unknown signal ${name.slice(0, 32)}`);
      if (isTty) void signalSession(child, name as NodeJS.Signals);
      else signalGroup(child, name as NodeJS.Signals);
    } else if (f.type === FrameType.resize) {
      const size = parseResize(f.payload);
      if (isTty) void resize(child, size.cols, size.rows);
    } else fail(`unexpected frame type ${f.type}`);
  };
  // A resize can come before `script` has forked the session (kubectl sends one at once): it
  // waits for the leader; one that comes after the session ended is dropped.
  const resize = async (c: ChildProcess, cols: number, rows: number) => {
    for (let i = 0; i < RESIZE_TRIES && !over && c.pid !== undefined; i++) {
      const leader = await ttyLeader(c.pid);
      if (leader !== undefined)
        return resizePty(tty.sttyCommand, leader, cols, rows).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const start = (f: Frame) => {
    if (f.type !== FrameType.start) return fail(`the first frame must be start, not ${f.type}`);
    const spec = parseStart(f.payload);
    isTty = spec.tty === true;
    const unavailable = isTty ? ttyUnavailable(tty, spec) : undefined;
    if (unavailable) return fail(`tty: ${unavailable}`);
    const slot = limiter.acquire();
    if (!slot) return fail(limiter.refusal());
    const argv0 = spec.argv[0] as string;
    const launch = isTty ? ttyLaunch(tty, spec) : { argv: spec.argv, env: spec.env };
    const c = spawn(launch.argv[0] as string, launch.argv.slice(1), {
      cwd: spec.cwd,
      env: launch.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(spec.uid === undefined ? {} : { uid: spec.uid }),
      ...(spec.gid === undefined ? {} : { gid: spec.gid }),
    });
    child = c;
    c.stdin?.on('error', () => undefined); // the process may exit without reading its stdin
    c.once('spawn', () => send(socket, FrameType.started, JSON.stringify({ pid: c.pid })));
    c.once('error', (err) => {
      slot.release();
      finish(FrameType.error, { message: `start ${argv0}: ${errorText(err)}` });
    });
    relay(socket, c.stdout!, FrameType.stdout);
    // On a pty the command's stderr is the terminal; `script`'s own goes out as the terminal's.
    relay(socket, c.stderr!, isTty ? FrameType.stdout : FrameType.stderr);
    c.once('close', (code, signal) => {
      slot.release();
      finish(FrameType.exit, signal ? { signal } : { exitCode: code ?? -1 });
    });
  };
  const onData = (chunk: Buffer) => {
    try {
      for (const f of decoder.push(chunk)) onFrame(f);
    } catch (err: unknown) {
      socket.off('data', onData);
      fail(err instanceof FrameError ? err.message : `internal: ${errorText(err)}`);
    }
  };
  socket.on('data', onData);
  // The agent went away (its client left): like a closed exec stream, stdin ends; the process
  // is not killed, as `runc exec`'s would not be. A TTY session gets a hang-up, as when its
  // terminal closes.
  socket.once('close', () => {
    child?.stdin?.end();
    if (child && isTty && !over) void signalSession(child, 'SIGHUP');
  });
  onData(first);
}

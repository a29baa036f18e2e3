// One exec through the in-sandbox daemon (ADR 0037) as the streaming server's StreamProcess:
// send the start frame, wait for the daemon's `started` (or give up: the caller falls back to
// the runtime's exec), then relay stdin (and a TTY session's resizes) in and stdout/stderr/exit
// out. Every frame from the peer
// is hostile input: size-capped by the decoder, JSON validated, and any violation ends the exec
// with an error rather than a guess.
import {
  encodeFrame,
  FrameDecoder,
  FrameType,
  MAX_FRAME_BYTES,
  type Frame,
  type NodeExecStart,
} from '@agent-sandbox/protocol/node-exec';
import type { Socket } from 'node:net';
import { constants } from 'node:os';
import { PassThrough, Writable } from 'node:stream';
import type { ProcessExit, StreamProcess, StreamSelection } from '../streaming/backend.ts';

/** How long the daemon has to say `started` before the exec takes the runtime's path. */
export const START_ACK_MS = 1000;

const SIGNALS = constants.signals as Record<string, number>;

class Violation extends Error {}

function json(f: Frame): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(f.payload.toString('utf8'));
  } catch {
    throw new Violation(`frame ${f.type}: payload is not JSON`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new Violation(`frame ${f.type}: payload is not a JSON object`);
  return v as Record<string, unknown>;
}

/** Pure: the exit frame's JSON as a ProcessExit (a signal is 128 + its number, as runc reports). */
export function parseExit(o: Record<string, unknown>): ProcessExit {
  const code = o['exitCode'];
  if (typeof code === 'number' && Number.isInteger(code) && code >= 0 && code <= 255)
    return { exitCode: code };
  const signal = o['signal'];
  if (typeof signal === 'string' && SIGNALS[signal] !== undefined)
    return { exitCode: 128 + (SIGNALS[signal] as number) };
  throw new Violation('exit: exitCode must be an integer in 0-255, or signal a known signal name');
}

function parseError(o: Record<string, unknown>): string {
  const m = o['message'];
  return typeof m === 'string' ? m.slice(0, 1024) : 'error frame without a message';
}

function stdinWriter(socket: Socket): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (let at = 0; at < chunk.length && !socket.destroyed; at += MAX_FRAME_BYTES)
        socket.write(encodeFrame(FrameType.stdin, chunk.subarray(at, at + MAX_FRAME_BYTES)));
      cb();
    },
    final(cb) {
      if (!socket.destroyed) socket.write(encodeFrame(FrameType.stdinClose));
      cb();
    },
  });
}

/** Pure: the start frame for `streams`: a TTY session carries `tty` and the client's size. */
export function withTty(start: NodeExecStart, streams: StreamSelection): NodeExecStart {
  if (!streams.tty) return start;
  const size = streams.terminalSize;
  return {
    ...start,
    tty: true,
    ...(size && size.width > 0 && size.height > 0
      ? { size: { cols: size.width, rows: size.height } }
      : {}),
  };
}

/**
 * Runs `start` on `socket` (an idle daemon connection). Resolves with the process once the
 * daemon acknowledged it, or undefined when it did not within `ackMs`, answered an error, or
 * broke the protocol first (the socket is then destroyed and nothing ran that the caller owns).
 */
export function daemonExec(
  socket: Socket,
  start: NodeExecStart,
  streams: StreamSelection,
  ackMs = START_ACK_MS,
): Promise<StreamProcess | undefined> {
  const decoder = new FrameDecoder();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let settleExit: (e: ProcessExit) => void = () => undefined;
  const exited = new Promise<ProcessExit>((r) => (settleExit = r));
  let over = false;
  const end = (e: ProcessExit) => {
    if (over) return;
    over = true;
    stdout.end();
    stderr.end();
    settleExit(e);
    socket.destroy();
  };
  return new Promise((resolve) => {
    let started = false;
    const timer = setTimeout(() => refuse(), ackMs);
    const refuse = () => {
      clearTimeout(timer);
      over = true;
      socket.destroy();
      resolve(undefined);
    };
    const onFrame = (f: Frame) => {
      if (!started) {
        if (f.type !== FrameType.started) return refuse();
        json(f);
        started = true;
        clearTimeout(timer);
        return resolve(process);
      }
      if (f.type === FrameType.stdout) {
        if (streams.stdout) stdout.write(f.payload);
      } else if (f.type === FrameType.stderr) {
        if (streams.stderr) stderr.write(f.payload);
      } else if (f.type === FrameType.exit) end(parseExit(json(f)));
      else if (f.type === FrameType.error) end({ error: parseError(json(f)) });
      else throw new Violation(`unexpected frame type ${f.type}`);
    };
    socket.on('data', (chunk: Buffer) => {
      if (over) return;
      try {
        for (const f of decoder.push(chunk)) if (!over) onFrame(f);
      } catch (err) {
        if (!started) return refuse();
        end({ error: `in-sandbox daemon broke the exec protocol: ${(err as Error).message}` });
      }
    });
    socket.on('error', () => undefined); // 'close' follows
    socket.once('close', () => {
      if (!started) return refuse();
      end({ error: 'in-sandbox daemon closed the exec before its exit status' });
    });
    const process: StreamProcess = {
      stdin: streams.stdin ? stdinWriter(socket) : null,
      stdout: streams.stdout ? stdout : null,
      stderr: streams.stderr && !streams.tty ? stderr : null,
      exited,
      resize: (size) => {
        if (!streams.tty || socket.destroyed) return;
        socket.write(
          encodeFrame(FrameType.resize, JSON.stringify({ cols: size.width, rows: size.height })),
        );
      },
      hangUp: () => {
        // As a closed `runc exec` stream: stdin ends, the process is not killed; a TTY session
        // gets SIGHUP from the daemon when the connection closes, as when its terminal closes.
        if (!socket.destroyed) socket.end(encodeFrame(FrameType.stdinClose));
      },
    };
    socket.resume();
    socket.write(encodeFrame(FrameType.start, JSON.stringify(withTty(start, streams))));
    // Without stdin the process must see EOF at once, as `runc exec` without -i gives it.
    if (!streams.stdin) socket.write(encodeFrame(FrameType.stdinClose));
  });
}

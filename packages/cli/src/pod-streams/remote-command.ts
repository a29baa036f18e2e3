// The client side of exec over WebSocket (v5.channel.k8s.io, else v4): one-byte channel frames,
// stdin forwarded (and half-closed on v5 when it ends), resize events for a TTY, and the exit
// code from the Status on the error channel, as kubectl reads it.
import type { KubeConfig } from '@agent-sandbox/kube';
import type { Readable, Writable } from 'node:stream';
import type WebSocket from 'ws';
import { CliError } from '../errors.ts';
import { openWebSocket, podPath, type PodRef } from './kube-transport.ts';

const V5 = 'v5.channel.k8s.io';
const V4 = 'v4.channel.k8s.io';
const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;
const CLOSE = 255;

export interface ExecRequest {
  pod: PodRef;
  container?: string;
  command: readonly string[];
  tty: boolean;
  stdin?: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Terminal size now; `onResize` is called with a function to send later sizes. */
  size?: { width: number; height: number };
  onResize?: (send: (size: { width: number; height: number }) => void) => () => void;
}

/** Pure: the exit code a v4/v5 Status carries (0 on Success); undefined when it is an error. */
export function exitCodeOfStatus(text: string): number | { error: string } {
  let status: {
    status?: string;
    message?: string;
    reason?: string;
    details?: { causes?: { reason?: string; message?: string }[] };
  };
  try {
    status = JSON.parse(text) as typeof status;
  } catch {
    return { error: text.trim() };
  }
  if (status.status === 'Success') return 0;
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
  if (status.reason === 'NonZeroExitCode' && cause?.message && /^\d+$/.test(cause.message))
    return Number(cause.message);
  return { error: status.message ?? text.trim() };
}

function frame(channel: number, payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(payload.length + 1);
  out[0] = channel;
  out.set(payload, 1);
  return out;
}

/** Runs the command; resolves with its exit code, rejects with a CliError when exec fails. */
export async function execInPod(c: KubeConfig, r: ExecRequest): Promise<number> {
  const query = new URLSearchParams();
  for (const arg of r.command) query.append('command', arg);
  if (r.container) query.set('container', r.container);
  query.set('stdout', 'true');
  query.set('stderr', String(!r.tty));
  query.set('stdin', String(r.stdin !== undefined));
  query.set('tty', String(r.tty));
  return openWebSocket(c, podPath(r.pod, 'exec', query), [V5, V4], (ws) => session(ws, r));
}

function session(ws: WebSocket, r: ExecRequest): Promise<number> {
  const v5 = ws.protocol === V5;
  return new Promise((resolve, reject) => {
    let result: number | { error: string } | undefined;
    const stopResize = r.tty ? startResize(ws, r) : () => undefined;
    // As kubectl does, stdin flows from the start: the node keeps what comes before its process
    // runs (streaming.int.test.ts), and nothing here waits on a frame that could be missed.
    if (r.stdin) forwardStdin(ws, r.stdin, v5);
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary || data.length === 0) return;
      const payload = data.subarray(1);
      if (data[0] === STDOUT) r.stdout.write(payload);
      else if (data[0] === STDERR) r.stderr.write(payload);
      else if (data[0] === ERROR) result = exitCodeOfStatus(payload.toString('utf8'));
    });
    ws.on('close', () => {
      stopResize();
      if (result === undefined) return resolve(0);
      if (typeof result === 'number') return resolve(result);
      reject(new CliError('Failed', `exec failed: ${result.error}`));
    });
    ws.on('error', (e) => reject(new CliError('Failed', `exec connection failed: ${e.message}`)));
  });
}

function forwardStdin(ws: WebSocket, stdin: Readable, v5: boolean): void {
  stdin.on('data', (chunk: Buffer | string) => {
    if (ws.readyState === ws.OPEN) ws.send(frame(STDIN, Buffer.from(chunk)));
  });
  stdin.on('end', () => {
    if (v5 && ws.readyState === ws.OPEN) ws.send(Buffer.from([CLOSE, STDIN]));
  });
}

function startResize(ws: WebSocket, r: ExecRequest): () => void {
  const send = (size: { width: number; height: number }): void => {
    if (ws.readyState === ws.OPEN)
      ws.send(
        frame(RESIZE, Buffer.from(JSON.stringify({ Width: size.width, Height: size.height }))),
      );
  };
  if (r.size) send(r.size);
  return r.onResize?.(send) ?? (() => undefined);
}

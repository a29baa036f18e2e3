// One exec or attach session over a WebSocket channel protocol (§3.3): announce the writable
// channel, relay stdin/resize/close from the client and stdout/stderr from the process, then send
// the exit status on the error channel and close with 1000.
import type { WebSocket } from 'ws';
import type { Readable } from 'node:stream';
import type { StreamProcess, ProcessExit, TerminalSize } from './backend.ts';
import {
  Channel,
  decodeFrame,
  encodeFrame,
  exitPayload,
  isBase64Protocol,
  parseResize,
  V5_CHANNEL,
} from './channel-protocol.ts';

/**
 * How long a TTY session waits for the client's first resize before starting the process, so it
 * starts with the client's size (kubectl sends one right after the upgrade).
 */
const FIRST_RESIZE_WAIT_MS = 300;

/** Pause the process's output while this much is queued on the socket. */
const HIGH_WATER_BYTES = 1 << 20;

function sendFrame(
  ws: WebSocket,
  channel: number,
  payload: Uint8Array,
  base64: boolean,
  done?: () => void,
): void {
  const msg = encodeFrame(channel, payload, base64);
  ws.send(msg.data, { binary: msg.binary }, () => done?.());
}

function relay(ws: WebSocket, source: Readable, channel: number, base64: boolean): Promise<void> {
  return new Promise((resolve) => {
    source.on('data', (chunk: Buffer) => {
      if (ws.readyState !== ws.OPEN) return;
      sendFrame(ws, channel, chunk, base64);
      if (ws.bufferedAmount > HIGH_WATER_BYTES) {
        source.pause();
        const resume = (): void => {
          if (ws.bufferedAmount > HIGH_WATER_BYTES / 2 && ws.readyState === ws.OPEN)
            setTimeout(resume, 5);
          else source.resume();
        };
        setTimeout(resume, 5);
      }
    });
    source.once('end', resolve);
    source.once('close', resolve);
    source.once('error', () => resolve());
  });
}

/**
 * Runs the session until the process exits (or the client leaves). `start` creates the process;
 * a failure to start is reported on the error channel like any other failure. Never throws.
 */
export async function serveRemoteCommand(
  ws: WebSocket,
  protocol: string,
  start: (terminalSize?: TerminalSize) => Promise<StreamProcess>,
  describeError: (err: unknown) => string,
  options: { tty: boolean },
): Promise<void> {
  const base64 = isBase64Protocol(protocol);
  let proc: StreamProcess | undefined;
  let gone = false;
  const pending: { channel: number; payload: Buffer }[] = [];
  let firstSize: ((size: TerminalSize) => void) | undefined;
  const sized = new Promise<TerminalSize | undefined>((resolve) => {
    firstSize = resolve;
    setTimeout(() => resolve(undefined), options.tty ? FIRST_RESIZE_WAIT_MS : 0);
  });
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    const frame = decodeFrame(data, isBinary, base64);
    if (!frame) return;
    if (!proc) {
      if (frame.channel === Channel.resize) {
        const size = parseResize(frame.payload);
        if (size) firstSize?.(size);
      }
      pending.push(frame);
      return;
    }
    onClientFrame(proc, frame.channel, frame.payload, protocol);
  });
  ws.on('close', () => {
    gone = true;
    proc?.hangUp();
  });
  ws.on('error', () => {
    gone = true;
    proc?.hangUp();
  });

  try {
    proc = await start(await sized);
  } catch (err: unknown) {
    finish(ws, protocol, base64, { error: describeError(err) });
    return;
  }
  if (gone) {
    proc.hangUp();
    return;
  }
  for (const frame of pending.splice(0))
    onClientFrame(proc, frame.channel, frame.payload, protocol);
  // Upstream announces the lowest writable channel with one empty message (§3.3 step 1).
  const first = proc.stdout ? Channel.stdout : proc.stderr ? Channel.stderr : Channel.error;
  sendFrame(ws, first, new Uint8Array(0), base64);
  const relays = [
    proc.stdout ? relay(ws, proc.stdout, Channel.stdout, base64) : Promise.resolve(),
    proc.stderr ? relay(ws, proc.stderr, Channel.stderr, base64) : Promise.resolve(),
  ];
  const exit = await proc.exited;
  await Promise.all(relays);
  finish(ws, protocol, base64, exit);
}

function finish(ws: WebSocket, protocol: string, base64: boolean, exit: ProcessExit): void {
  if (ws.readyState !== ws.OPEN) return;
  const payload = exitPayload(exit, protocol);
  // One message carries the whole status (client-node parses each message on its own).
  if (payload) sendFrame(ws, Channel.error, payload, base64);
  ws.close(1000);
}

function onClientFrame(
  proc: StreamProcess,
  channel: number,
  payload: Buffer,
  protocol: string,
): void {
  switch (channel) {
    case Channel.stdin:
      if (proc.stdin && !proc.stdin.writableEnded && payload.length > 0) proc.stdin.write(payload);
      return;
    case Channel.resize: {
      // One message may carry several JSON objects back to back.
      for (const part of payload.toString('utf8').split(/(?<=\})\s*(?=\{)/)) {
        const size = parseResize(Buffer.from(part));
        if (size) proc.resize(size);
      }
      return;
    }
    case Channel.close:
      // v5 only: [255, n] half-closes channel n; only stdin can be closed by the client.
      if (
        protocol === V5_CHANNEL &&
        payload[0] === Channel.stdin &&
        proc.stdin &&
        !proc.stdin.writableEnded
      )
        proc.stdin.end();
      return;
    default:
      return;
  }
}

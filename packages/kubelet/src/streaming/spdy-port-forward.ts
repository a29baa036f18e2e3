// kubectl's port-forward over SPDY/3.1 (plain upgrade or tunnelled in a WebSocket; §3.5): for
// every local connection kubectl opens an `error` and a `data` stream with the same `requestID`
// and `port`; once both exist the server dials the port and copies bytes on the data stream.
// Failures go to the error stream as text, which kubectl treats as fatal for the session.
import type { Duplex } from 'node:stream';
import type { PodTarget } from './backend.ts';
import type { SpdyConnection, SpdyStream } from './spdy/connection.ts';

/** A pair left incomplete this long is dropped (kubelet's stream creation timeout). */
const PAIR_TIMEOUT_MS = 30_000;

interface Pair {
  error?: SpdyStream;
  data?: SpdyStream;
  timer: NodeJS.Timeout;
}

export interface SpdyPortForwardOptions {
  target: PodTarget;
  dial(port: number): Promise<Duplex>;
  describeError(err: unknown): string;
}

function validPort(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  const port = Number(raw);
  return port >= 1 && port <= 65535 ? port : undefined;
}

/** Serves port-forward streams on `conn` until it closes. */
export function serveSpdyPortForward(conn: SpdyConnection, options: SpdyPortForwardOptions): void {
  const pairs = new Map<string, Pair>();
  conn.on('stream', (stream) => {
    const type = stream.headers.get('streamtype');
    const port = validPort(stream.headers.get('port'));
    const requestId = stream.headers.get('requestid') ?? '';
    if ((type !== 'error' && type !== 'data') || port === undefined) {
      stream.reset();
      return;
    }
    void stream.reply();
    let pair = pairs.get(requestId);
    if (!pair) {
      pair = {
        timer: setTimeout(() => {
          pairs.delete(requestId);
          pair?.error?.reset();
          pair?.data?.reset();
        }, PAIR_TIMEOUT_MS),
      };
      pairs.set(requestId, pair);
    }
    if (pair[type]) {
      stream.reset();
      return;
    }
    pair[type] = stream;
    if (pair.error && pair.data) {
      clearTimeout(pair.timer);
      pairs.delete(requestId);
      void forward(pair.error, pair.data, port, options);
    }
  });
  conn.once('close', () => {
    for (const pair of pairs.values()) clearTimeout(pair.timer);
    pairs.clear();
  });
}

async function forward(
  error: SpdyStream,
  data: SpdyStream,
  port: number,
  options: SpdyPortForwardOptions,
): Promise<void> {
  // kubectl writes as soon as the streams exist; hold its bytes until the dial is done.
  let socket: Duplex | undefined = undefined;
  let closed = false;
  const early: Buffer[] = [];
  let ended = false;
  data.on('data', (chunk: Buffer) => (socket ? socket.write(chunk) : early.push(chunk)));
  data.once('end', () => (socket ? socket.end() : (ended = true)));
  const abort = (): void => {
    closed = true;
    socket?.destroy();
  };
  data.once('reset', abort);
  error.once('reset', abort);
  data.connection.once('close', abort);
  await Promise.all([error.reply(), data.reply()]);
  let dialed: Duplex;
  try {
    dialed = await options.dial(port);
  } catch (err: unknown) {
    const { namespace, pod, uid } = options.target;
    const where = `pod ${namespace}/${pod}${uid ? `, uid ${uid}` : ''}`;
    error.write(
      Buffer.from(`error forwarding port ${port} to ${where}: ${options.describeError(err)}`),
    );
    error.end();
    data.end();
    return;
  }
  if (closed) {
    dialed.destroy();
    return;
  }
  socket = dialed;
  for (const chunk of early.splice(0)) dialed.write(chunk);
  if (ended) dialed.end();
  const finish = (): void => {
    data.end();
    error.end();
  };
  dialed.on('data', (chunk: Buffer) => data.write(chunk));
  dialed.once('end', finish);
  dialed.once('close', finish);
  dialed.once('error', finish);
}

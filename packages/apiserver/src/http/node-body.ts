// A Node request's body as the web stream fetch's Request carries. Readable.toWeb would do, but
// cancelling its stream destroys the socket: a handler that stops reading (the 3 MiB limit, a
// body it never needs) would lose the 413 it answers, and a body left unread on a kept-alive
// connection blocks the client's next request behind it. Here cancelling discards the rest
// instead, as Go's net/http does before it reuses a connection.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** How much of an abandoned body is read and dropped before the connection is closed. */
export const DISCARD_LIMIT = 8 * 1024 * 1024;

/** How long a closing connection keeps dropping what its client still sends (Go: 500 ms). */
export const LINGER_MS = 500;

/** Body bytes handed to the handler so far, per request. */
const delivered = new WeakMap<IncomingMessage, number>();

/** The body of `req`, read only as fast as the handler pulls it. */
export function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let done = false;
  delivered.set(req, 0);
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.pause();
        req.on('data', (chunk: Buffer) => {
          if (done) return;
          delivered.set(req, (delivered.get(req) ?? 0) + chunk.byteLength);
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once('end', () => {
          if (!done) controller.close();
          done = true;
        });
        req.once('error', (err) => {
          if (!done) controller.error(err);
          done = true;
        });
      },
      pull() {
        req.resume();
      },
      cancel() {
        done = true;
        discardBody(req);
      },
    },
    { highWaterMark: 4 },
  );
}

/** Requests whose rest is being dropped, with the bytes dropped so far. */
const discarded = new WeakMap<IncomingMessage, number>();

/**
 * Reads what is left of `req`'s body and drops it. Returns whether the connection can then carry
 * the client's next request: only when the request declared its length and what is left is
 * within DISCARD_LIMIT. Otherwise the caller answers with `Connection: close` and lingers
 * (lingerOnClose); past DISCARD_LIMIT dropped bytes the connection is closed. Idempotent.
 */
export function discardBody(req: IncomingMessage): boolean {
  if (req.complete) return true;
  if (req.destroyed) return false;
  const left = Number(req.headers['content-length'] ?? Number.NaN) - (delivered.get(req) ?? 0);
  if (!discarded.has(req)) {
    discarded.set(req, 0);
    req.removeAllListeners('data');
    req.on('data', (chunk: Buffer) => {
      const seen = (discarded.get(req) ?? 0) + chunk.byteLength;
      discarded.set(req, seen);
      if (seen > DISCARD_LIMIT) req.socket.destroy();
    });
    req.resume();
  }
  return Number.isFinite(left) && left <= DISCARD_LIMIT;
}

/**
 * Node closes a `Connection: close` response's socket as soon as the response is written; if
 * the client is still sending its body that resets the connection, and the client may lose the
 * response (an EPIPE instead of the 413). Instead the socket half-closes and keeps dropping what
 * arrives for LINGER_MS, as Go's closeWriteAndWait does. Call before the response is written.
 */
export function lingerOnClose(res: ServerResponse): void {
  res.shouldKeepAlive = false;
  const socket = res.socket;
  if (socket === null) return;
  // Node's own 'finish' listener (registered first) has just ended the socket and queued its
  // destroy for when the write side is done; keep the socket open a little longer instead.
  res.once('finish', () => {
    socket.removeListener('finish', socket.destroy);
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
}

// Binds a fetch-style handler to a Node HTTP server (STYLE house style 6). The handler also gets
// the raw request-target, because WHATWG URL parsing would treat `%2E%2E` as a dot segment and
// the daemon must see the path exactly as the client encoded it. Slow or malformed clients are
// bounded here: a header deadline, a connection cap and a JSON 400 for unparsable requests.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable } from 'node:stream';

export interface RequestInfo {
  /** The request-target as sent (path and query, still percent-encoded). */
  rawTarget: string;
  remoteAddress: string;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

export type FetchHandler = (req: Request, info: RequestInfo) => Promise<Response>;

export interface HttpServeOptions {
  host: string;
  port: number;
  /** Answer for anything the handler throws (the handler's own boundary should catch first). */
  onUnexpected: (err: unknown) => Response;
  /** @default 10_000 — like Go's ReadHeaderTimeout (dataplane §4.1) */
  headersTimeoutMs?: number;
  /** @default 60_000 */
  idleTimeoutMs?: number;
  /** @default 1024 */
  maxConnections?: number;
}

export interface ListeningHttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i] ?? '', req.rawHeaders[i + 1] ?? '');
  }
  const method = req.method ?? 'GET';
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal };
  if (method !== 'GET' && method !== 'HEAD') {
    init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
    init.duplex = 'half';
  }
  // The URL is only a carrier; handlers route on info.rawTarget.
  return new Request('http://sandboxd/', init);
}

async function send(res: ServerResponse, response: Response, method: string): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => (headers[key] = value));
  res.writeHead(response.status, headers);
  if (!response.body || method === 'HEAD') {
    await response.body?.cancel();
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read();
    if (done || res.destroyed) break;
    if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}

const BAD_REQUEST_BODY = '{"code":"INVALID_ARGUMENT","message":"malformed request"}\n';
const BAD_REQUEST =
  'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\n' +
  `Content-Length: ${Buffer.byteLength(BAD_REQUEST_BODY)}\r\n\r\n${BAD_REQUEST_BODY}`;

const TIMED_OUT_BODY =
  '{"code":"DEADLINE_EXCEEDED","message":"request headers did not arrive in time"}\n';
const TIMED_OUT =
  'HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nConnection: close\r\n' +
  `Content-Length: ${Buffer.byteLength(TIMED_OUT_BODY)}\r\n\r\n${TIMED_OUT_BODY}`;

/** Serves `handle`; resolves once listening, rejects with the bind error. */
export function serveHttp(
  handle: FetchHandler,
  options: HttpServeOptions,
): Promise<ListeningHttpServer> {
  const headersTimeoutMs = options.headersTimeoutMs ?? 10_000;
  // Header deadlines are checked every connectionsCheckingInterval (30 s by default): often
  // enough here that a slowloris client is cut at the deadline, not up to 30 s later.
  const checking = Math.max(100, Math.min(1000, headersTimeoutMs / 2));
  const server: Server = createServer({ connectionsCheckingInterval: checking }, (req, res) => {
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const info: RequestInfo = {
      rawTarget: req.url ?? '/',
      remoteAddress: req.socket.remoteAddress ?? '',
      signal: abort.signal,
    };
    let request: Request;
    try {
      request = toRequest(req, abort.signal);
    } catch (err: unknown) {
      void send(res, options.onUnexpected(err), 'GET').catch(() => res.destroy());
      return;
    }
    handle(request, info)
      .catch((err: unknown) => options.onUnexpected(err))
      .then((response) => send(res, response, req.method ?? 'GET'))
      .catch(() => res.destroy());
  });
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = 0; // large transfers are never cut (dataplane §4.1)
  server.keepAliveTimeout = options.idleTimeoutMs ?? 60_000;
  server.maxConnections = options.maxConnections ?? 1024;
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    if (socket.writable) socket.end(timedOut ? TIMED_OUT : BAD_REQUEST);
    else socket.destroy();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const host = options.host.includes(':') ? `[${options.host}]` : options.host;
      resolve({
        url: `http://${host}:${address.port}`,
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

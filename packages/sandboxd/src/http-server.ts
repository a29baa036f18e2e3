// Binds a fetch-style handler to a Node HTTP server (STYLE house style 6). The handler also gets
// the raw request-target, because WHATWG URL parsing would treat `%2E%2E` as a dot segment and
// the daemon must see the path exactly as the client encoded it. This file is each HTTP
// listener's one error boundary: whatever the handler throws or rejects with becomes `onError`'s
// answer (5xx ones logged), and what never reaches a handler — a request Node's parser refuses
// (`clientError`), CONNECT/TRACE/TRACK, duplicate Host — gets a JSON 4xx naming the problem.
// A `FastRoute` (the legacy /execute) skips the WHATWG Request/Response and their streams: on a
// small JSON request that conversion cost as much as the spawn it fronts (bench/dataplane).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { originForm, requestRefusal, type HttpRefusal } from '@agent-sandbox/protocol';
import { answerRefusals } from '@agent-sandbox/protocol/node';
import { errorText, type LogFn } from './errors.ts';
import { splitTarget } from './target.ts';

export interface RequestInfo {
  /** The request-target as sent (path and query, still percent-encoded). */
  rawTarget: string;
  remoteAddress: string;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

export type FetchHandler = (req: Request, info: RequestInfo) => Promise<Response>;

/** A whole answer as one string, sent with Content-Length in one write. */
export interface PlainAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A hot route served on Node's own request: its body read into one bounded buffer. */
export interface FastRoute {
  method: string;
  /** The raw path it serves, exactly (the query is ignored). */
  path: string;
  maxBodyBytes: number;
  /** The answer for a body over maxBodyBytes (the connection is closed after it). */
  tooLarge: () => PlainAnswer;
  handle: (body: Buffer, info: RequestInfo) => Promise<PlainAnswer>;
}

export interface HttpServeOptions {
  host: string;
  port: number;
  /** The boundary: the answer for anything the handler throws or rejects with. */
  onError: (err: unknown) => Response;
  /** Boundary answers of 500 and above are logged here. */
  log?: LogFn;
  /** @default 10_000 — like Go's ReadHeaderTimeout (dataplane §4.1) */
  headersTimeoutMs?: number;
  /** @default 60_000 */
  idleTimeoutMs?: number;
  /** @default 1024 */
  maxConnections?: number;
  /** Routes answered before the fetch handler, without WHATWG conversion. */
  fastRoutes?: FastRoute[];
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

/** Resolves when `res` takes more data or has closed (a client gone mid-body never drains). */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
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
    if (!res.write(value)) await drainedOrClosed(res);
  }
  res.end();
}

function sendPlain(res: ServerResponse, a: PlainAnswer): void {
  res
    .writeHead(a.status, { ...a.headers, 'content-length': String(Buffer.byteLength(a.body)) })
    .end(a.body);
}

/** The body, or undefined as soon as it passes `limit` (the rest is left unread). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData);
      req.pause();
      resolve(undefined);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks, size)));
    req.once('error', reject);
  });
}

async function serveFast(
  route: FastRoute,
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
): Promise<void> {
  const body = await readBody(req, route.maxBodyBytes);
  if (!body) {
    res.shouldKeepAlive = false;
    return sendPlain(res, route.tooLarge());
  }
  const answer = await route.handle(body, info);
  if (!res.destroyed) sendPlain(res, answer);
}

/** A refusal as the daemon's JSON error body (`code` + `message`, both APIs read `message`). */
function refusalBody(r: HttpRefusal): string {
  const code = r.reason === 'Timeout' ? 'DEADLINE_EXCEEDED' : 'INVALID_ARGUMENT';
  return `${JSON.stringify({ code, message: r.message })}\n`;
}

/** Serves `handle`; resolves once listening, rejects with the bind error. */
export function serveHttp(
  handle: FetchHandler,
  options: HttpServeOptions,
): Promise<ListeningHttpServer> {
  const headersTimeoutMs = options.headersTimeoutMs ?? 10_000;
  // Header deadlines are checked every connectionsCheckingInterval (30 s by default): often
  // enough here that a slowloris client is cut at the deadline, not up to 30 s later.
  const checking = Math.max(100, Math.min(1000, headersTimeoutMs / 2));
  const answer = (err: unknown, req: IncomingMessage, gone: AbortSignal): Response => {
    const response = options.onError(err);
    // A client that went away mid-body is no server failure; nobody reads that answer anyway.
    if (response.status >= 500 && !gone.aborted)
      options.log?.('request failed', {
        method: req.method,
        path: (req.url ?? '').split('?')[0]?.slice(0, 256),
        status: response.status,
        error: errorText(err),
      });
    return response;
  };
  const server: Server = createServer({ connectionsCheckingInterval: checking }, (req, res) => {
    const refusal = requestRefusal(req.method ?? '', req.rawHeaders);
    if (refusal) {
      res.shouldKeepAlive = false;
      res
        .writeHead(refusal.status, { 'content-type': 'application/json' })
        .end(refusalBody(refusal));
      return;
    }
    // A body cut short (the client closed) errors `req`; the handler sees it through the body
    // stream and the signal, and an unheard 'error' event must not end the process.
    req.on('error', () => undefined);
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const info: RequestInfo = {
      rawTarget: originForm(req.url ?? '/'),
      remoteAddress: req.socket.remoteAddress ?? '',
      signal: abort.signal,
    };
    const path = options.fastRoutes && splitTarget(info.rawTarget).rawPath;
    const fast = options.fastRoutes?.find((r) => r.method === req.method && r.path === path);
    if (fast) {
      serveFast(fast, req, res, info).catch((err: unknown) =>
        send(res, answer(err, req, abort.signal), req.method ?? 'GET').catch(() => res.destroy()),
      );
      return;
    }
    Promise.resolve()
      .then(() => handle(toRequest(req, abort.signal), info))
      .catch((err: unknown) => answer(err, req, abort.signal))
      .then((response) => send(res, response, req.method ?? 'GET'))
      .catch(() => res.destroy());
  });
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = 0; // large transfers are never cut (dataplane §4.1)
  server.keepAliveTimeout = options.idleTimeoutMs ?? 60_000;
  server.maxConnections = options.maxConnections ?? 1024;
  answerRefusals(server, refusalBody);
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

// Binds ApiServer.handle to a Node HTTP or HTTPS server: request bodies stream in, response
// bodies (including watch streams) stream out chunk by chunk, and a closed connection aborts the
// request's signal so its watch ends. HTTPS for real serving (ADR 0007), plain HTTP for tests.
// No response leaves before what its request wrote or read is on disk (group commit, ADR 0010).
// Every request runs inside one error boundary (serveOne): no input can crash the process.
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Status } from '@agent-sandbox/kube-types';
import { requestFailure, statusFor, type RequestFailureLog } from './http/error-boundary.ts';
import {
  classify,
  DEFAULT_INFLIGHT_LIMITS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  InflightLimiter,
  requestTimedOut,
  withDeadline,
  type InflightLimits,
} from './http/inflight.ts';
import { bodyStream, discardBody, lingerOnClose } from './http/node-body.ts';
import { upgradeTakeover, writeRawResponse } from './http/upgrade.ts';
import type { UserInfo } from './auth/authenticate.ts';
import { SYSTEM_MASTERS } from './authz/resolver.ts';
import type { ApiServer } from './server.ts';
import { recordRawPath } from './http/raw-path.ts';
import { notDurableStatus } from './http/response.ts';

const MAX_HEADER_BYTES = 1 << 20;
/** kube-apiserver's ReadHeaderTimeout (32s, just under its request-timeout bound): slowloris. */
const DEFAULT_HEADERS_TIMEOUT_MS = 32_000;

export interface ListenOptions {
  /** @default 0 (the OS picks a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** PEM serving certificate (chain) and key; absent means plain HTTP. */
  tls?: { cert: string; key: string };
  /** Told about every request that failed outside the API server's own boundary. */
  onRequestError?: RequestFailureLog;
  /**
   * A request's whole head must arrive within this (slowloris), else the connection closes.
   * @default 32000 (kube-apiserver's ReadHeaderTimeout)
   */
  headersTimeoutMs?: number;
  /**
   * A non-long-running request answers 504 Timeout after this; 0 turns it off.
   * @default 60000 (kube-apiserver's --request-timeout)
   */
  requestTimeoutMs?: number;
  /**
   * Non-long-running requests served at once, per class; over it, 429 with Retry-After. A class
   * left out keeps its default.
   * @default { readonly: 400, mutating: 200 } (kube's --max-requests-inflight and
   * --max-mutating-requests-inflight)
   */
  inflight?: Partial<InflightLimits>;
}

export interface ListeningServer {
  /** e.g. http://127.0.0.1:40123 or https://127.0.0.1:6443 */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Methods fetch's Request refuses to carry; the server sees them as ApiServer.handle's `method`. */
const FORBIDDEN_FETCH_METHODS = /^(CONNECT|TRACE|TRACK)$/i;

function toRequest(req: IncomingMessage, url: URL, signal: AbortSignal, upgrade = false): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (Array.isArray(v)) v.forEach((x) => headers.append(k, x));
    else if (v !== undefined) headers.set(k, v);
  }
  const method = req.method ?? 'GET';
  if (FORBIDDEN_FETCH_METHODS.test(method))
    return withRawPath(new Request(url, { headers, signal }), req);
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal };
  // After an upgrade request's head the socket carries the new protocol, not a body.
  if (!upgrade && method !== 'GET' && method !== 'HEAD') {
    init.body = bodyStream(req);
    init.duplex = 'half';
  }
  return withRawPath(new Request(url, init), req);
}

function withRawPath(request: Request, req: IncomingMessage): Request {
  recordRawPath(request, req.url ?? '/');
  return request;
}

/** Resolves once `res` can take more data, or has closed (the client went away). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    if (key === 'warning')
      headers[key] = [...((headers[key] as string[] | undefined) ?? []), value];
    else headers[key] = value;
  });
  // Headers.forEach joins repeated Warning headers; send each one separately (§0).
  const warnings = response.headers.get('warning');
  if (warnings) headers['warning'] = warnings.split(/,\s*(?=299 )/);
  res.writeHead(response.status, headers);
  res.flushHeaders();
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) await drained(res);
    }
  } finally {
    // A client that left mid-stream must not keep the stream (a watch) running.
    if (res.destroyed) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
  res.end();
}

function statusBody(status: Status): Response {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const retryAfter = status.details?.retryAfterSeconds;
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  return new Response(JSON.stringify(status), { status: status.code, headers });
}

/**
 * The request's URL, or the plain-text 400 Go's net/http (which kube-apiserver runs on) answers
 * before any handler runs: for a Host header that is not a host, and for a request target that
 * does not parse (an invalid %-escape).
 */
function requestUrl(req: IncomingMessage, fallbackHost: string, scheme: string): URL | Response {
  let url: URL;
  try {
    url = new URL(req.url ?? '/', `${scheme}://${req.headers.host ?? fallbackHost}`);
  } catch {
    return goBadRequest(': malformed Host header');
  }
  if (/%(?![0-9a-fA-F]{2})/.test(url.pathname)) return goBadRequest('');
  return url;
}

function goBadRequest(detail: string): Response {
  return new Response(`400 Bad Request${detail}`, {
    status: 400,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' },
  });
}

interface ServeContext {
  host: string;
  scheme: string;
  limiter: InflightLimiter;
  requestTimeoutMs: number;
  onRequestError: RequestFailureLog | undefined;
}

/**
 * The handler's response within the request's class limits: 429 when its class is full, 504
 * (and the handler's signal aborted) when a non-long-running request outlives the timeout.
 * `release` is handed back so the slot is held until the response has been sent.
 */
async function admitted(
  server: ApiServer,
  req: IncomingMessage,
  url: URL,
  abort: AbortController,
  ctx: ServeContext,
): Promise<{ response: Response; seen: number | undefined; release: () => void }> {
  const method = req.method ?? 'GET';
  const cls = classify(method, url);
  let release = (): void => {};
  const admit = (user: UserInfo): boolean => {
    // kube's maxinflight filter lets system:masters through uncounted (and APF exempts them).
    if (user.groups.includes(SYSTEM_MASTERS)) return true;
    const taken = ctx.limiter.acquire(cls);
    if (taken) release = taken;
    return taken !== undefined;
  };
  const handled: Promise<{ response: Response; seen: number | undefined }> = server.handleSeen(
    toRequest(req, url, abort.signal),
    abort.signal,
    method,
    admit,
  );
  const timeoutMs = cls === 'long-running' ? 0 : ctx.requestTimeoutMs;
  try {
    // A timed-out handler may still be reading: its answer waits for everything (seen unknown).
    const answer = await withDeadline(handled, timeoutMs, () => {
      abort.abort();
      return { response: statusBody(requestTimedOut().status), seen: undefined };
    });
    return { ...answer, release };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * One request through the error boundary: whatever happens answers a Status (500 when nothing
 * better is known) or, once the response has started, ends the connection. Never rejects.
 */
async function serveOne(
  server: ApiServer,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: ServeContext,
): Promise<void> {
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  const method = req.method ?? 'GET';
  let release = (): void => {};
  try {
    const url = requestUrl(req, ctx.host, ctx.scheme);
    let response: Response;
    let seen: number | undefined = 0;
    if (url instanceof Response) response = url;
    else ({ response, seen, release } = await admitted(server, req, url, abort, ctx));
    // A body the handler did not read (all of) must not hold up the connection's next request.
    if (!discardBody(req)) lingerOnClose(res);
    // The acknowledgement: a response waits for the group commit's fsync of the revisions its
    // request read or wrote (ADR 0046). If it failed they may be lost, so say so instead.
    const ok = await server.durable(seen).then(
      () => true,
      (err: unknown) => err,
    );
    await send(res, ok === true ? response : statusBody(notDurableStatus(ok)));
  } catch (err: unknown) {
    if (!abort.signal.aborted)
      ctx.onRequestError?.(requestFailure(method, req.url ?? '/', 500, err));
    if (!discardBody(req)) lingerOnClose(res);
    if (res.headersSent) res.destroy();
    else await send(res, statusBody(statusFor(err))).catch(() => res.destroy());
  } finally {
    release();
  }
}

/**
 * CONNECT never reaches the request listener (Node hands it over as a raw socket for tunnels):
 * give it a response object on that socket, so it goes through the same boundary (kube: 405).
 */
function connectListener(
  serve: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, socket: Duplex) => void {
  return (req, socket) => {
    socket.on('error', () => undefined);
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.on('finish', () => socket.end());
    serve(req, res);
  };
}

/**
 * exec, attach and portforward upgrade the connection (WebSocket or SPDY): the handler either
 * takes the socket over (http/upgrade.ts) or answers in plain HTTP, e.g. with an error Status.
 */
function upgradeListener(
  server: ApiServer,
  where: { host: string; scheme: string },
): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (req, socket, head) => {
    socket.on('error', () => undefined);
    const abort = new AbortController();
    socket.once('close', () => abort.abort());
    const url = requestUrl(req, where.host, where.scheme);
    const method = req.method ?? 'GET';
    const answer =
      url instanceof Response
        ? Promise.resolve(url)
        : server.handle(toRequest(req, url, abort.signal, true), abort.signal, method);
    answer
      .then(async (response) => {
        const takeover = upgradeTakeover(response);
        if (takeover) takeover(socket, head);
        else await writeRawResponse(socket, response);
      })
      .catch(() => socket.destroy());
  };
}

/**
 * Node's own clocks for what arrives: a head within `headersMs` (slowloris headers, kube's
 * ReadHeaderTimeout). A slow body meets the request timeout in `admitted` (504, as kube's
 * handler deadline); Node's request clock is the backstop that then closes the connection
 * (a watch's request is whole at once, so it never trips). Checked every second at most.
 */
function boundSlowClients(http: Server, headersMs: number, ctx: ServeContext): void {
  const requestMs = ctx.requestTimeoutMs;
  http.headersTimeout = headersMs;
  http.requestTimeout = requestMs > 0 ? requestMs + headersMs : 0;
}

/**
 * Serves `server` on a socket. Resolves once listening; rejects with the socket error (e.g.
 * `EADDRINUSE`) when the port cannot be bound. `listen(server, port, host)` is the plain-HTTP
 * shorthand kept for tests.
 */
export function listen(
  server: ApiServer,
  portOrOptions: number | ListenOptions = {},
  hostArg?: string,
): Promise<ListeningServer> {
  const options: ListenOptions =
    typeof portOrOptions === 'number' ? { port: portOrOptions } : portOrOptions;
  const port = options.port ?? 0;
  const host = hostArg ?? options.host ?? '127.0.0.1';
  const scheme = options.tls ? 'https' : 'http';
  const where = { host: `${host}:${port}`, scheme };
  const ctx: ServeContext = {
    ...where,
    limiter: new InflightLimiter({ ...DEFAULT_INFLIGHT_LIMITS, ...options.inflight }),
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    onRequestError: options.onRequestError,
  };
  const onRequest: RequestListener = (req, res) => {
    void serveOne(server, req, res, ctx);
  };
  // Go's net/http default (http.DefaultMaxHeaderBytes, which kube-apiserver keeps): request
  // line and headers up to 1 MiB, then 431. Node's own default (16 KiB) refuses URLs kube serves.
  const headersMs = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const limits = {
    maxHeaderSize: MAX_HEADER_BYTES,
    connectionsCheckingInterval: Math.max(100, Math.min(1000, headersMs / 2)),
  };
  const http: Server = options.tls
    ? createHttpsServer({ ...limits, cert: options.tls.cert, key: options.tls.key }, onRequest)
    : createServer(limits, onRequest);
  boundSlowClients(http, headersMs, ctx);
  http.on('connect', connectListener(onRequest));
  http.on('upgrade', upgradeListener(server, where));
  return new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      const address = http.address() as AddressInfo;
      const urlHost = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `${scheme}://${urlHost}:${address.port}`,
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            http.closeAllConnections();
            http.close(() => done());
          }),
      });
    });
  });
}

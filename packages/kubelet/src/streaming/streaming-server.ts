// The node's streaming server (kubelet's :10250 API): /exec, /attach and /portForward as
// WebSocket (channel protocols, kubectl's SPDY tunnel) or SPDY/3.1 upgrades, /containerLogs as a
// streamed text body. The API server proxies pods/exec, attach, portforward and log here.
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createWebSocketStream, WebSocketServer, type WebSocket } from 'ws';
import { KubeletError } from '../errors.ts';
import { failureOf, statusBody, type Failure } from './http-errors.ts';
import type { StreamingBackend, StreamSelection, TerminalSize } from './backend.ts';
import {
  CHANNEL,
  chooseProtocol,
  PORT_FORWARD_PROTOCOLS,
  REMOTE_COMMAND_PROTOCOLS,
  SPDY_TUNNEL,
} from './channel-protocol.ts';
import { readContainerLog } from './log-reader.ts';
import { parseStreamingRoute, type StreamingRoute } from './request-options.ts';
import { SpdyConnection } from './spdy/connection.ts';
import { serveSpdyPortForward } from './spdy-port-forward.ts';
import { serveWsPortForward } from './ws-port-forward.ts';
import { serveRemoteCommand } from './ws-remote-command.ts';

export interface StreamingServerOptions {
  backend: StreamingBackend;
  /** PEM serving certificate (chain) and key. Absent: plain HTTP (only for loopback tests). */
  tls?: { cert: string; key: string };
  /**
   * Bearer token every request must carry: the API server's credential for this node. Absent:
   * no authentication (tests).
   */
  token?: string;
  /** @default 0 (the OS picks a free port; kubelet's own default is 10250) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** @default Date.now */
  now?: () => number;
  /**
   * Served on GET /metrics (with the token, as kubelet serves its metrics on :10250); a
   * prom-client Registry fits. Absent: /metrics is not served.
   */
  metrics?: { readonly contentType: string; metrics(): Promise<string> };
}

export interface StreamingServerHandle {
  /** e.g. https://127.0.0.1:10250 */
  url: string;
  port: number;
  /** Stops listening and ends every open session. */
  close(): Promise<void>;
}

const PORT_FORWARD_SPDY = 'portforward.k8s.io';

export function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Writes a plain HTTP error answer on a socket that was not upgraded, then closes it. */
function refuseUpgrade(
  socket: Duplex,
  err: unknown,
  extraHeaders: Record<string, string> = {},
): void {
  const f = failureOf(err);
  const body = statusBody(f);
  const headers = {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
    ...extraHeaders,
  };
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${f.code} ${f.reason}\r\n${head}\r\n${body}`);
}

function answer(res: ServerResponse, f: Failure): void {
  res.writeHead(f.code, { 'Content-Type': 'application/json' }).end(statusBody(f));
}

function headerList(req: IncomingMessage, name: string): string[] {
  const raw = req.headers[name];
  const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

function withSize(streams: StreamSelection, terminalSize?: TerminalSize): StreamSelection {
  return terminalSize ? { ...streams, terminalSize } : streams;
}

class StreamingService {
  readonly #wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  readonly #sockets = new Set<Duplex>();
  constructor(readonly options: StreamingServerOptions) {}

  authorized(req: IncomingMessage): boolean {
    const token = this.options.token;
    if (token === undefined) return true;
    const header = req.headers.authorization ?? '';
    const presented = Buffer.from(header.startsWith('Bearer ') ? header.slice(7).trim() : '');
    const expected = Buffer.from(token);
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  }

  route(req: IncomingMessage): StreamingRoute {
    if (!this.authorized(req)) throw new KubeletError('Unauthorized', 'Unauthorized');
    const now = (this.options.now ?? Date.now)();
    return parseStreamingRoute(new URL(req.url ?? '/', 'http://node'), now);
  }

  async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.url === '/healthz') {
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
      return;
    }
    if (req.url === '/metrics' && this.options.metrics) return this.#metrics(req, res);
    let route: StreamingRoute;
    try {
      route = this.route(req);
      if (route.kind !== 'containerLogs')
        throw new KubeletError('InvalidArgument', 'Upgrade request required');
    } catch (err: unknown) {
      answer(res, failureOf(err));
      return;
    }
    const abort = new AbortController();
    res.once('close', () => abort.abort());
    let started = false;
    try {
      const log = await this.options.backend.containerLog(route.target, {
        previous: route.log.previous,
      });
      for await (const chunk of readContainerLog(log, route.log, abort.signal)) {
        if (!started) {
          res.writeHead(200, { 'Content-Type': 'text/plain' });
          started = true;
        }
        if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
      }
      if (!started) res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end();
    } catch (err: unknown) {
      // Once the body has started only cutting the connection can tell the client it failed.
      if (started) res.destroy(err instanceof Error ? err : new Error(String(err)));
      else answer(res, failureOf(err));
    }
  }

  async #metrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const source = this.options.metrics;
    if (!source) return;
    if (!this.authorized(req))
      return answer(res, failureOf(new KubeletError('Unauthorized', 'Unauthorized')));
    try {
      const text = await source.metrics();
      res.writeHead(200, { 'Content-Type': source.contentType }).end(text);
    } catch (err: unknown) {
      answer(res, failureOf(err));
    }
  }

  onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.#track(socket);
    let route: StreamingRoute;
    try {
      route = this.route(req);
      if (route.kind === 'containerLogs')
        throw new KubeletError('InvalidArgument', 'logs are not served over an upgrade');
    } catch (err: unknown) {
      refuseUpgrade(socket, err);
      return;
    }
    const upgrade = (req.headers.upgrade ?? '').toLowerCase();
    if (upgrade === 'websocket') this.#webSocket(req, socket, head, route);
    else if (upgrade === 'spdy/3.1') this.#spdy(req, socket, head, route);
    else
      refuseUpgrade(
        socket,
        new KubeletError(
          'InvalidArgument',
          `unsupported upgrade protocol "${req.headers.upgrade ?? ''}"`,
        ),
      );
  }

  #track(socket: Duplex): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
  }

  #webSocket(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    route: Exclude<StreamingRoute, { kind: 'containerLogs' }>,
  ): void {
    const supported =
      route.kind === 'portForward' ? PORT_FORWARD_PROTOCOLS : REMOTE_COMMAND_PROTOCOLS;
    const chosen = chooseProtocol(headerList(req, 'sec-websocket-protocol'), supported);
    const offered = headerList(req, 'sec-websocket-protocol');
    if (chosen === undefined && offered.length > 0) {
      refuseUpgrade(
        socket,
        new KubeletError(
          'InvalidArgument',
          `none of the offered subprotocols [${offered.join(' ')}] is supported; supported: [${supported.join(' ')}]`,
        ),
      );
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      this.#session(ws, chosen ?? CHANNEL, route);
    });
  }

  #session(
    ws: WebSocket,
    protocol: string,
    route: Exclude<StreamingRoute, { kind: 'containerLogs' }>,
  ): void {
    const { backend } = this.options;
    switch (route.kind) {
      case 'exec':
        void serveRemoteCommand(
          ws,
          protocol,
          (terminalSize) =>
            backend.exec(route.target, route.command, withSize(route.streams, terminalSize)),
          describeError,
          route.streams,
        );
        return;
      case 'attach':
        void serveRemoteCommand(
          ws,
          protocol,
          (terminalSize) => backend.attach(route.target, withSize(route.streams, terminalSize)),
          describeError,
          route.streams,
        );
        return;
      case 'portForward': {
        const dial = (port: number): Promise<Duplex> => backend.portForward(route.target, port);
        if (protocol === SPDY_TUNNEL) {
          // WebSocket message boundaries mean nothing here: the messages form one SPDY byte stream.
          const conn = new SpdyConnection(createWebSocketStream(ws));
          serveSpdyPortForward(conn, { target: route.target, dial, describeError });
        } else {
          void serveWsPortForward(ws, protocol, { ports: route.ports, dial, describeError });
        }
        return;
      }
    }
  }

  #spdy(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    route: Exclude<StreamingRoute, { kind: 'containerLogs' }>,
  ): void {
    const versions = headerList(req, 'x-stream-protocol-version');
    if (route.kind !== 'portForward' || !versions.includes(PORT_FORWARD_SPDY)) {
      // Exec and attach are served over WebSocket; kubectl 1.32 only falls back to SPDY when that fails.
      refuseUpgrade(
        socket,
        new KubeletError(
          'Forbidden',
          `unable to upgrade: SPDY is served for port-forward only (${PORT_FORWARD_SPDY}); use the WebSocket protocols for ${route.kind}`,
        ),
        { 'X-Accepted-Stream-Protocol-Versions': PORT_FORWARD_SPDY },
      );
      return;
    }
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n' +
        `X-Stream-Protocol-Version: ${PORT_FORWARD_SPDY}\r\n\r\n`,
    );
    const conn = new SpdyConnection(socket, head);
    serveSpdyPortForward(conn, {
      target: route.target,
      dial: (port) => this.options.backend.portForward(route.target, port),
      describeError,
    });
  }

  closeAll(): void {
    for (const s of this.#sockets) s.destroy();
    for (const ws of this.#wss.clients) ws.terminate();
  }
}

/** Starts the streaming server; resolves once listening, rejects with the socket error. */
export function startStreamingServer(
  options: StreamingServerOptions,
): Promise<StreamingServerHandle> {
  const service = new StreamingService(options);
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    void service.onRequest(req, res);
  };
  const server: Server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, onRequest)
    : createServer(onRequest);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    service.onUpgrade(req, socket, head),
  );
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const urlHost = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `${options.tls ? 'https' : 'http'}://${urlHost}:${port}`,
        port,
        close: () =>
          new Promise<void>((done) => {
            service.closeAll();
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

// Binds ApiServer.handle to a Node HTTP or HTTPS server: request bodies stream in, response
// bodies (including watch streams) stream out chunk by chunk, and a closed connection aborts the
// request's signal so its watch ends. HTTPS for real serving (ADR 0007), plain HTTP for tests.
// No response leaves before what its request wrote or read is on disk (group commit, ADR 0010).
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ApiServer } from './server.ts';

export interface ListenOptions {
  /** @default 0 (the OS picks a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** PEM serving certificate (chain) and key; absent means plain HTTP. */
  tls?: { cert: string; key: string };
}

export interface ListeningServer {
  /** e.g. http://127.0.0.1:40123 or https://127.0.0.1:6443 */
  url: string;
  port: number;
  close(): Promise<void>;
}

function toRequest(req: IncomingMessage, base: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (Array.isArray(v)) v.forEach((x) => headers.append(k, x));
    else if (v !== undefined) headers.set(k, v);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const init: RequestInit & { duplex?: 'half' } = { method: req.method ?? 'GET', headers, signal };
  if (hasBody) {
    init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
    init.duplex = 'half';
  }
  return new Request(new URL(req.url ?? '/', base), init);
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
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}

function notDurable(err: unknown): Response {
  const message = err instanceof Error ? err.message : String(err);
  const status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `storage failure, the request may not have been persisted: ${message}`,
    reason: 'InternalError',
    details: { causes: [{ message }] },
    code: 500,
  };
  return new Response(JSON.stringify(status), {
    status: 500,
    headers: { 'content-type': 'application/json' },
  });
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
  const onRequest: RequestListener = (req, res) => {
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const base = `${scheme}://${req.headers.host ?? `${host}:${port}`}`;
    server
      .handle(toRequest(req, base, abort.signal), abort.signal)
      .then(async (response) => {
        // The acknowledgement: a write's response, and a read's that may have seen a write, wait
        // for the group commit's fsync. If it failed the write may be lost, so say so instead.
        const ok = await server.durable().then(
          () => true,
          (err: unknown) => err,
        );
        await send(res, ok === true ? response : notDurable(ok));
      })
      .catch((err: unknown) => {
        res.destroy(err instanceof Error ? err : new Error(String(err)));
      });
  };
  const http: Server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, onRequest)
    : createServer(onRequest);
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

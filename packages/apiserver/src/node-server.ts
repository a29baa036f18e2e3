// Binds ApiServer.handle to a Node HTTP server: request bodies stream in, response bodies
// (including watch streams) stream out chunk by chunk, and a closed connection aborts the
// request's signal so its watch ends.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ApiServer } from './server.ts';

export interface ListeningServer {
  /** e.g. http://127.0.0.1:40123 */
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

export function listen(server: ApiServer, port = 0, host = '127.0.0.1'): Promise<ListeningServer> {
  const http: Server = createServer((req, res) => {
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const base = `http://${req.headers.host ?? `${host}:${port}`}`;
    server
      .handle(toRequest(req, base, abort.signal), abort.signal)
      .then((response) => send(res, response))
      .catch((err: unknown) => {
        res.destroy(err instanceof Error ? err : new Error(String(err)));
      });
  });
  return new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      const address = http.address() as AddressInfo;
      resolve({
        url: `http://${host}:${address.port}`,
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

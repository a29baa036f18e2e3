// The probe (/healthz, /readyz) and metrics (/metrics) endpoints. controller-runtime serves them
// on two addresses (`--health-probe-bind-address :8081`, `--metrics-bind-address :8080`, spec
// §18.1); both accept "0" to disable. Handlers are fetch-style (STYLE house style 6).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { invalidArgument } from './errors.ts';

export type Check = () => Promise<void> | void;

/** Runs named checks; any throw makes the endpoint 500 with the check's name (healthz format). */
export async function runChecks(
  checks: ReadonlyMap<string, Check>,
  verbose: boolean,
): Promise<Response> {
  const lines: string[] = [];
  let ok = true;
  for (const [name, check] of checks) {
    try {
      await check();
      lines.push(`[+]${name} ok`);
    } catch (err: unknown) {
      ok = false;
      lines.push(`[-]${name} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const body = ok && !verbose ? 'ok' : `${lines.join('\n')}\n${ok ? 'ok' : 'check failed'}\n`;
  return new Response(body, {
    status: ok ? 200 : 500,
    headers: { 'Content-Type': 'text/plain; charset=utf-8' },
  });
}

/** Parses `:8080`, `127.0.0.1:0`, `[::1]:9090`; `0` or '' means disabled (undefined). */
export function parseBindAddress(address: string): { host: string; port: number } | undefined {
  if (address === '0' || address === '') return undefined;
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(address);
  if (!m) throw invalidArgument(`bind address "${address}" must be host:port, :port or 0`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port: Number(m[3]) };
}

export interface BoundServer {
  /** `host:port` actually bound. */
  address: string;
  close(): Promise<void>;
}

/** Serves `handle` on `address`; resolves once listening. */
export async function serve(
  address: { host: string; port: number },
  handle: (req: Request) => Promise<Response>,
): Promise<BoundServer> {
  const server: Server = createServer((req, res) => {
    const request = new Request(new URL(req.url ?? '/', 'http://localhost'), {
      method: req.method ?? 'GET',
    });
    handle(request)
      .then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
      })
      .catch((err: unknown) => {
        res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end(err instanceof Error ? err.message : String(err));
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => resolve());
  });
  const info = server.address() as AddressInfo;
  return {
    address: `${info.family === 'IPv6' ? `[${info.address}]` : info.address}:${info.port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// Slow clients against the router on real sockets: headers trickled in (slowloris) are cut at the
// read-header deadline with a 408, a body trickled in is cut at the proxy deadline with upstream's
// 502, and other clients are served meanwhile.
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type RunningRouter } from './router.ts';
import { listenLoopback } from './testing/backend.ts';

let backend: Server;
let backendPort: number;
let router: RunningRouter;

beforeAll(async () => {
  backend = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  backendPort = await listenLoopback(backend);
  router = await startRouter({
    proxy: { host: '127.0.0.1', port: 0 },
    allowLoopbackPodIp: true,
    readHeaderTimeoutMs: 500,
    proxyTimeoutMs: 1000,
  });
});

afterAll(async () => {
  await router?.close();
  backend?.close();
});

/** Opens a socket to the router and writes `parts` one by one, `everyMs` apart, until closed. */
function trickle(parts: string[], everyMs: number): { socket: Socket; closed: Promise<string> } {
  const u = new URL(router.proxyUrl);
  const socket = connect(Number(u.port), u.hostname);
  let got = '';
  socket.on('data', (d: Buffer) => (got += d.toString()));
  socket.on('error', () => undefined);
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || socket.writableEnded) return clearInterval(timer);
    socket.write(parts[Math.min(i++, parts.length - 1)] ?? '');
  }, everyMs);
  const closed = new Promise<string>((resolve) =>
    socket.once('close', () => {
      clearInterval(timer);
      resolve(got);
    }),
  );
  return { socket, closed };
}

const healthy = async () => (await fetch(`${router.proxyUrl}/healthz`)).status;

describe('slow clients', () => {
  it('cuts a slowloris header stream at the deadline while others are served', async () => {
    const started = Date.now();
    const slow = trickle(['GET / HTTP/1.1\r\nHost: x\r\n', 'X-Pad: a\r\n'], 100);
    expect(await healthy()).toBe(200);
    const answer = await slow.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await healthy()).toBe(200);
  });

  it('cuts a body that trickles in at the proxy deadline with a 502', async () => {
    const started = Date.now();
    const head =
      'POST /upload HTTP/1.1\r\nHost: x\r\nX-Sandbox-ID: sb\r\nX-Sandbox-Pod-IP: 127.0.0.1\r\n' +
      `X-Sandbox-Port: ${backendPort}\r\nContent-Length: 100000\r\n\r\n`;
    const slow = trickle([head, 'x'], 50);
    expect(await healthy()).toBe(200);
    // The router answers and closes the connection: the rest of the body is not waited for.
    const answer = await slow.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 502/);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('{"detail":"Could not connect to the backend sandbox: sb"}');
    expect(Date.now() - started).toBeLessThan(4000);
    expect(await healthy()).toBe(200);
  });
});

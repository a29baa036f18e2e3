// Hostile input against the router's proxy port on real sockets (issue 15): every method token,
// malformed request-targets and headers, bad routing headers, bodies that lie about their
// length, bad chunk sizes, and backends that close before or during their answer or never
// answer. Each gets a 4xx or upstream's 502 `{"detail"}` naming the problem, nothing is logged
// as a router failure, and the router keeps proxying.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RouterDetail } from '@agent-sandbox/protocol';
import { exchange, head, HOSTILE_METHODS } from '@agent-sandbox/protocol/testing';
import { startRouter, type RunningRouter } from './router.ts';
import { listenLoopback } from './testing/backend.ts';

let backend: Server;
let backendPort: number;
let router: RunningRouter;
const logged: { msg: string; fields: Record<string, unknown> }[] = [];
/** What the backend last received: method and request-target. */
let seen = '';

beforeAll(async () => {
  backend = createServer((req, res) => {
    seen = `${req.method} ${req.url}`;
    req.on('error', () => undefined);
    if (req.url === '/close-before') return void req.socket.destroy();
    if (req.url === '/hang') return;
    if (req.url === '/close-mid') {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('x'.repeat(10), () => setTimeout(() => req.socket.destroy(), 20));
      return;
    }
    req.resume();
    req.on('end', () => res.writeHead(200).end(`ok ${req.method}`));
  });
  backendPort = await listenLoopback(backend);
  router = await startRouter({
    proxy: { host: '127.0.0.1', port: 0 },
    allowLoopbackPodIp: true,
    responseHeaderTimeoutMs: 500,
    upstreamRetryInitialDelayMs: 10,
    upstreamRetryMaxDelayMs: 20,
    log: (msg, fields) => logged.push({ msg, fields }),
  });
});
afterAll(async () => {
  await router?.close();
  backend?.close();
  backend?.closeAllConnections();
});

const routed = (extra: Record<string, string> = {}) => ({
  'X-Sandbox-ID': 'sb',
  'X-Sandbox-Pod-IP': '127.0.0.1',
  'X-Sandbox-Port': String(backendPort),
  ...extra,
});
const detail = (body: string) => (JSON.parse(body) as { detail: string }).detail;

/** The router still proxies: a plain routed GET reaches the backend. */
async function expectUp(): Promise<void> {
  const r = await exchange(router.proxyUrl, head('GET', '/ok', routed()));
  expect([r.status, r.body]).toEqual([200, 'ok GET']);
}

describe('methods and request-targets', () => {
  it('answers every method token: proxied, or 405 naming it, never a dropped connection', async () => {
    for (const method of HOSTILE_METHODS) {
      const r = await exchange(router.proxyUrl, head(method, '/ok', routed()));
      if (['TRACE', 'TRACK', 'CONNECT', 'FOO', 'get', 'G\u00c9T'].includes(method)) {
        expect(r.status, method).toBe(405);
        expect(detail(r.body), method).toMatch(/^method ".*" is not supported by this server$/);
      } else {
        expect(r.status, method).toBe(200);
        if (method !== 'HEAD') expect(r.body, method).toBe(`ok ${method}`);
      }
    }
    await expectUp();
  });

  it('passes odd paths through as sent, routes absolute-form by its path, refuses overlong ones', async () => {
    for (const target of ['/a%zz', '/a%00b', '/a/../../etc/passwd', '/%2e%2e/x']) {
      const r = await exchange(router.proxyUrl, head('GET', target, routed()));
      expect(r.status, target).toBe(200);
      expect(seen).toBe(`GET ${target}`);
    }
    const absolute = await exchange(
      router.proxyUrl,
      head('GET', 'http://metadata.internal/ok?x=1', routed()),
    );
    expect([absolute.status, seen]).toEqual([200, 'GET /ok?x=1']);
    const long = await exchange(
      router.proxyUrl,
      head('GET', `/${'a'.repeat(17 * 1024)}`, routed()),
    );
    expect([long.status, detail(long.body)]).toEqual([
      431,
      'request line and headers exceed 16384 bytes',
    ]);
    await expectUp();
  });
});

describe('headers', () => {
  it('refuses oversized, duplicated and malformed headers', async () => {
    const big = await exchange(
      router.proxyUrl,
      head('GET', '/ok', routed({ 'X-Big': 'b'.repeat(17 * 1024) })),
    );
    expect(big.status).toBe(431);
    const twoHosts = await exchange(
      router.proxyUrl,
      `GET /ok HTTP/1.1\r\nHost: a\r\nHost: b\r\nX-Sandbox-ID: sb\r\nConnection: close\r\n\r\n`,
    );
    expect([twoHosts.status, detail(twoHosts.body)]).toEqual([
      400,
      'request has more than one Host header',
    ]);
    for (const bad of ['X-A: a\rb', 'X-B\u0000: c', 'Bad Name: x']) {
      const r = await exchange(router.proxyUrl, `GET /ok HTTP/1.1\r\nHost: a\r\n${bad}\r\n\r\n`);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(detail(r.body)).toMatch(/^malformed HTTP request \(HPE_[A-Z_]+\): \S/);
    }
    await expectUp();
  });

  it('refuses bad routing headers with upstream details', async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, RouterDetail.missingId],
      [{ 'X-Sandbox-ID': 'Not_A_Label' }, RouterDetail.badId],
      [
        { 'X-Sandbox-ID': 'sb', 'X-Sandbox-Namespace': '../kube-system' },
        RouterDetail.badNamespace,
      ],
      [{ 'X-Sandbox-ID': 'sb', 'X-Sandbox-Port': '70000' }, RouterDetail.badPort],
      [{ 'X-Sandbox-ID': 'sb', 'X-Sandbox-Port': 'abc' }, RouterDetail.badPort],
      [{ 'X-Sandbox-ID': 'sb', 'X-Sandbox-Pod-IP': '169.254.169.254' }, RouterDetail.badPodIp],
      [{ 'X-Sandbox-ID': 'sb', 'X-Sandbox-Pod-IP': 'not-an-ip' }, RouterDetail.badPodIp],
    ];
    for (const [headers, expected] of cases) {
      const r = await exchange(router.proxyUrl, head('GET', '/ok', headers));
      expect([r.status, detail(r.body)], JSON.stringify(headers)).toEqual([400, expected]);
    }
    // Two X-Sandbox-ID fields are joined by Node into "a, b": not a DNS label.
    const twice = await exchange(
      router.proxyUrl,
      'GET /ok HTTP/1.1\r\nHost: a\r\nX-Sandbox-ID: a\r\nX-Sandbox-ID: b\r\nConnection: close\r\n\r\n',
    );
    expect([twice.status, detail(twice.body)]).toEqual([400, RouterDetail.badId]);
    await expectUp();
  });

  it('answers an unknown sandbox (nothing resolves it) with 502 after the dial retries', async () => {
    const r = await exchange(
      router.proxyUrl,
      head('GET', '/ok', { 'X-Sandbox-ID': 'no-such-sandbox' }),
      {
        timeoutMs: 30_000,
      },
    );
    expect([r.status, detail(r.body)]).toEqual([
      502,
      RouterDetail.backendUnreachable('no-such-sandbox'),
    ]);
    await expectUp();
  });
});

describe('bodies', () => {
  it('survives bodies that lie about their length and bad chunk sizes', async () => {
    const longer = await exchange(
      router.proxyUrl,
      `${head('POST', '/ok', routed({ 'Content-Length': '100' }))}short`,
      { endAfterWrite: true },
    );
    expect(longer.closed).toBe(true);
    expect(longer.status === 0 || (longer.status >= 400 && longer.status < 600)).toBe(true);
    const shorter = await exchange(
      router.proxyUrl,
      `${head('POST', '/ok', routed({ 'Content-Length': '2', Connection: 'keep-alive' }))}{}GARBAGE\r\n\r\n`,
    );
    expect(`${shorter.status} ${shorter.body}`).toMatch(/405 .*GARBAGE.* is not supported/s);
    const chunked = await exchange(
      router.proxyUrl,
      `${head('POST', '/ok', routed({ 'Transfer-Encoding': 'chunked' }))}zz\r\nhello\r\n0\r\n\r\n`,
    );
    expect(chunked.status).toBe(400);
    expect(detail(chunked.body)).toMatch(/^malformed HTTP request \(HPE_INVALID_CHUNK_SIZE\)/);
    await expectUp();
  });
});

describe('backends that fail', () => {
  it('answers 502 when the backend closes before its head or never sends one', async () => {
    for (const path of ['/close-before', '/hang']) {
      const r = await exchange(router.proxyUrl, head('GET', path, routed()));
      expect([r.status, detail(r.body)], path).toEqual([
        502,
        RouterDetail.backendUnreachable('sb'),
      ]);
    }
    await expectUp();
  });

  it('cuts the client off when the backend closes mid-body (the 200 head has left)', async () => {
    const r = await exchange(router.proxyUrl, head('GET', '/close-mid', routed()));
    expect(r.status).toBe(200);
    expect(r.closed).toBe(true);
    expect(r.body.length).toBeLessThan(1000);
    await expectUp();
  });
});

describe('the boundary', () => {
  it('logged no router failure for any of the hostile input above', () => {
    expect(logged).toEqual([]);
  });
});

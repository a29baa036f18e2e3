// The router against dataplane §2 on real sockets: the embedded API server (Pods for the cache,
// TokenReview), a real sandboxd on loopback as the backend, and small echo servers where the
// test needs to see exactly what the router forwarded.
import { once } from 'node:events';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { kubeConfigFromFile, KubeClient, PODS } from '@agent-sandbox/kube';
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded API server (our envtest)
import { startTestApiServer, type TestApiServer } from '@agent-sandbox/apiserver/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintScopedToken } from './authz.ts';
import { startRouter, type RouterOptions, type RunningRouter } from './router.ts';
import type { AccessLogEntry } from './proxy.ts';
import { startSandboxdProcess } from './testing/sandboxd-process.ts';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}
function call(
  base: string,
  path: string,
  headers: Record<string, string> = {},
  init: { method?: string; body?: string | Buffer | Readable } = {},
): Promise<Reply> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: u.hostname, port: u.port, path, method: init.method ?? 'GET', headers },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    const b = init.body;
    if (b === undefined) req.end();
    else if (b instanceof Readable) b.pipe(req);
    else req.end(b);
  });
}

let api: TestApiServer;
let client: KubeClient;
let daemon: ChildProcess;
let daemonRoot: string;
let legacyPort: number;
let echo: Server;
let echoPort: number;
let lastEcho: IncomingHttpHeaders = {};
const routers: RunningRouter[] = [];
const logs: AccessLogEntry[] = [];

async function router(o: RouterOptions = {}): Promise<RunningRouter> {
  const r = await startRouter({
    proxy: { host: '127.0.0.1', port: 0 },
    upstreamRetryInitialDelayMs: 10,
    upstreamRetryMaxDelayMs: 20,
    accessLog: (e) => logs.push(e),
    ...o,
  });
  routers.push(r);
  return r;
}

beforeAll(async () => {
  api = await startTestApiServer();
  client = new KubeClient({ config: kubeConfigFromFile(api.kubeconfigPath) });
  daemonRoot = await mkdtemp(join(tmpdir(), 'router-sandboxd-'));
  const started = await startSandboxdProcess(join(daemonRoot, 'root'));
  daemon = started.child;
  legacyPort = Number(new URL(started.legacyUrl).port);
  echo = createServer((req, res) => {
    lastEcho = req.headers;
    if (req.url === '/stream') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first\n');
      setTimeout(() => res.end('second\n'), 300);
      return;
    }
    let n = 0;
    req.on('data', (c: Buffer) => (n += c.length));
    req.on('end', () =>
      res
        .writeHead(req.url === '/teapot' ? 418 : 200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ url: req.url, method: req.method, bytes: n })),
    );
  });
  echo.on('upgrade', (req, socket) => {
    lastEcho = req.headers;
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n',
    );
    socket.pipe(socket);
  });
  echo.listen(0, '127.0.0.1');
  await once(echo, 'listening');
  echoPort = (echo.address() as AddressInfo).port;
});
afterAll(async () => {
  await Promise.all(routers.map((r) => r.close()));
  echo.close();
  daemon.kill('SIGTERM');
  await rm(daemonRoot, { recursive: true, force: true });
  await client.close();
  await api.close();
});

const direct = (port: number, extra: Record<string, string> = {}) => ({
  'x-sandbox-id': 'sb',
  'x-sandbox-pod-ip': '127.0.0.1',
  'x-sandbox-port': String(port),
  ...extra,
});

describe('request contract', () => {
  it('/healthz needs no headers and shadows the sandbox', async () => {
    const r = await router();
    const res = await call(r.proxyUrl, '/healthz');
    expect([res.status, res.body, res.headers['content-type']]).toEqual([
      200,
      '{"status":"ok"}',
      'application/json',
    ]);
  });
  it.each([
    [{}, 'X-Sandbox-ID header is required.'],
    [{ 'x-sandbox-id': 'UPPER' }, 'Invalid sandbox ID format.'],
    [{ 'x-sandbox-id': 'a', 'x-sandbox-namespace': 'a_b' }, 'Invalid namespace format.'],
    [{ 'x-sandbox-id': 'a', 'x-sandbox-port': '99999' }, 'Invalid port format.'],
    [{ 'x-sandbox-id': 'a', 'x-sandbox-pod-ip': '169.254.169.254' }, 'Invalid target IP address.'],
    [{ 'x-sandbox-id': 'a', 'x-sandbox-pod-ip': '127.0.0.1' }, 'Invalid target IP address.'],
    [{ 'x-sandbox-id': 'a', 'x-sandbox-pod-ip': 'fe80::1' }, 'Invalid target IP address.'],
    [{ 'x-sandbox-id': 'a', 'x-sandbox-pod-ip': '0.0.0.0' }, 'Invalid target IP address.'],
    [{ 'x-sandbox-id': 'a', 'x-sandbox-pod-ip': 'fd00:ec2::254' }, 'Invalid target IP address.'],
    [{ 'x-sandbox-id': 'a', 'x-sandbox-pod-ip': '::ffff:127.0.0.1' }, 'Invalid target IP address.'],
    [{ 'x-sandbox-id': 'a', 'x-sandbox-pod-ip': '10.0.0.1:22' }, 'Invalid target IP address.'],
    [{ 'x-sandbox-id': 'a', 'x-sandbox-port': '-1' }, 'Invalid port format.'],
    [{ 'x-sandbox-id': 'a', 'x-sandbox-port': '0x50' }, 'Invalid port format.'],
  ])('400 %j', async (headers, detail) => {
    const r = await router();
    const res = await call(r.proxyUrl, '/execute', headers);
    expect([res.status, res.body, res.headers['content-type']]).toEqual([
      400,
      `{"detail":"${detail}"}\n`,
      'application/json',
    ]);
  });
  it('matches headers case-insensitively (X-Sandbox-Pod-Ip as the Go SDK sends it)', async () => {
    const r = await router({ allowLoopbackPodIp: true });
    const res = await call(r.proxyUrl, '/', {
      'X-Sandbox-Id': 'sb',
      'X-Sandbox-Pod-Ip': '127.0.0.1',
      'X-Sandbox-Port': String(legacyPort),
    });
    expect(res.status).toBe(200);
  });
});

describe('proxying to sandboxd', () => {
  it('carries the legacy runtime API: execute, chunked multipart upload, download, exists, upstream 4xx', async () => {
    const r = await router({ allowLoopbackPodIp: true });
    const exec = await call(
      r.proxyUrl,
      '/execute',
      { ...direct(legacyPort), 'content-type': 'application/json' },
      { method: 'POST', body: JSON.stringify({ command: 'echo via-router' }) },
    );
    expect(JSON.parse(exec.body)).toMatchObject({ stdout: 'via-router\n', exit_code: 0 });
    const boundary = 'xyzzy';
    const mp = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="r/f.txt"\r\n\r\nrouted\r\n--${boundary}--\r\n`;
    const up = await call(
      r.proxyUrl,
      '/upload',
      { ...direct(legacyPort), 'content-type': `multipart/form-data; boundary=${boundary}` },
      {
        method: 'POST',
        body: Readable.from([Buffer.from(mp.slice(0, 30)), Buffer.from(mp.slice(30))]),
      },
    );
    expect(up.status).toBe(200);
    expect((await call(r.proxyUrl, '/download/r%2Ff.txt', direct(legacyPort))).body).toBe('routed');
    expect(
      JSON.parse((await call(r.proxyUrl, '/exists/r%2Ff.txt', direct(legacyPort))).body),
    ).toEqual({ path: 'r/f.txt', exists: true });
    const missing = await call(r.proxyUrl, '/download/nope', direct(legacyPort));
    expect([missing.status, missing.body]).toEqual([404, '{"message":"File not found"}']);
  });
  it('forwards the raw path and query, HEAD, and strips Authorization, Host and Forwarded headers', async () => {
    const r = await router({ allowLoopbackPodIp: true });
    const res = await call(r.proxyUrl, '/a%2Fb/../c?x=%2F&y', {
      ...direct(echoPort),
      authorization: 'Bearer secret',
      forwarded: 'for=1.2.3.4',
      'x-forwarded-for': '6.6.6.6',
      'x-custom': 'kept',
      host: 'router.example',
    });
    expect(JSON.parse(res.body)).toEqual({ url: '/a%2Fb/../c?x=%2F&y', method: 'GET', bytes: 0 });
    expect(lastEcho.authorization).toBeUndefined();
    expect(lastEcho.forwarded).toBeUndefined();
    expect(lastEcho['x-forwarded-for']).toBe('127.0.0.1');
    expect(lastEcho['x-forwarded-host']).toBe('router.example');
    expect(lastEcho['x-forwarded-proto']).toBe('http');
    expect(lastEcho.host).toBe(`127.0.0.1:${echoPort}`);
    expect(lastEcho['x-custom']).toBe('kept');
    expect(lastEcho['x-sandbox-id']).toBe('sb'); // the Go router does not strip them
    expect((await call(r.proxyUrl, '/x', direct(echoPort), { method: 'HEAD' })).status).toBe(200);
    expect((await call(r.proxyUrl, '/teapot', direct(echoPort))).status).toBe(418);
  });
  it('streams responses without buffering', async () => {
    const r = await router({ allowLoopbackPodIp: true });
    const u = new URL(r.proxyUrl);
    const firstChunkAt = await new Promise<number>((resolve) => {
      const started = Date.now();
      request(
        { host: u.hostname, port: u.port, path: '/stream', headers: direct(echoPort) },
        (res) => res.once('data', () => resolve(Date.now() - started)),
      ).end();
    });
    expect(firstChunkAt).toBeLessThan(250);
  });
  it('passes upgrades through and drops Origin', async () => {
    const r = await router({ allowLoopbackPodIp: true });
    const u = new URL(r.proxyUrl);
    const s = connect(Number(u.port), u.hostname);
    await once(s, 'connect');
    const hdr = Object.entries({
      ...direct(echoPort),
      origin: 'http://evil',
      connection: 'Upgrade',
      upgrade: 'echo',
      host: 'x',
    })
      .map(([k, v]) => `${k}: ${v}`)
      .join('\r\n');
    s.write(`GET /ws HTTP/1.1\r\n${hdr}\r\n\r\n`);
    let got = '';
    s.on('data', (b: Buffer) => {
      got += b.toString();
      if (got.includes('\r\n\r\n') && !got.includes('ping')) s.write('ping');
    });
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (got.includes('ping')) {
          clearInterval(t);
          resolve();
        }
      }, 20);
    });
    s.destroy();
    expect(got).toMatch(/^HTTP\/1\.1 101/);
    expect(lastEcho.origin).toBeUndefined();
    expect(lastEcho.upgrade).toBe('echo');
  });
  it('502 after retrying dial failures only; counts retries and upstream errors', async () => {
    const r = await router({ allowLoopbackPodIp: true });
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    const res = await call(
      r.proxyUrl,
      '/execute',
      direct(port, { 'x-sandbox-id': 'gone', 'x-sandbox-namespace': 'team' }),
      { method: 'POST', body: '{}' },
    );
    expect([res.status, res.body]).toEqual([
      502,
      '{"detail":"Could not connect to the backend sandbox: gone"}\n',
    ]);
    const text = await r.metrics.registry.metrics();
    expect(text).toContain('sandbox_router_upstream_retries_total{sandbox_namespace="team"} 3');
    expect(text).toContain(
      'sandbox_router_upstream_errors_total{sandbox_namespace="team",reason="dial"} 1',
    );
    expect(text).not.toMatch(/sandbox_id|"gone"/);
  });
  it('falls back to <id>.<namespace>.svc.<domain> (502 when it does not resolve)', async () => {
    const r = await router({ upstreamMaxRetries: 1 });
    const res = await call(r.proxyUrl, '/', {
      'x-sandbox-id': 'no-such-sandbox',
      'x-sandbox-namespace': 'nowhere',
    });
    expect(res.status).toBe(502);
  });
  it('routes per-sandbox host names without headers (beyond upstream)', async () => {
    const r = await router({ allowLoopbackPodIp: true, sandboxDomain: 'sbx.test' });
    const res = await call(r.proxyUrl, '/hello', {
      host: `${echoPort}-sb.default.sbx.test`,
      'x-sandbox-pod-ip': '127.0.0.1',
    });
    expect(JSON.parse(res.body)).toMatchObject({ url: '/hello' });
  });
});

describe('Pod IP cache (informer on the embedded API server)', () => {
  it('resolves by Sandbox UID and by name; a warm-pool Pod only by UID', async () => {
    const mkPod = async (name: string, uid: string, labels: Record<string, string>) => {
      const pod = await client.create(PODS, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name,
          namespace: 'default',
          labels: { 'agents.x-k8s.io/sandbox-name-hash': 'h', ...labels },
          ownerReferences: [
            { apiVersion: 'agents.x-k8s.io/v1beta1', kind: 'Sandbox', name, uid, controller: true },
          ],
        },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      } as never);
      await client.updateStatus(PODS, {
        ...(pod as object),
        status: { podIP: '127.0.0.1', conditions: [{ type: 'Ready', status: 'True' }] },
      } as never);
    };
    await mkPod('cached-sb', 'uid-1', {});
    await mkPod('warm-sb', 'uid-2', { 'agents.x-k8s.io/warm-pool-sandbox': 'pool' });
    const r = await router({ client, cacheEnabled: true, upstreamMaxRetries: 0 });
    await new Promise((res) => setTimeout(res, 300));
    const byName = await call(r.proxyUrl, '/', {
      'x-sandbox-id': 'cached-sb',
      'x-sandbox-port': String(legacyPort),
    });
    expect(JSON.parse(byName.body)).toMatchObject({ status: 'ok' });
    const byUid = await call(r.proxyUrl, '/', {
      'x-sandbox-id': 'warm-sb',
      'x-sandbox-uid': 'uid-2',
      'x-sandbox-port': String(legacyPort),
    });
    expect(byUid.status).toBe(200);
    const warmByName = await call(r.proxyUrl, '/', {
      'x-sandbox-id': 'warm-sb',
      'x-sandbox-port': String(legacyPort),
    });
    expect(warmByName.status).toBe(502); // DNS fallback
  });
});

describe('authorization', () => {
  it('tokenreview: 401 for a bad token, allowed without one unless required, cached decisions', async () => {
    await fetch(`${api.url}/api/v1/namespaces/default/serviceaccounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'agent' },
      }),
    });
    const tr = await fetch(`${api.url}/api/v1/namespaces/default/serviceaccounts/agent/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: {},
      }),
    });
    const token = ((await tr.json()) as { status: { token: string } }).status.token;
    const r = await router({ client, authzMode: 'tokenreview', allowLoopbackPodIp: true });
    expect(
      (await call(r.proxyUrl, '/', { ...direct(legacyPort), authorization: `Bearer ${token}` }))
        .status,
    ).toBe(200);
    const bad = await call(r.proxyUrl, '/', {
      ...direct(legacyPort),
      authorization: 'Bearer nope',
    });
    expect([bad.status, bad.body]).toEqual([401, '{"detail":"unauthenticated"}\n']);
    expect((await call(r.proxyUrl, '/', direct(legacyPort))).status).toBe(200);
    const strict = await router({
      client,
      authzMode: 'tokenreview',
      allowLoopbackPodIp: true,
      tokenReview: { requireToken: true },
    });
    expect((await call(strict.proxyUrl, '/', direct(legacyPort))).status).toBe(401);
    expect(await r.metrics.registry.metrics()).toMatch(
      /sandbox_router_authz_decisions_total\{sandbox_namespace="default",decision="deny"\} 1/,
    );
  });
  it('scoped-token: bound to one sandbox, no redirecting headers', async () => {
    const secret = 'x'.repeat(40);
    const r = await router({
      authzMode: 'scoped-token',
      scopedTokenSecret: secret,
      allowLoopbackPodIp: true,
      upstreamMaxRetries: 0,
    });
    const token = mintScopedToken(secret, 'default', 'sb', 60);
    expect(
      (await call(r.proxyUrl, '/', { 'x-sandbox-id': 'sb', authorization: `Bearer ${token}` }))
        .status,
    ).toBe(502); // allowed, then DNS
    expect(
      (await call(r.proxyUrl, '/', { ...direct(legacyPort), authorization: `Bearer ${token}` }))
        .body,
    ).toBe('{"detail":"forbidden"}\n');
    expect(
      (await call(r.proxyUrl, '/', { 'x-sandbox-id': 'other', authorization: `Bearer ${token}` }))
        .status,
    ).toBe(403);
    expect((await call(r.proxyUrl, '/', { 'x-sandbox-id': 'sb' })).status).toBe(401);
    const expired = mintScopedToken(secret, 'default', 'sb', 1, Date.now() - 5000);
    expect(
      (await call(r.proxyUrl, '/', { 'x-sandbox-id': 'sb', authorization: `Bearer ${expired}` }))
        .status,
    ).toBe(401);
    await expect(
      startRouter({ authzMode: 'scoped-token', scopedTokenSecret: 'short' }),
    ).rejects.toThrow(/at least 32 bytes/);
  });
});

describe('probes, metrics, access log', () => {
  it('serves /healthz, /readyz and /metrics on their own ports and logs proxied requests', async () => {
    const r = await router({
      allowLoopbackPodIp: true,
      probe: { host: '127.0.0.1', port: 0 },
      metrics: { host: '127.0.0.1', port: 0 },
    });
    expect((await call(r.probeUrl!, '/readyz')).body).toBe('ok');
    expect((await call(r.probeUrl!, '/other')).status).toBe(404);
    await call(r.proxyUrl, '/', direct(legacyPort, { 'user-agent': 'ua-test' }));
    const m = await call(r.metricsUrl!, '/metrics');
    expect(m.body).toMatch(
      /sandbox_router_requests_total\{method="GET",code="200",sandbox_namespace="default"\} 1/,
    );
    expect(m.body).toContain('sandbox_router_request_duration_seconds_bucket');
    expect(logs.find((l) => l.user_agent === 'ua-test')).toMatchObject({
      method: 'GET',
      path: '/',
      status: 200,
      sandbox_id: 'sb',
      client_ip: '127.0.0.1',
    });
  });
});

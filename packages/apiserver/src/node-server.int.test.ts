// The Node adapter's error boundary (issue 15): no request, however malformed, crashes the
// server or answers a 5xx; every method kube-apiserver does not route is a 405.
import { METHODS } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestFailure } from './http/error-boundary.ts';
import { rawRequest, requestHead } from './testing/raw-http.ts';
import { startTestApiServer, type TestApiServer } from './testing/test-server.ts';

const ROUTED = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Tokens outside Node's method table: llhttp refuses them before any listener runs. */
const CUSTOM_TOKENS = ['FOO', 'get', 'BREW', 'X-CUSTOM', 'TRACK'];
const PATHS = [
  '/version',
  '/api/v1/namespaces/default/configmaps',
  '/apis',
  '/healthz',
  '/no/such/path',
];

describe('the Node adapter under hostile requests', () => {
  let s: TestApiServer;
  const failures: RequestFailure[] = [];

  beforeAll(async () => {
    s = await startTestApiServer({ onRequestError: (f) => failures.push(f) });
  });
  afterAll(async () => {
    await s.close();
  });

  async function healthy(): Promise<void> {
    const res = await rawRequest(s.url, requestHead('GET', '/healthz'));
    expect(res.status).toBe(200);
    expect(res.body).toBe('ok');
  }

  it('answers TRACE /version with 405 and keeps serving (it used to kill the process)', async () => {
    const res = await rawRequest(s.url, requestHead('TRACE', '/version'));
    expect(res.status).toBe(405);
    expect(JSON.parse(res.body)).toMatchObject({
      kind: 'Status',
      reason: 'MethodNotAllowed',
      message: 'the server does not allow this method on the requested resource',
      details: {},
      code: 405,
    });
    await healthy();
  });

  /** What kube-apiserver answers (measured against the harness's v1.36 with curl). */
  function kubeAnswer(method: string, path: string): number {
    if (!METHODS.includes(method)) return 400; // Node's parser (kube: 405)
    if (path === '/no/such/path') return 404;
    if (path === '/apis' || path === '/healthz') return 200; // plain handlers: any method
    if (method === 'GET') return 200;
    if (path === '/version') return 405;
    return ROUTED.includes(method) ? 0 : 405; // 0: a routed verb, answered by its handler
  }

  it('answers every HTTP method there is as kube does, without a crash or a 5xx', async () => {
    for (const method of [...METHODS, ...CUSTOM_TOKENS]) {
      for (const path of PATHS) {
        const res = await rawRequest(s.url, requestHead(method, path, { 'Content-Length': '0' }));
        const label = `${method} ${path}`;
        expect(res.status, label).toBeGreaterThanOrEqual(200);
        expect(res.status, label).toBeLessThan(500);
        const expected = kubeAnswer(method, path);
        if (expected !== 0) expect(res.status, label).toBe(expected);
      }
    }
    expect(failures).toEqual([]);
    await healthy();
  });

  it('refuses a malformed Host header and an invalid %-escape as Go does, with 400', async () => {
    const host = await rawRequest(s.url, requestHead('GET', '/version', { Host: 'a b[' }));
    expect(host).toMatchObject({ status: 400, body: '400 Bad Request: malformed Host header' });
    const escape = await rawRequest(
      s.url,
      requestHead('GET', '/api/v1/namespaces/%E0%A4%A/configmaps'),
    );
    expect(escape).toMatchObject({ status: 400, body: '400 Bad Request' });
    const notUtf8 = await rawRequest(s.url, requestHead('GET', '/api/v1/namespaces/%FF/pods/x'));
    expect(notUtf8.status).toBeLessThan(500);
    expect(failures).toEqual([]);
    await healthy();
  });

  it('survives a client that leaves mid-body and one that sends garbage', async () => {
    const head = requestHead('POST', '/api/v1/namespaces/default/configmaps', {
      'Content-Type': 'application/json',
      'Content-Length': '1000',
    });
    await rawRequest(s.url, `${head}{"kind":"Conf`, { timeoutMs: 200 });
    const garbage = await rawRequest(s.url, '\x00\x01\x02 not http at all\r\n\r\n');
    expect(garbage.status).toBe(400);
    expect(failures).toEqual([]);
    await healthy();
  });

  it('refuses a chunked body past 3 MiB with 413 while it streams in', async () => {
    const head = requestHead('POST', '/api/v1/namespaces/default/configmaps', {
      'Content-Type': 'application/json',
      'Transfer-Encoding': 'chunked',
    });
    const chunk = 'x'.repeat(512 * 1024);
    const chunks = Array.from({ length: 8 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    const res = await rawRequest(s.url, `${head}${chunks.join('')}0\r\n\r\n`);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({
      reason: 'RequestEntityTooLarge',
      message: 'Request entity too large: limit is 3145728',
    });
    expect(failures).toEqual([]);
    await healthy();
  });
});

// Slowloris against the daemon's HTTP listeners: headers trickled in are cut at the header
// deadline with a 408 (JSON, the REST error shape) while other clients are served.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type ListeningHttpServer } from './http-server.ts';

let server: ListeningHttpServer;

beforeAll(async () => {
  server = await serveHttp(async () => new Response('ok'), {
    host: '127.0.0.1',
    port: 0,
    headersTimeoutMs: 500,
    onError: () => new Response('boom', { status: 500 }),
  });
});
afterAll(async () => server?.close());

describe('slow clients', () => {
  it('cuts a slowloris header stream at the deadline while others are served', async () => {
    const started = Date.now();
    const socket = connect(server.port, '127.0.0.1');
    let got = '';
    socket.on('data', (d: Buffer) => (got += d.toString()));
    socket.on('error', () => undefined);
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n');
    const timer = setInterval(() => socket.writable && socket.write('X-Pad: a\r\n'), 100);
    expect(await (await fetch(`${server.url}/`)).text()).toBe('ok');
    await new Promise((r) => socket.once('close', r));
    clearInterval(timer);
    expect(got).toMatch(/^HTTP\/1\.1 408/);
    expect(got).toContain('"code":"DEADLINE_EXCEEDED"');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await (await fetch(`${server.url}/`)).text()).toBe('ok');
  });
});

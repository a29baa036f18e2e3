// A body the handler refuses (413) or never reads must not hold up, reset or crash the
// connection: the client gets the answer, and a kept-alive connection carries its next request.
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApiServer, type TestApiServer } from '../testing/test-server.ts';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
}

describe('request bodies left unread on a connection', () => {
  let s: TestApiServer;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  beforeAll(async () => {
    s = await startTestApiServer();
  });
  afterAll(async () => {
    agent.destroy();
    await s.close();
  });

  function send(method: string, path: string, body?: Buffer, chunked = false): Promise<Answer> {
    const url = new URL(path, s.url);
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (body !== undefined && !chunked) headers['Content-Length'] = String(body.length);
      const req = request(url, { method, agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      });
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  }

  const configMaps = '/api/v1/namespaces/default/configmaps';

  it('answers the next request on the connection after a 413 for a declared 3.2 MB body', async () => {
    const big = Buffer.alloc(3_200_000, 'x');
    const refused = await send('POST', configMaps, big);
    expect(refused.status).toBe(413);
    expect(refused.headers.connection).toBe('keep-alive');
    // It used to wait behind the unread body until the keep-alive timeout closed the socket.
    const next = await Promise.race([
      send('GET', '/readyz'),
      new Promise<Answer>((r) => setTimeout(() => r({ status: 0, headers: {} }), 3000)),
    ]);
    expect(next.status).toBe(200);
  });

  it('answers 413 and closes (without a reset) for a chunked body far past the limit', async () => {
    const refused = await send('POST', configMaps, Buffer.alloc(20 << 20, 'x'), true);
    expect(refused.status).toBe(413);
    expect(refused.headers.connection).toBe('close');
    expect((await send('GET', '/readyz')).status).toBe(200);
  });
});

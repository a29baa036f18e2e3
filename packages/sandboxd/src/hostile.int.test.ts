// Hostile input against the daemon's three listeners on real sockets (issue 15): every method
// token, malformed request-targets, oversized and malformed headers, bodies that lie about their
// length, bad chunk sizes, oversize uploads, garbage on the gRPC port and calls to services that
// do not exist. Each answer is a 4xx (or gRPC status) that names the problem, nothing is logged
// as a failure, and a normal request afterwards still succeeds.
import { connect as connectH2, constants as h2 } from 'node:http2';
import { connect } from 'node:net';
import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, head, HOSTILE_METHODS } from '@agent-sandbox/protocol/testing';
import { callUnary, upstreamProcessClient } from './testing/grpc-clients.ts';
import { multipart } from './testing/http.ts';
import { startTestDaemon, type TestDaemon } from './testing/daemon.ts';

const MAX_UPLOAD = 4096;
let d: TestDaemon;
const logged: { msg: string; fields: Record<string, unknown> }[] = [];

beforeAll(async () => {
  d = await startTestDaemon({
    maxUploadBytes: MAX_UPLOAD,
    log: (msg, fields) => logged.push({ msg, fields }),
  });
});
afterAll(() => d?.stop());

const LISTENERS = [
  { name: 'rest', url: () => d.restUrl!, health: '/v1/health', file: '/v1/files/f.txt' },
  { name: 'legacy', url: () => d.legacyUrl!, health: '/', file: '/download/f.txt' },
] as const;

/** The listener still serves: a plain GET of its health route answers 200. */
async function expectUp(url: string, health: string): Promise<void> {
  const r = await exchange(url, head('GET', health));
  expect(r.status).toBe(200);
}

const tempFiles = async () => (await readdir(d.root)).filter((n) => n.startsWith('.sandboxd-tmp-'));

const message = (body: string) => (JSON.parse(body) as { message: string }).message;

describe.each(LISTENERS)('$name listener', ({ url, health, file }) => {
  it('answers every method token with a status, never a 5xx or a dropped connection', async () => {
    for (const method of HOSTILE_METHODS) {
      const r = await exchange(url(), head(method, health));
      expect(r.status, method).toBeGreaterThanOrEqual(200);
      expect(r.status, method).toBeLessThan(500);
      if (['TRACE', 'TRACK', 'CONNECT', 'FOO', 'get'].includes(method)) {
        expect(r.status, method).toBe(405);
        expect(message(r.body), method).toBe(`method "${method}" is not supported by this server`);
      }
    }
    await expectUp(url(), health);
  });

  it('refuses malformed request-targets with a 4xx', async () => {
    const cases: [target: string, status: number[]][] = [
      [`${file.replace('f.txt', '')}%zz`, [400, 404]],
      [`${file.replace('f.txt', '')}a%00b`, [400, 403]],
      [`${file.replace('f.txt', '')}%2E%2E/%2E%2E/etc/passwd`, [403]],
      [`${file.replace('f.txt', '')}../../etc/passwd`, [301, 403, 404]],
      ['*', [404]],
    ];
    for (const [target, statuses] of cases) {
      const r = await exchange(url(), head('GET', target));
      expect(statuses, target).toContain(r.status);
    }
    const long = await exchange(url(), head('GET', `${health}?${'a'.repeat(17 * 1024)}`));
    expect(long.status).toBe(431);
    expect(message(long.body)).toBe('request line and headers exceed 16384 bytes');
    await expectUp(url(), health);
  });

  it('routes an absolute-form request-target by its path', async () => {
    const r = await exchange(url(), head('GET', `http://elsewhere.example${health}`));
    expect(r.status).toBe(200);
  });

  it('refuses oversized, duplicated and malformed headers', async () => {
    const big = await exchange(url(), head('GET', health, { 'X-Big': 'b'.repeat(17 * 1024) }));
    expect([big.status, message(big.body)]).toEqual([
      431,
      'request line and headers exceed 16384 bytes',
    ]);
    const twoHosts = await exchange(
      url(),
      `GET ${health} HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n`,
    );
    expect([twoHosts.status, message(twoHosts.body)]).toEqual([
      400,
      'request has more than one Host header',
    ]);
    for (const bad of ['X-A: a\rb', 'X-A: a\r\n b\r\nX-B\u0000: c', 'Bad Name: x']) {
      const r = await exchange(url(), `GET ${health} HTTP/1.1\r\nHost: a\r\n${bad}\r\n\r\n`);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(message(r.body)).toMatch(/^malformed HTTP request \(HPE_[A-Z_]+\): \S/);
    }
    await expectUp(url(), health);
  });

  it('survives bodies that lie about their length and bad chunk sizes', async () => {
    const upload = health === '/' ? '/execute' : '/v1/files/lied.txt';
    const method = health === '/' ? 'POST' : 'PUT';
    // Longer than sent, then the client stops: nothing is answered, nothing is left behind.
    const longer = await exchange(
      url(),
      `${head(method, upload, { 'Content-Length': '100' })}{"comm`,
      { endAfterWrite: true },
    );
    expect(longer.closed).toBe(true);
    expect(longer.status === 0 || (longer.status >= 400 && longer.status < 500)).toBe(true);
    // Shorter than sent: the rest is parsed as a next request, which is refused (the first one
    // may still be running then; its answer is dropped with the connection, as Node's would be).
    const shorter = await exchange(
      url(),
      `${head(method, upload, { 'Content-Length': '2', Connection: 'keep-alive' })}{}GARBAGE\r\n\r\n`,
    );
    expect(`${shorter.status} ${shorter.body}`).toMatch(
      /(^|HTTP\/1\.1 )405 .*GARBAGE.* is not supported/s,
    );
    const chunked = await exchange(
      url(),
      `${head(method, upload, { 'Transfer-Encoding': 'chunked' })}zz\r\nhello\r\n0\r\n\r\n`,
    );
    expect(chunked.status).toBe(400);
    expect(message(chunked.body)).toMatch(/^malformed HTTP request \(HPE_INVALID_CHUNK_SIZE\)/);
    const both = await exchange(
      url(),
      `${head(method, upload, { 'Transfer-Encoding': 'chunked', 'Content-Length': '5' })}0\r\n\r\n`,
    );
    expect(both.status).toBe(400);
    // Each cut upload's temp file is removed once its handler sees the body fail.
    await expect.poll(() => tempFiles(), { timeout: 10_000 }).toEqual([]);
    await expectUp(url(), health);
  });
});

describe('size limits', () => {
  it('REST: a declared or streamed upload over --max-upload-bytes is a 413 naming the flag', async () => {
    const declared = await exchange(
      d.restUrl!,
      head('PUT', '/v1/files/big.bin', { 'Content-Length': String(MAX_UPLOAD + 1) }),
    );
    expect(declared.status).toBe(413);
    expect(message(declared.body)).toContain('--max-upload-bytes');
    const body = 'x'.repeat(MAX_UPLOAD + 10);
    const streamed = await exchange(
      d.restUrl!,
      `${head('PUT', '/v1/files/big.bin', { 'Transfer-Encoding': 'chunked' })}${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    expect(streamed.status).toBe(413);
    expect(message(streamed.body)).toContain('--max-upload-bytes');
    expect(await readdir(d.root)).not.toContain('big.bin');
    await expectUp(d.restUrl!, '/v1/health');
  });

  it('legacy: an oversize /upload and a /execute body over 1 MiB are 413s', async () => {
    const form = multipart('big.bin', 'x'.repeat(MAX_UPLOAD + 10));
    const upload = await exchange(
      d.legacyUrl!,
      Buffer.concat([
        Buffer.from(
          head('POST', '/upload', {
            'Content-Type': form.contentType,
            'Content-Length': String(form.body.length),
          }),
        ),
        form.body,
      ]),
    );
    expect(upload.status).toBe(413);
    expect(message(upload.body)).toContain('--max-upload-bytes');
    const huge = JSON.stringify({ command: 'x'.repeat(1024 * 1024) });
    const execute = await exchange(
      d.legacyUrl!,
      `${head('POST', '/execute', { 'Content-Length': String(huge.length) })}${huge}`,
    );
    expect(execute.status).toBe(413);
    expect(message(execute.body)).toContain('execute body');
    await expectUp(d.legacyUrl!, '/');
  });
});

describe('gRPC listener', () => {
  const execute = async () => {
    const client = upstreamProcessClient(d.grpcAddress!);
    try {
      return await callUnary<{ exit_code: number; stdout: Buffer }>(client, 'Execute', {
        config: { command: ['/bin/echo', 'up'] },
      });
    } finally {
      client.close();
    }
  };

  it('ends a connection that does not speak HTTP/2 with GOAWAY and keeps serving', async () => {
    const at = d.grpcAddress!.lastIndexOf(':');
    const [host, port] = [d.grpcAddress!.slice(0, at), Number(d.grpcAddress!.slice(at + 1))];
    for (const garbage of ['GET / HTTP/1.1\r\nHost: x\r\n\r\n', '\u0000\u00ff'.repeat(512)]) {
      const socket = connect(port, host);
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', () => undefined);
      socket.write(garbage);
      await new Promise((resolve) => socket.once('close', resolve));
      // HTTP/2 frames: 3-byte length, 1-byte type (7 = GOAWAY), flags, stream id, payload.
      const bytes = Buffer.concat(chunks);
      const types: number[] = [];
      for (let i = 0; i + 9 <= bytes.length; i += 9 + bytes.readUIntBE(i, 3))
        types.push(bytes[i + 3]!);
      expect(types).toContain(7);
    }
    expect((await execute()).stdout.toString()).toBe('up\n');
  });

  it('answers an unknown service or method with UNIMPLEMENTED and a bad message with a status', async () => {
    const session = connectH2(`http://${d.grpcAddress!}`);
    session.on('error', () => undefined);
    const call = (path: string, body: Buffer) =>
      new Promise<{ status: string; message: string }>((resolve) => {
        const stream = session.request({
          [h2.HTTP2_HEADER_METHOD]: 'POST',
          [h2.HTTP2_HEADER_PATH]: path,
          'content-type': 'application/grpc',
          te: 'trailers',
        });
        let got: Record<string, unknown> = {};
        stream.on('response', (h) => (got = { ...got, ...h }));
        stream.on('trailers', (t) => (got = { ...got, ...t }));
        stream.on('data', () => undefined);
        stream.on('close', () =>
          resolve({
            status: String(got['grpc-status']),
            message: decodeURIComponent(String(got['grpc-message'] ?? '')),
          }),
        );
        stream.end(body);
      });
    const frame = (payload: Buffer) => {
      const prefix = Buffer.alloc(5);
      prefix.writeUInt32BE(payload.length, 1);
      return Buffer.concat([prefix, payload]);
    };
    const empty = frame(Buffer.alloc(0));
    const unknownService = await call('/no.such.Service/Run', empty);
    expect(unknownService.status).toBe('12');
    expect(unknownService.message).toContain('/no.such.Service/Run');
    const unknownMethod = await call('/process.v1.ProcessService/Nope', empty);
    expect(unknownMethod.status).toBe('12');
    // A message that is not protobuf, and a frame shorter than its length prefix.
    const garbage = await call(
      '/process.v1.ProcessService/Execute',
      frame(Buffer.from([0xff, 0xff, 0xff])),
    );
    expect(garbage.status).not.toBe('0');
    const truncated = await call(
      '/process.v1.ProcessService/Execute',
      Buffer.from([0, 0, 0, 0, 9, 1]),
    );
    expect(truncated.status).not.toBe('0');
    session.close();
    expect((await execute()).stdout.toString()).toBe('up\n');
  });
});

describe('the boundaries', () => {
  it('logged no failure for any of the hostile input above', () => {
    expect(logged).toEqual([]);
  });
});

// The legacy runtime API on a real socket against dataplane §5, §13.4 and §13.9.
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart, raw } from './testing/http.ts';
import { startTestDaemon, type TestDaemon } from './testing/daemon.ts';

let d: TestDaemon;
let url: string;
const post = (target: string, value: unknown) =>
  raw(url, target, {
    method: 'POST',
    body: JSON.stringify(value),
    headers: { 'content-type': 'application/json' },
  });

beforeAll(async () => {
  d = await startTestDaemon({
    grpcPort: -1,
    restPort: -1,
    maxUploadBytes: 64 * 1024,
    maxProcesses: 4,
  });
  url = d.legacyUrl!;
  await mkdir(path.join(d.root, 'dir'), { recursive: true });
  await writeFile(path.join(d.root, 'dir/a.txt'), 'A');
  await writeFile(path.join(d.base, 'secret.txt'), 'outside');
  await symlink(path.join(d.base, 'secret.txt'), path.join(d.root, 'escape'));
  await symlink(d.base, path.join(d.root, 'outside'));
});
afterAll(() => d.stop());

describe('GET / and unknown routes', () => {
  it('reports the runtime as active in compact JSON', async () => {
    const r = await raw(url, '/');
    expect([r.status, r.text]).toEqual([
      200,
      '{"status":"ok","message":"Sandbox Runtime is active."}',
    ]);
  });
  it('404 / 405 in FastAPI form; HEAD is 405', async () => {
    expect((await raw(url, '/nothing')).json()).toEqual({ detail: 'Not Found' });
    const m = await raw(url, '/execute');
    expect([m.status, m.json()]).toEqual([405, { detail: 'Method Not Allowed' }]);
    expect((await raw(url, '/download/dir%2Fa.txt', { method: 'HEAD' })).status).toBe(405);
  });
});

describe('POST /execute', () => {
  it('runs a shlex-split command without a shell in the root', async () => {
    const r = await post('/execute', {
      command: `sh -c 'echo "$0 out"; echo err >&2; pwd; exit 3' x`,
    });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({
      stdout: `x out\n${d.root}\n`,
      stderr: 'err\n',
      exit_code: 3,
      timed_out: false,
    });
    const noShell = await post('/execute', { command: 'echo a | wc' });
    expect(noShell.json<{ stdout: string }>().stdout).toBe('a | wc\n');
  });
  it('reports failures as 200 with exit_code 1 in python-runtime words', async () => {
    expect((await post('/execute', { command: 'no-such-binary-xyz' })).json()).toEqual({
      stdout: '',
      stderr:
        "Failed to execute command: [Errno 2] No such file or directory: 'no-such-binary-xyz'",
      exit_code: 1,
      timed_out: false,
    });
    expect(
      (await post('/execute', { command: 'echo "open' })).json<{ stderr: string }>().stderr,
    ).toBe('Failed to execute command: No closing quotation');
    expect((await post('/execute', { command: '' })).json<{ stderr: string }>().stderr).toBe(
      'Failed to execute command: list index out of range',
    );
  });
  it('honours timeout_seconds: kills the whole group and sets timed_out', async () => {
    const started = Date.now();
    const r = await post('/execute', {
      command: `sh -c 'sleep 30 & sleep 30'`,
      timeout_seconds: 0.5,
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.json()).toMatchObject({ exit_code: 1, timed_out: true, stdout: '' });
    expect(r.json<{ stderr: string }>().stderr).toContain('timed out after 0.5 seconds');
  });
  it('ignores unknown fields and reports validation errors as 422', async () => {
    expect(
      (await post('/execute', { command: 'true', extra: 1 })).json<{ exit_code: number }>()
        .exit_code,
    ).toBe(0);
    const missing = await post('/execute', {});
    expect([missing.status, missing.json()]).toEqual([
      422,
      { detail: [{ type: 'missing', loc: ['body', 'command'], msg: 'Field required', input: {} }] },
    ]);
    const wrongType = await post('/execute', { command: 5 });
    expect(wrongType.json<{ detail: { type: string }[] }>().detail[0]!.type).toBe('string_type');
    const badJson = await raw(url, '/execute', {
      method: 'POST',
      body: '{nope',
      headers: { 'content-type': 'application/json' },
    });
    expect([
      badJson.status,
      badJson.json<{ detail: { type: string }[] }>().detail[0]!.type,
    ]).toEqual([422, 'json_invalid']);
    const badTimeout = await post('/execute', { command: 'true', timeout_seconds: -1 });
    expect(badTimeout.json<{ detail: { loc: string[] }[] }>().detail[0]!.loc).toEqual([
      'body',
      'timeout_seconds',
    ]);
  });
  it('answers in one write with Content-Length, also with a query on the target', async () => {
    const r = await post('/execute?trace=1', { command: 'echo fast' });
    expect([r.status, r.headers['transfer-encoding']]).toEqual([200, undefined]);
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    expect(r.json<{ stdout: string }>().stdout).toBe('fast\n');
  });
  it('kills the command when its client goes away before the answer', async () => {
    const pidFile = path.join(d.root, 'gone.pid');
    const req = request(`${url}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    req.on('error', () => undefined);
    req.end(JSON.stringify({ command: `sh -c 'echo $$ > ${pidFile}; exec sleep 30'` }));
    await expect
      .poll(() => readFile(pidFile, 'utf8').catch(() => ''), { timeout: 10_000 })
      .toMatch(/^\d+\n$/);
    const pid = Number(await readFile(pidFile, 'utf8'));
    req.destroy();
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await expect.poll(alive, { timeout: 10_000 }).toBe(false);
  });
  it('refuses a flood beyond --max-processes with 503 (nothing ran, so retrying is safe)', async () => {
    const slow = Array.from({ length: 4 }, () => post('/execute', { command: 'sleep 1' }));
    await new Promise((r) => setTimeout(r, 200));
    const refused = await post('/execute', { command: 'echo should-not-run' });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json<{ message: string }>().message).toMatch(
      /too many running processes \(limit 4/,
    );
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await post('/execute', { command: 'echo ok' })).json<{ stdout: string }>().stdout).toBe(
      'ok\n',
    );
  });
});

describe('POST /upload', () => {
  it('writes the part to the path its filename names, creating parents', async () => {
    const m = multipart('up/nested/f.txt', 'content');
    const r = await raw(url, '/upload', {
      method: 'POST',
      body: m.body,
      headers: { 'content-type': m.contentType },
    });
    expect([r.status, r.text]).toEqual([
      200,
      `{"message":"File 'up/nested/f.txt' uploaded successfully."}`,
    ]);
    expect(await readFile(path.join(d.root, 'up/nested/f.txt'), 'utf8')).toBe('content');
  });
  it('accepts a chunked multipart body', async () => {
    const m = multipart('chunked.txt', 'streamed');
    const body = Readable.from([m.body.subarray(0, 20), m.body.subarray(20)]);
    const r = await raw(url, '/upload', {
      method: 'POST',
      body,
      headers: { 'content-type': m.contentType },
    });
    expect(r.status).toBe(200);
    expect(await readFile(path.join(d.root, 'chunked.txt'), 'utf8')).toBe('streamed');
  });
  it('403 Access denied for escapes, 422 without a file part, 413 when too large', async () => {
    for (const name of ['../evil.txt', 'escape', 'outside/evil.txt', 'outside/newdir/evil.txt']) {
      const m = multipart(name, 'x');
      const r = await raw(url, '/upload', {
        method: 'POST',
        body: m.body,
        headers: { 'content-type': m.contentType },
      });
      expect([r.status, r.text]).toEqual([403, '{"message":"Access denied"}']);
    }
    expect(await readFile(path.join(d.base, 'secret.txt'), 'utf8')).toBe('outside');
    expect((await readdir(d.base)).filter((n) => n === 'evil.txt' || n === 'newdir')).toEqual([]);
    const none = multipart('x', 'y', 'other');
    const r = await raw(url, '/upload', {
      method: 'POST',
      body: none.body,
      headers: { 'content-type': none.contentType },
    });
    expect(r.status).toBe(422);
    const big = multipart('big.bin', Buffer.alloc(200 * 1024));
    const tooBig = await raw(url, '/upload', {
      method: 'POST',
      body: Readable.from([big.body]),
      headers: { 'content-type': big.contentType },
    });
    expect(tooBig.status).toBe(413);
  });
});

describe('GET /download, /list, /exists', () => {
  it('downloads with a Content-Disposition; 404 for missing files and directories', async () => {
    const r = await raw(url, '/download/dir%2Fa.txt');
    expect([r.status, r.text, r.headers['content-type'], r.headers['content-disposition']]).toEqual(
      [200, 'A', 'application/octet-stream', 'attachment; filename="a.txt"'],
    );
    expect((await raw(url, '/download/dir%252Fa.txt')).text).toBe('A'); // decoded twice
    expect((await raw(url, '/download/dir')).text).toBe('{"message":"File not found"}');
    expect((await raw(url, '/download/nope')).status).toBe(404);
    expect((await raw(url, '/download/%2E%2E%2Fsecret.txt')).text).toBe(
      '{"message":"Access denied"}',
    );
    expect((await raw(url, '/download/escape')).status).toBe(403);
  });
  it('lists as a bare array with float mod_time; the empty path is the root', async () => {
    const r = await raw(url, '/list/dir');
    const entries = r.json<{ name: string; size: number; type: string; mod_time: number }[]>();
    expect(entries).toEqual([
      { name: 'a.txt', size: 1, type: 'file', mod_time: expect.any(Number) },
    ]);
    const root = (await raw(url, '/list/')).json<{ name: string }[]>();
    expect(root.map((e) => e.name)).toContain('dir');
    expect((await raw(url, '/list/dir%2Fa.txt')).text).toBe(
      '{"message":"Path is not a directory"}',
    );
    expect((await raw(url, '/list/%2E%2E')).status).toBe(403);
  });
  it('exists answers with the decoded path', async () => {
    expect((await raw(url, '/exists/dir%2Fa.txt')).json()).toEqual({
      path: 'dir/a.txt',
      exists: true,
    });
    expect((await raw(url, '/exists/nope')).json()).toEqual({ path: 'nope', exists: false });
    expect((await raw(url, '/exists/%2E%2E%2Fsecret.txt')).status).toBe(403);
  });
});

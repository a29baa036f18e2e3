// The REST API on a real socket against dataplane §4.3: every route, status, JSON shape and
// message, including every error case and the path confinement rules.
import { mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart, raw } from './testing/http.ts';
import { startTestDaemon, type TestDaemon } from './testing/daemon.ts';

let d: TestDaemon;
let url: string;
const err = (code: string, message: string) => ({ code, message });

beforeAll(async () => {
  d = await startTestDaemon({
    grpcPort: -1,
    maxUploadBytes: 1024 * 1024,
    env: { SANDBOX_NAME: 'sb', SANDBOX_API_TOKEN: 'x', SANDBOX_DB_PASSWORD: 'y', OTHER: 'z' },
  });
  url = d.restUrl!;
  await writeFile(path.join(d.root, 'hello.txt'), 'hello world');
  await mkdir(path.join(d.root, 'dir/sub'), { recursive: true });
  await writeFile(path.join(d.root, 'dir/b.txt'), 'bb');
  await writeFile(path.join(d.root, 'dir/a.txt'), 'a');
  await writeFile(path.join(d.base, 'secret.txt'), 'outside');
  await mkdir(path.join(d.base, 'root-evil'));
  await writeFile(path.join(d.base, 'root-evil/x'), 'evil');
  await symlink(path.join(d.base, 'secret.txt'), path.join(d.root, 'dir/escape'));
  await symlink('a.txt', path.join(d.root, 'dir/link-to-a'));
  await symlink('missing', path.join(d.root, 'dir/broken'));
  await symlink(d.base, path.join(d.root, 'up'));
});
afterAll(() => d.stop());

describe('GET /v1/files', () => {
  it('serves a file as octet-stream with length, last-modified and ranges', async () => {
    const r = await raw(url, '/v1/files/hello.txt');
    expect(r.status).toBe(200);
    expect(r.text).toBe('hello world');
    expect(r.headers['content-type']).toBe('application/octet-stream');
    expect(r.headers['content-length']).toBe('11');
    expect(r.headers['accept-ranges']).toBe('bytes');
    const lm = r.headers['last-modified'] as string;
    expect(Date.parse(lm)).toBeGreaterThan(0);
    const part = await raw(url, '/v1/files/hello.txt', { headers: { range: 'bytes=6-' } });
    expect([part.status, part.text, part.headers['content-range']]).toEqual([
      206,
      'world',
      'bytes 6-10/11',
    ]);
    const bad = await raw(url, '/v1/files/hello.txt', { headers: { range: 'bytes=50-60' } });
    expect([bad.status, bad.headers['content-range']]).toEqual([416, 'bytes */11']);
    const cached = await raw(url, '/v1/files/hello.txt', { headers: { 'if-modified-since': lm } });
    expect(cached.status).toBe(304);
  });

  it('decodes %2F and serves nested files', async () => {
    const r = await raw(url, '/v1/files/dir%2Fa.txt');
    expect([r.status, r.text]).toEqual([200, 'a']);
  });

  it('lists a directory sorted by name, symlinks resolved, escaping and broken ones left out', async () => {
    const r = await raw(url, '/v1/files/dir');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    const body = r.json<{
      path: string;
      entries: { name: string; type: string; size: number; mode: string; modified_at: string }[];
    }>();
    expect(body.path).toBe('/dir');
    expect(body.entries.map((e) => [e.name, e.type, e.size])).toEqual([
      ['a.txt', 'file', 1],
      ['b.txt', 'file', 2],
      ['link-to-a', 'file', 1],
      ['sub', 'directory', expect.any(Number)],
    ]);
    expect(body.entries[0]!.mode).toBe('0644');
    expect(body.entries[3]!.mode).toBe('0755');
    expect(body.entries[0]!.modified_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('lists the root for an empty remainder, with [] for an empty directory', async () => {
    const root = await raw(url, '/v1/files/');
    expect(root.json<{ path: string }>().path).toBe('/');
    const empty = await raw(url, '/v1/files/dir/sub');
    expect(empty.json()).toEqual({ path: '/dir/sub', entries: [] });
  });

  it('HEAD is the existence probe: 200 with headers, 404 without a body', async () => {
    const ok = await raw(url, '/v1/files/hello.txt', { method: 'HEAD' });
    expect([ok.status, ok.headers['content-length'], ok.body.length]).toEqual([200, '11', 0]);
    const missing = await raw(url, '/v1/files/nope', { method: 'HEAD' });
    expect(missing.status).toBe(404);
  });

  it('404 for a missing path', async () => {
    const r = await raw(url, '/v1/files/nope.txt');
    expect(r.status).toBe(404);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.text).toBe(
      `${JSON.stringify(err('NOT_FOUND', 'path does not exist within the sandbox'))}\n`,
    );
  });

  it.each([
    ['..', '/v1/files/%2E%2E'],
    ['../secret.txt', '/v1/files/%2E%2E%2Fsecret.txt'],
    ['a/../../x', '/v1/files/a%2F%2E%2E%2F%2E%2E%2Fsecret.txt'],
    ['symlink to a file outside', '/v1/files/dir%2Fescape'],
    ['symlinked directory outside', '/v1/files/up%2Fsecret.txt'],
    ['prefix trick', '/v1/files/%2E%2E%2Froot-evil%2Fx'],
  ])('403 for an escape: %s', async (_name, target) => {
    const r = await raw(url, target);
    expect(r.status).toBe(403);
    expect(r.json()).toEqual(
      err('PERMISSION_DENIED', 'path traversal outside sandbox root is forbidden'),
    );
  });

  it('re-roots absolute paths and accepts paths already under the root', async () => {
    expect((await raw(url, '/v1/files/%2Fhello.txt')).text).toBe('hello world');
    const abs = encodeURIComponent(path.join(d.root, 'hello.txt'));
    expect((await raw(url, `/v1/files/${abs}`)).text).toBe('hello world');
  });
});

describe('PUT /v1/files', () => {
  it('writes raw bytes atomically with 204, creating parents, default mode 0644', async () => {
    const r = await raw(url, '/v1/files/new%2Fdeep%2Ff.bin', {
      method: 'PUT',
      body: Buffer.from([0, 1, 2, 255]),
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect([r.status, r.body.length]).toEqual([204, 0]);
    const f = path.join(d.root, 'new/deep/f.bin');
    expect([...(await readFile(f))]).toEqual([0, 1, 2, 255]);
    expect((await stat(f)).mode & 0o777).toBe(0o644);
    expect((await stat(path.join(d.root, 'new'))).mode & 0o777).toBe(0o755);
    expect(
      (await readdir(path.join(d.root, 'new/deep'))).filter((n) => n.startsWith('.sandboxd-tmp-')),
    ).toEqual([]);
  });

  it('applies ?mode= with chmod and rejects a bad mode before resolving the path', async () => {
    expect((await raw(url, '/v1/files/x.sh?mode=0750', { method: 'PUT', body: 'x' })).status).toBe(
      204,
    );
    expect((await stat(path.join(d.root, 'x.sh'))).mode & 0o777).toBe(0o750);
    const bad = await raw(url, '/v1/files/%2E%2E%2Fx?mode=777', { method: 'PUT', body: 'x' });
    expect([bad.status, bad.json()]).toEqual([
      400,
      err('INVALID_ARGUMENT', 'mode "777" must match ^0[0-7]{3}$'),
    ]);
  });

  it('accepts chunked bodies (no Content-Length)', async () => {
    const { Readable } = await import('node:stream');
    const r = await raw(url, '/v1/files/chunked.txt', {
      method: 'PUT',
      body: Readable.from([Buffer.from('ab'), Buffer.from('cd')]),
    });
    expect(r.status).toBe(204);
    expect(await readFile(path.join(d.root, 'chunked.txt'), 'utf8')).toBe('abcd');
  });

  it('takes the first "file" part of a multipart body', async () => {
    const m = multipart('ignored-name', 'from multipart');
    const r = await raw(url, '/v1/files/mp.txt', {
      method: 'PUT',
      body: m.body,
      headers: { 'content-type': m.contentType },
    });
    expect(r.status).toBe(204);
    expect(await readFile(path.join(d.root, 'mp.txt'), 'utf8')).toBe('from multipart');
    const other = multipart('x', 'y', 'other');
    const missing = await raw(url, '/v1/files/mp2.txt', {
      method: 'PUT',
      body: other.body,
      headers: { 'content-type': other.contentType },
    });
    expect([missing.status, missing.json()]).toEqual([
      400,
      err('INVALID_ARGUMENT', 'multipart body is missing the required "file" part'),
    ]);
    const broken = await raw(url, '/v1/files/mp3.txt', {
      method: 'PUT',
      body: 'garbage',
      headers: { 'content-type': 'multipart/form-data' },
    });
    expect(broken.status).toBe(400);
    expect(broken.json<{ message: string }>().message).toMatch(/^invalid multipart body: /);
  });

  it('400 when the target is a directory; 403 when it escapes', async () => {
    const dir = await raw(url, '/v1/files/dir', { method: 'PUT', body: 'x' });
    expect([dir.status, dir.json()]).toEqual([
      400,
      err('INVALID_ARGUMENT', 'target path is a directory'),
    ]);
    const esc = await raw(url, '/v1/files/dir%2Fescape', { method: 'PUT', body: 'x' });
    expect(esc.status).toBe(403);
    expect(await readFile(path.join(d.base, 'secret.txt'), 'utf8')).toBe('outside');
  });

  it.each([
    ['a new file in a symlinked directory outside', 'up%2Fplanted.txt'],
    ['parents created through a symlinked directory', 'up%2Fnewdir%2Fdeep%2Fplanted.txt'],
    ['a new file next to an escaping file link', 'dir%2Fescape%2Fplanted.txt'],
  ])('403 for a write through a symlink: %s, and nothing is created outside', async (_n, p) => {
    const r = await raw(url, `/v1/files/${p}`, { method: 'PUT', body: 'x' });
    expect(r.status).toBe(403);
    expect(r.json()).toEqual(
      err('PERMISSION_DENIED', 'path traversal outside sandbox root is forbidden'),
    );
    expect((await readdir(d.base)).filter((n) => n === 'planted.txt' || n === 'newdir')).toEqual(
      [],
    );
  });

  it('refuses an oversized upload (declared or streamed) with 413 and keeps the old file', async () => {
    await writeFile(path.join(d.root, 'keep.txt'), 'old');
    const big = Buffer.alloc(1024 * 1024 + 1, 1);
    const declared = await raw(url, '/v1/files/keep.txt', { method: 'PUT', body: big });
    expect(declared.status).toBe(413);
    expect(declared.json()).toEqual(
      err('RESOURCE_EXHAUSTED', 'request body exceeds the 1048576-byte limit (--max-upload-bytes)'),
    );
    const { Readable } = await import('node:stream');
    const streamed = await raw(url, '/v1/files/keep.txt', {
      method: 'PUT',
      body: Readable.from([big.subarray(0, 600_000), big.subarray(600_000)]),
    });
    expect(streamed.status).toBe(413);
    expect(await readFile(path.join(d.root, 'keep.txt'), 'utf8')).toBe('old');
    expect((await readdir(d.root)).filter((n) => n.startsWith('.sandboxd-tmp-'))).toEqual([]);
  });
});

describe('DELETE /v1/files', () => {
  it('removes a file (204) and 404s a missing one even with a bad recursive flag', async () => {
    await writeFile(path.join(d.root, 'gone.txt'), 'x');
    expect((await raw(url, '/v1/files/gone.txt', { method: 'DELETE' })).status).toBe(204);
    const missing = await raw(url, '/v1/files/gone.txt?recursive=maybe', { method: 'DELETE' });
    expect([missing.status, missing.json<{ code: string }>().code]).toEqual([404, 'NOT_FOUND']);
  });

  it('400 for a bad recursive flag on an existing path; Go booleans accepted', async () => {
    await mkdir(path.join(d.root, 'tree/a'), { recursive: true });
    const bad = await raw(url, '/v1/files/tree?recursive=yes', { method: 'DELETE' });
    expect([bad.status, bad.json()]).toEqual([
      400,
      err('INVALID_ARGUMENT', 'recursive "yes" must be a boolean'),
    ]);
    const conflict = await raw(url, '/v1/files/tree?recursive=F', { method: 'DELETE' });
    expect([conflict.status, conflict.json()]).toEqual([
      409,
      err('CONFLICT', 'directory is not empty; pass recursive=true to remove it'),
    ]);
    expect((await raw(url, '/v1/files/tree?recursive=T', { method: 'DELETE' })).status).toBe(204);
  });

  it('never removes the root: 409 without recursive, contents cleared with it', async () => {
    const solo = await startTestDaemon({ grpcPort: -1, legacyPort: -1 });
    try {
      await writeFile(path.join(solo.root, 'f'), 'x');
      await mkdir(path.join(solo.root, 'd/e'), { recursive: true });
      const no = await raw(solo.restUrl!, '/v1/files/', { method: 'DELETE' });
      expect([no.status, no.json()]).toEqual([
        409,
        err(
          'CONFLICT',
          'cannot delete the sandbox root; pass recursive=true to clear its contents',
        ),
      ]);
      expect(
        (await raw(solo.restUrl!, '/v1/files/?recursive=true', { method: 'DELETE' })).status,
      ).toBe(204);
      expect(await readdir(solo.root)).toEqual([]);
    } finally {
      await solo.stop();
    }
  });

  it('403 for an escape and leaves the outside file', async () => {
    const r = await raw(url, '/v1/files/%2E%2E%2Fsecret.txt', { method: 'DELETE' });
    expect(r.status).toBe(403);
    expect(await readFile(path.join(d.base, 'secret.txt'), 'utf8')).toBe('outside');
  });
});

describe('health, metadata and the mux defaults', () => {
  it('GET /v1/health', async () => {
    const r = await raw(url, '/v1/health');
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ status: 'ok', uptime_seconds: expect.any(Number) });
    expect((await raw(url, '/v1/health', { method: 'HEAD' })).status).toBe(200);
  });

  it('GET /v1/metadata shows prefixed names minus credentials', async () => {
    expect((await raw(url, '/v1/metadata')).json()).toEqual({ env: { SANDBOX_NAME: 'sb' } });
  });

  it('404 text for unknown paths, 405 with Allow for a wrong method, 301 for dot segments', async () => {
    const nf = await raw(url, '/v2/nothing');
    expect([nf.status, nf.text, nf.headers['content-type']]).toEqual([
      404,
      '404 page not found\n',
      'text/plain; charset=utf-8',
    ]);
    const na = await raw(url, '/v1/health', { method: 'POST' });
    expect([na.status, na.headers['allow']]).toEqual([405, 'GET, HEAD']);
    const fna = await raw(url, '/v1/files/x', { method: 'PATCH' });
    expect(fna.status).toBe(405);
    const dots = await raw(url, '/v1/files/a/../hello.txt');
    expect([dots.status, dots.headers['location']]).toEqual([301, '/v1/files/hello.txt']);
  });

  it('answers a malformed request with 400 and keeps serving', async () => {
    const net = await import('node:net');
    const port = new URL(url).port;
    const reply = await new Promise<string>((resolve) => {
      const s = net.connect(Number(port), '127.0.0.1', () =>
        s.write('GET /v1/health HTTP/1.1\r\nBad Header\r\n\r\n'),
      );
      let out = '';
      s.on('data', (b) => (out += b.toString()));
      s.on('close', () => resolve(out));
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect((await raw(url, '/v1/health')).status).toBe(200);
  });
});

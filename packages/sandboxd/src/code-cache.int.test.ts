// The code-cached bundle on the host, with the node that runs the tests: its boot script serves
// from the cache V8 accepts (`codeCache: used` on the serving line), and from source when the
// cache is missing or not V8's (`none`, `rejected`) — the same daemon either way.
import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCodeCachedBundle, type CodeCachedBundle } from './code-cache.ts';
import { raw } from './testing/http.ts';

let base: string;
let built: CodeCachedBundle;

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'sandboxd-code-cache-'));
  built = await buildCodeCachedBundle(path.join(base, 'cc'), process.execPath);
}, 60_000);

afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

/** Starts the boot script in `dir` to its serving line; the line, then the daemon killed. */
function serve(boot: string): Promise<Record<string, unknown>> {
  const flags = ['--root-dir', path.join(base, 'ws'), '--listen-host', '127.0.0.1'];
  for (const p of ['--rest-port', '--grpc-port', '--legacy-port']) flags.push(p, '0');
  const child = spawn(process.execPath, [boot, ...flags], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let text = '';
    child.on('exit', (code) => reject(new Error(`daemon exited ${code}: ${text}`)));
    child.stderr.on('data', (b: Buffer) => {
      text += b.toString();
      const line = text.split('\n').find((l) => l.includes('"serving"'));
      if (!line) return;
      child.removeAllListeners('exit');
      const parsed = JSON.parse(line) as Record<string, unknown>;
      raw(String(parsed.rest), '/v1/health').then(
        (r) => {
          child.kill('SIGKILL');
          resolve({ ...parsed, health: r.json() });
        },
        (err: unknown) => {
          child.kill('SIGKILL');
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  });
}

describe('the code-cached daemon bundle', () => {
  it('serves from the cache V8 accepts', async () => {
    const line = await serve(built.bootPath);
    expect(line).toMatchObject({ codeCache: 'used', health: { status: 'ok' } });
  }, 30_000);

  it('serves from source when the cache is not V8s, or missing', async () => {
    const copy = path.join(base, 'bad');
    await cp(path.dirname(built.bootPath), copy, { recursive: true });
    await writeFile(path.join(copy, path.basename(built.cachePath)), 'not a V8 code cache');
    expect(await serve(path.join(copy, 'sandboxd-boot.cjs'))).toMatchObject({
      codeCache: 'rejected',
      health: { status: 'ok' },
    });
    await rm(path.join(copy, path.basename(built.cachePath)));
    expect(await serve(path.join(copy, 'sandboxd-boot.cjs'))).toMatchObject({
      codeCache: 'none',
      health: { status: 'ok' },
    });
  }, 30_000);

  it('rejects with the reason when the cache cannot be made', async () => {
    await expect(
      buildCodeCachedBundle(path.join(base, 'no-node'), path.join(base, 'missing-node')),
    ).rejects.toThrow(/making the daemon's code cache/);
  }, 30_000);
});

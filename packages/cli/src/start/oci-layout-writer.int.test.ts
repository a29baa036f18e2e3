// The demo image path end to end except mmdebstrap itself: a real root filesystem tarball (made
// with tar from a directory holding the host's busybox) becomes a one-layer OCI layout in the
// cache, the node agent's ImageStore loads and unpacks it, and a second ensure is a cache hit.
import { ImageStore, loadOciLayout } from '@agent-sandbox/kubelet';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_IMAGE, DEMO_RECIPE, ensureDemoImage } from './demo-image.ts';
import type { RunHostCommand } from './system-packages.ts';

const BUSYBOX = '/bin/busybox';

describe.skipIf(!existsSync(BUSYBOX))('the demo image layout', () => {
  let base: string;
  let rootDir: string;
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'cli-oci-'));
    rootDir = join(base, 'root');
    await mkdir(join(rootDir, 'bin'), { recursive: true });
    await mkdir(join(rootDir, 'workspace'));
    await copyFile(BUSYBOX, join(rootDir, 'bin', 'busybox'));
    await writeFile(join(rootDir, 'etc-release'), 'demo root\n');
  });
  afterAll(async () => {
    if (base) await rm(base, { recursive: true, force: true });
  });

  // Stands in for mmdebstrap: writes a real tarball of rootDir where mmdebstrap would.
  const tarBuilder =
    (calls: string[][]): RunHostCommand =>
    async (file, args, o) => {
      calls.push([file, ...args]);
      o?.onLine?.('I: creating tarball...');
      execFileSync('tar', ['-C', rootDir, '-cf', args[args.length - 1] ?? '', '.']);
      return { code: 0, output: '' };
    };

  it('is written once into the cache, loads into the image store and unpacks', async () => {
    const cacheDir = join(base, 'cache');
    const calls: string[][] = [];
    const lines: string[] = [];
    const first = await ensureDemoImage({
      cacheDir,
      run: tarBuilder(calls),
      report: (l) => lines.push(l),
    });
    expect(first.cached).toBe(false);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.[0]).toBe('mmdebstrap');
    expect(lines).toContain('demo image: creating tarball...');
    const again = await ensureDemoImage({
      cacheDir,
      run: tarBuilder(calls),
      report: () => undefined,
    });
    expect(again).toEqual({ layoutDir: first.layoutDir, cached: true });
    expect(calls).toHaveLength(1);

    const store = new ImageStore(join(base, 'images'));
    const record = await loadOciLayout(store, first.layoutDir, DEMO_IMAGE);
    expect(record.name).toBe(DEMO_IMAGE);
    expect(record.layers).toHaveLength(1);
    expect(record.config.config?.Env).toEqual([
      'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    ]);
    const rootfs = await store.rootfs(record);
    expect(await readFile(join(rootfs, 'etc-release'), 'utf8')).toBe('demo root\n');
    expect(existsSync(join(rootfs, 'workspace'))).toBe(true);
    const index = JSON.parse(await readFile(join(first.layoutDir, 'index.json'), 'utf8')) as {
      manifests: { annotations: Record<string, string> }[];
    };
    expect(index.manifests[0]?.annotations['org.opencontainers.image.ref.name']).toBe(
      'bookworm-python3',
    );
  });

  it('leaves nothing that looks cached when the build fails', async () => {
    const cacheDir = join(base, 'cache-fail');
    const failing: RunHostCommand = async () => ({ code: 1, output: 'E: boom' });
    await expect(
      ensureDemoImage({ cacheDir, run: failing, report: () => undefined }),
    ).rejects.toThrow(/mmdebstrap exited 1/);
    const calls: string[][] = [];
    const r = await ensureDemoImage({ cacheDir, run: tarBuilder(calls), report: () => undefined });
    expect(r.cached).toBe(false);
    expect(calls).toHaveLength(1);
    expect(DEMO_RECIPE.packages).toContain('python3');
  });
});

// `agent-sandbox image load|ls|rm` on a temp data dir with the busybox test image as an OCI
// layout and as a docker-archive: what loads, what is listed, and each bad input's message and
// exit status; `image rm` of an image with a root the agent's pool mounted ahead (real mounts,
// root) counts only containers' roots and removes the pooled one. (With a running agent and
// container: packages/local's up test.)
import { ImageStore } from '@agent-sandbox/kubelet';
import { buildTestImage, type TestImage } from '@agent-sandbox/kubelet/testing';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandIO } from '../io.ts';
import { runImageList, runImageLoad, runImageRemove } from './image.ts';

let base: string;
let image: TestImage;
const dataDir = () => join(base, 'data');

function io(): CommandIO & { out: string; err: string } {
  const o = {
    out: '',
    err: '',
    stdout: (t: string) => void (o.out += t),
    stderr: (t: string) => void (o.err += t),
    stdin: () => '',
  };
  return o as unknown as CommandIO & { out: string; err: string };
}

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'asb-image-cli-'));
  image = await buildTestImage(join(base, 'build'));
});
afterAll(() => {
  for (const m of mountPoints(base)) execFileSync('umount', ['-l', m]);
  rmSync(base, { recursive: true, force: true });
});

function mountPoints(under: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4] ?? '')
    .filter((m) => m.startsWith(`${under}/`));
}

/** An overlay of `lower` with fresh upper and work directories in `dir`, merged mounted. */
function overlay(lower: string, dir: string): string {
  for (const d of ['upper', 'work', 'merged']) mkdirSync(join(dir, d), { recursive: true });
  const opts = `lowerdir=${lower},upperdir=${join(dir, 'upper')},workdir=${join(dir, 'work')}`;
  execFileSync('mount', ['-t', 'overlay', 'overlay', '-o', opts, join(dir, 'merged')]);
  return join(dir, 'merged');
}

describe('agent-sandbox image', () => {
  it('loads an OCI layout and a docker-archive, lists and removes them', async () => {
    const a = io();
    expect(await runImageLoad(image.layoutDir, { dataDir: dataDir(), name: 'my/tool:v1' }, a)).toBe(
      0,
    );
    expect(a.out).toMatch(
      /^loaded docker\.io\/my\/tool:v1 \(sha256:[0-9a-f]{64}, [\d.]+ [kM]B\)\n$/,
    );
    const b = io();
    expect(
      await runImageLoad(image.dockerArchive, { dataDir: dataDir(), name: 'localhost/arch' }, b),
    ).toBe(0);
    expect(b.out).toMatch(/^loaded localhost\/arch:latest /);
    const ls = io();
    expect(await runImageList({ dataDir: dataDir() }, ls)).toBe(0);
    const lines = ls.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+DIGEST\s+SIZE\s+STORED$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual([
      'docker.io/my/tool:v1',
      'localhost/arch:latest',
    ]);
    const rm = io();
    expect(await runImageRemove(['my/tool:v1', 'localhost/arch'], { dataDir: dataDir() }, rm)).toBe(
      0,
    );
    expect(rm.out).toBe('removed docker.io/my/tool:v1\nremoved localhost/arch:latest\n');
    const empty = io();
    await runImageList({ dataDir: dataDir() }, empty);
    expect(empty.out.trimEnd().split('\n')).toHaveLength(1);
  });

  it('rm removes the roots the agent mounted ahead, and counts only containers as users', async () => {
    const data = join(base, 'pooled');
    expect(await runImageLoad(image.layoutDir, { dataDir: data, name: 'pool/img:v1' }, io())).toBe(
      0,
    );
    const store = new ImageStore(join(data, 'node', 'images'));
    const record = await store.get('pool/img:v1');
    const lower = await store.rootfs(record ?? expect.fail('loaded image not in the store'));
    // As the agent's pool (ADR 0044) and a container (its root moved into the Pod's directory) have them.
    const pooled = overlay(lower, join(data, 'node', 'rootpool', '1-test'));
    const container = overlay(lower, join(data, 'node', 'pods', 'uid', 'containers', 'c-0', 'fs'));
    const refused = io();
    expect(await runImageRemove(['pool/img:v1'], { dataDir: data }, refused)).toBe(1);
    expect(refused.err).toBe(
      'error: image docker.io/pool/img:v1 is in use by 1 running container; delete the Pods or Sandboxes that use it first\n',
    );
    execFileSync('umount', [container]);
    const removed = io();
    expect(await runImageRemove(['pool/img:v1'], { dataDir: data }, removed)).toBe(0);
    expect(removed.out).toBe('removed docker.io/pool/img:v1\n');
    expect(mountPoints(data)).toEqual([]);
    expect(existsSync(join(pooled, '..'))).toBe(false);
    expect(existsSync(lower)).toBe(false);
  });

  it('refuses bad input naming it, with exit 2 for the command line and 1 otherwise', async () => {
    const cases: [() => Promise<number>, number, RegExp][] = [
      [
        () => runImageLoad(join(base, 'nope'), { dataDir: dataDir(), name: 'a/b' }, e),
        1,
        /^error: .*nope does not exist: give an OCI image layout directory or a docker-archive tarball\n$/,
      ],
      [
        () => runImageLoad(image.layoutDir, { dataDir: dataDir(), name: 'Bad/Name' }, e),
        2,
        /^error: --name: invalid image reference "Bad\/Name": .*; use NAME\[:TAG\], e\.g\. my\/tool:v1\n$/,
      ],
      [
        () => runImageLoad(base, { dataDir: dataDir(), name: 'a/b' }, e),
        1,
        /^error: .* is not an OCI image layout: it has no oci-layout file\n$/,
      ],
      [
        () => runImageLoad(join(base, 'junk.tar'), { dataDir: dataDir(), name: 'a/b' }, e),
        1,
        /^error: .*junk\.tar is not a docker-archive tarball \(.+\); give an OCI image layout directory or a `docker save` tarball\n$/,
      ],
      [
        () => runImageRemove(['never/loaded'], { dataDir: dataDir() }, e),
        1,
        /^error: image never\/loaded is not on this node \(see agent-sandbox image ls\)\n$/,
      ],
      [
        () => runImageRemove(['UPPER'], { dataDir: dataDir() }, e),
        2,
        /^error: image rm: invalid image reference "UPPER"/,
      ],
    ];
    writeFileSync(join(base, 'junk.tar'), 'not a tarball');
    let e = io();
    for (const [run, code, message] of cases) {
      e = io();
      expect(await run()).toBe(code);
      expect(e.err).toMatch(message);
    }
  });
});

// `agent-sandbox image load|ls|rm` on a temp data dir with the busybox test image as an OCI
// layout and as a docker-archive: what loads, what is listed, and each bad input's message and
// exit status. (Refusing an image a running container uses: packages/local's up test.)
import { buildTestImage, type TestImage } from '@agent-sandbox/kubelet/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
afterAll(() => rmSync(base, { recursive: true, force: true }));

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

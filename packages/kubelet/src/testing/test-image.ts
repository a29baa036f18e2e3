// A tiny real image built from Debian's busybox-static (/bin/busybox): two layers, the second
// with a whiteout and an opaque directory, written as an OCI layout and as a docker-archive.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';

export const BUSYBOX = '/bin/busybox';

export interface TestImage {
  /** The OCI layout directory. */
  layoutDir: string;
  /** A legacy `docker save` tarball of the same image. */
  dockerArchive: string;
  manifestDigest: string;
  manifest: Buffer;
  config: Buffer;
  /** digest → bytes of every blob (config and layers). */
  blobs: Map<string, Buffer>;
  layers: { digest: string; mediaType: string; size: number }[];
}

function digestOf(b: Buffer): string {
  return `sha256:${createHash('sha256').update(b).digest('hex')}`;
}

type Entry = {
  name: string;
  type?: 'file' | 'directory' | 'symlink';
  mode?: number;
  body?: Buffer;
  linkname?: string;
};

async function tarOf(entries: Entry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (c) => chunks.push(c as Buffer));
  const done = new Promise<void>((resolve) => pack.on('end', () => resolve()));
  const mtime = new Date(1_700_000_000_000);
  for (const e of entries) {
    const type = e.type ?? 'file';
    const header = {
      name: e.name,
      type,
      mode: e.mode ?? (type === 'directory' ? 0o755 : 0o644),
      mtime,
      uid: 0,
      gid: 0,
      ...(e.linkname ? { linkname: e.linkname } : {}),
    };
    await new Promise<void>((resolve, reject) =>
      type === 'file'
        ? pack.entry(header, e.body ?? Buffer.alloc(0), (err) => (err ? reject(err) : resolve()))
        : pack.entry(header, (err) => (err ? reject(err) : resolve())),
    );
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** Whether this machine can build the test image (Debian package busybox-static). */
export function hasBusybox(): boolean {
  return existsSync(BUSYBOX);
}

export async function buildTestImage(dir: string, refName = 'latest'): Promise<TestImage> {
  const applets = execFileSync(BUSYBOX, ['--list'], { encoding: 'utf8' })
    .split('\n')
    .filter((a) => a && a !== 'busybox');
  const base = await tarOf([
    { name: 'bin', type: 'directory' },
    { name: 'bin/busybox', mode: 0o755, body: readFileSync(BUSYBOX) },
    ...applets.map((a): Entry => ({ name: `bin/${a}`, type: 'symlink', linkname: 'busybox' })),
    { name: 'etc', type: 'directory' },
    {
      name: 'etc/passwd',
      body: Buffer.from(
        'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n',
      ),
    },
    { name: 'etc/group', body: Buffer.from('root:x:0:\nnogroup:x:65534:\n') },
    { name: 'etc/removed-later', body: Buffer.from('lower\n') },
    { name: 'opaque', type: 'directory' },
    { name: 'opaque/lower', body: Buffer.from('lower\n') },
    { name: 'root', type: 'directory', mode: 0o700 },
    { name: 'tmp', type: 'directory', mode: 0o1777 },
    { name: 'proc', type: 'directory' },
    { name: 'sys', type: 'directory' },
    { name: 'dev', type: 'directory' },
  ]);
  const top = await tarOf([
    { name: 'etc/.wh.removed-later' },
    { name: 'opaque/.wh..wh..opq' },
    { name: 'opaque/upper', body: Buffer.from('upper\n') },
    { name: 'etc/image-release', body: Buffer.from('agent-sandbox test image\n') },
  ]);
  const layerBlobs = [gzipSync(base), top];
  const layers = [
    {
      mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
      digest: digestOf(layerBlobs[0] as Buffer),
      size: (layerBlobs[0] as Buffer).length,
    },
    {
      mediaType: 'application/vnd.oci.image.layer.v1.tar',
      digest: digestOf(top),
      size: top.length,
    },
  ];
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: { Env: ['PATH=/bin', 'IMAGE_VAR=from-image'], Cmd: ['sh'], WorkingDir: '/' },
      rootfs: { type: 'layers', diff_ids: [digestOf(base), digestOf(top)] },
    }),
  );
  const configDesc = {
    mediaType: 'application/vnd.oci.image.config.v1+json',
    digest: digestOf(config),
    size: config.length,
  };
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: configDesc,
      layers,
    }),
  );
  const manifestDigest = digestOf(manifest);
  const blobs = new Map<string, Buffer>([
    [configDesc.digest, config],
    [layers[0]!.digest, layerBlobs[0]!],
    [layers[1]!.digest, top],
  ]);

  const layoutDir = join(dir, 'oci');
  await mkdir(join(layoutDir, 'blobs', 'sha256'), { recursive: true });
  for (const [d, b] of [...blobs, [manifestDigest, manifest] as const])
    await writeFile(join(layoutDir, 'blobs', 'sha256', d.slice(7)), b);
  await writeFile(join(layoutDir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  await writeFile(
    join(layoutDir, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest: manifestDigest,
          size: manifest.length,
          platform: { architecture: 'amd64', os: 'linux' },
          annotations: { 'org.opencontainers.image.ref.name': refName },
        },
      ],
    }),
  );

  const dockerArchive = join(dir, 'docker-archive.tar');
  const cfgName = `${configDesc.digest.slice(7)}.json`;
  await writeFile(
    dockerArchive,
    await tarOf([
      { name: cfgName, body: config },
      { name: 'l1', type: 'directory' },
      { name: 'l1/layer.tar', body: base },
      { name: 'l2', type: 'directory' },
      { name: 'l2/layer.tar', body: top },
      {
        name: 'manifest.json',
        body: Buffer.from(
          JSON.stringify([
            {
              Config: cfgName,
              RepoTags: ['test/busybox:v1'],
              Layers: ['l1/layer.tar', 'l2/layer.tar'],
            },
          ]),
        ),
      },
      { name: 'repositories', body: Buffer.from(JSON.stringify({ 'test/busybox': { v1: 'l2' } })) },
    ]),
  );
  return { layoutDir, dockerArchive, manifestDigest, manifest, config, blobs, layers };
}

// Writes a one-layer OCI image layout from a root filesystem tarball, without reading the
// tarball into memory: it is hashed as a stream, then moved into blobs/ (an uncompressed layer,
// so its digest is also its diff_id and loading it needs no gunzip).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

export interface ImageConfigSpec {
  env: string[];
  cmd: string[];
  workingDir: string;
}

const OCI = 'application/vnd.oci.image';

async function digestOfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return `sha256:${hash.digest('hex')}`;
}

const digestOf = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** The OCI architecture name of this Node's CPU (amd64, arm64, ...). */
export function ociArchitecture(arch: string = process.arch): string {
  return arch === 'x64' ? 'amd64' : arch === 'ia32' ? '386' : arch;
}

/** Moves `rootfsTar` into the layout at `dir` as its only layer, tagged `tag`. */
export async function writeSingleLayerLayout(
  dir: string,
  rootfsTar: string,
  image: ImageConfigSpec,
  tag: string,
): Promise<{ manifestDigest: string; sizeBytes: number }> {
  const blobs = join(dir, 'blobs', 'sha256');
  await mkdir(blobs, { recursive: true });
  const layerDigest = await digestOfFile(rootfsTar);
  const layerSize = (await stat(rootfsTar)).size;
  await rename(rootfsTar, join(blobs, layerDigest.slice(7)));
  const config = Buffer.from(
    JSON.stringify({
      architecture: ociArchitecture(),
      os: 'linux',
      config: { Env: image.env, Cmd: image.cmd, WorkingDir: image.workingDir },
      rootfs: { type: 'layers', diff_ids: [layerDigest] },
    }),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: `${OCI}.manifest.v1+json`,
      config: { mediaType: `${OCI}.config.v1+json`, digest: digestOf(config), size: config.length },
      layers: [{ mediaType: `${OCI}.layer.v1.tar`, digest: layerDigest, size: layerSize }],
    }),
  );
  const manifestDigest = digestOf(manifest);
  for (const [d, b] of [
    [digestOf(config), config],
    [manifestDigest, manifest],
  ] as const)
    await writeFile(join(blobs, d.slice(7)), b);
  await writeFile(join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  await writeFile(
    join(dir, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      mediaType: `${OCI}.index.v1+json`,
      manifests: [
        {
          mediaType: `${OCI}.manifest.v1+json`,
          digest: manifestDigest,
          size: manifest.length,
          platform: { architecture: ociArchitecture(), os: 'linux' },
          annotations: { 'org.opencontainers.image.ref.name': tag },
        },
      ],
    }),
  );
  return { manifestDigest, sizeBytes: layerSize + config.length + manifest.length };
}

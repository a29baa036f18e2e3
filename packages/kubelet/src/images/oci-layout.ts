// Loading images from an OCI image layout directory (§4.1) or a `docker save` tarball (§4.6).
import { createReadStream, existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImageError } from '../errors.ts';
import { sha256 } from './blob-store.ts';
import type { ImageRecord, ImageStore } from './image-store.ts';
import { unpackLayer } from './layer-unpack.ts';
import {
  INDEX_TYPES,
  MediaType,
  hostPlatform,
  selectPlatform,
  type Descriptor,
  type ImageIndex,
} from './oci-types.ts';

const REF_NAME = 'org.opencontainers.image.ref.name';

async function readJson<T>(path: string, what: string): Promise<T> {
  const text = await readFile(path, 'utf8').catch((e: Error) => {
    throw new ImageError('ImageFormat', `cannot read ${what} (${path}): ${e.message}`);
  });
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ImageError('ImageFormat', `${what} (${path}) is not JSON`);
  }
}

function blobPath(dir: string, digest: string): string {
  const [alg, hex] = digest.split(':');
  return join(dir, 'blobs', alg ?? '', hex ?? '');
}

/**
 * Loads the image of an OCI layout into `store` as `name`. The index entry is chosen by its
 * `org.opencontainers.image.ref.name` (the tag of `name`, or the only entry), nested indexes
 * are followed and the host platform selected.
 */
export async function loadOciLayout(
  store: ImageStore,
  dir: string,
  name: string,
): Promise<ImageRecord> {
  if (!existsSync(join(dir, 'oci-layout')))
    throw new ImageError(
      'ImageFormat',
      `${dir} is not an OCI image layout: it has no oci-layout file`,
    );
  const index = await readJson<ImageIndex>(join(dir, 'index.json'), 'index.json');
  const tag = name.includes(':') ? name.slice(name.lastIndexOf(':') + 1) : 'latest';
  const entries = index.manifests ?? [];
  const chosen =
    entries.length === 1
      ? entries[0]
      : (entries.find((d) => d.annotations?.[REF_NAME] === tag) ??
        entries.find((d) => d.annotations?.[REF_NAME]?.endsWith(`:${tag}`)));
  if (!chosen) {
    const names = entries.map((d) => d.annotations?.[REF_NAME] ?? d.digest).join(', ');
    throw new ImageError(
      'ImageFormat',
      `${dir}: no index entry is named "${tag}" (entries: ${names})`,
    );
  }
  const manifestDesc = await resolveIndex(dir, chosen);
  const bytes = await readFile(blobPath(dir, manifestDesc.digest));
  if (sha256(bytes) !== manifestDesc.digest)
    throw new ImageError(
      'DigestMismatch',
      `${dir}: manifest blob does not hash to ${manifestDesc.digest}`,
    );
  return store.importManifest(name, bytes, async (d) => createReadStream(blobPath(dir, d.digest)));
}

async function resolveIndex(dir: string, d: Descriptor): Promise<Descriptor> {
  for (let depth = 0; depth < 4 && INDEX_TYPES.has(d.mediaType); depth++) {
    const nested = JSON.parse(
      (await readFile(blobPath(dir, d.digest))).toString('utf8'),
    ) as ImageIndex;
    const next = selectPlatform(nested, hostPlatform());
    if (!next)
      throw new ImageError(
        'ImageFormat',
        `${dir}: no manifest for ${hostPlatform().os}/${hostPlatform().architecture}`,
      );
    d = next;
  }
  return d;
}

interface LegacyManifestEntry {
  Config: string;
  RepoTags?: string[];
  Layers: string[];
}

/** Loads a `docker save` tarball (legacy or Docker 25+, optionally gzip) into `store`. */
export async function loadDockerArchive(
  store: ImageStore,
  path: string,
  name?: string,
): Promise<ImageRecord> {
  const dir = await mkdtemp(join(tmpdir(), 'asb-archive-'));
  try {
    // The archive is just files: unpacking it like a layer reuses the safe extraction.
    await unpackLayer(createReadStream(path), dir);
    if (existsSync(join(dir, 'oci-layout')) && existsSync(join(dir, 'index.json')) && name)
      return await loadOciLayout(store, dir, name);
    const entries = await readJson<LegacyManifestEntry[]>(
      join(dir, 'manifest.json'),
      'manifest.json of the archive',
    );
    const entry = entries[0];
    if (!entry) throw new ImageError('ImageFormat', `${path}: manifest.json lists no image`);
    const ref = name ?? entry.RepoTags?.[0];
    if (!ref)
      throw new ImageError('ImageFormat', `${path} has no RepoTags; pass --name NAME[:TAG]`);
    const config = await readFile(join(dir, entry.Config));
    const layers: Descriptor[] = [];
    const files = new Map<string, string>();
    for (const l of entry.Layers) {
      const bytes = await readFile(join(dir, l));
      const digest = sha256(bytes);
      files.set(digest, join(dir, l));
      const gz = bytes[0] === 0x1f && bytes[1] === 0x8b;
      layers.push({
        mediaType: gz ? MediaType.DockerLayerGzip : MediaType.DockerLayer,
        digest,
        size: bytes.length,
      });
    }
    const configDigest = sha256(config);
    files.set(configDigest, join(dir, entry.Config));
    // Legacy archives carry no manifest: we write the schema 2 manifest a registry would serve.
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MediaType.DockerManifest,
        config: { mediaType: MediaType.DockerConfig, digest: configDigest, size: config.length },
        layers,
      }),
    );
    return await store.importManifest(ref, manifest, async (d) =>
      createReadStream(files.get(d.digest) ?? ''),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

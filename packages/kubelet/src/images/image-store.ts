// The node's images: records (name → manifest digest, config, layers) in <root>/images.json over
// a shared BlobStore, and one unpacked rootfs per image config under <root>/rootfs/<hex>, built
// once (layers applied in order, whiteouts resolved) and shared read-only by every container.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ImageError } from '../errors.ts';
import { BlobStore, sha256 } from './blob-store.ts';
import { unpackLayer } from './layer-unpack.ts';
import {
  MANIFEST_TYPES,
  type Descriptor,
  type ImageConfig,
  type ImageManifest,
} from './oci-types.ts';
import { digestReference, parseReference, storeName } from './reference.ts';

export interface ImageRecord {
  /** Normalised name it was stored under, e.g. `docker.io/library/busybox:latest`. */
  name: string;
  /** The manifest digest; `imageId` is `<repo>@<digest>` (a container's imageID). */
  digest: string;
  imageId: string;
  configDigest: string;
  layers: Descriptor[];
  sizeBytes: number;
  config: ImageConfig;
  storedAt: string;
}

/** Fetches a blob named by a descriptor (from a registry, a layout directory...). */
export type BlobSource = (d: Descriptor) => Promise<Readable>;

export interface ImportProgress {
  (event: {
    layer: string;
    index: number;
    count: number;
    sizeBytes: number;
    cached: boolean;
  }): void;
}

export class ImageStore {
  readonly root: string;
  readonly blobs: BlobStore;
  #lock: Promise<unknown> = Promise.resolve();
  /** images.json as last read, by the file's identity (list()). */
  #records: { key: string; all: ImageRecord[] } | undefined;
  readonly #unpacking = new Map<string, Promise<string>>();

  constructor(root: string) {
    this.root = root;
    this.blobs = new BlobStore(root);
  }

  /** The record stored for `ref` (a reference; `busybox` means docker.io/library/busybox:latest). */
  async get(ref: string): Promise<ImageRecord | undefined> {
    const r = parseReference(ref);
    const all = await this.list();
    if (r.digest !== undefined && r.tag === undefined)
      return (
        all.find(
          (i) => i.digest === r.digest && i.name.startsWith(`${r.registry}/${r.repository}`),
        ) ?? all.find((i) => i.name === storeName(r))
      );
    return all.find((i) => i.name === storeName(r));
  }

  /**
   * Every record. Read synchronously and kept while images.json is the same file (it is only
   * ever replaced by a rename, so a new inode): a Pod's start looks its image up here, and a
   * threadpool read behind the agent's other file work took 8–46 ms at load 5–12 (bench:node
   * `image` step). Another process (`agent-sandbox image load`) may write it at any time.
   */
  async list(): Promise<ImageRecord[]> {
    const file = join(this.root, 'images.json');
    const stat = statSync(file, { throwIfNoEntry: false });
    if (!stat) return [];
    const key = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
    if (this.#records?.key !== key) {
      this.#records = { key, all: JSON.parse(readFileSync(file, 'utf8')) as ImageRecord[] };
    }
    return [...this.#records.all];
  }

  /**
   * Stores the image whose manifest bytes are `manifestBytes` under `ref`: verifies the config
   * and every layer against their digests, fetching absent blobs through `source`.
   */
  async importManifest(
    ref: string,
    manifestBytes: Buffer,
    source: BlobSource,
    progress?: ImportProgress,
  ): Promise<ImageRecord> {
    const r = parseReference(ref);
    const digest = sha256(manifestBytes);
    if (r.digest !== undefined && r.digest !== digest)
      throw new ImageError('DigestMismatch', `manifest of ${ref} hashes to ${digest}`);
    const manifest = JSON.parse(manifestBytes.toString('utf8')) as ImageManifest;
    if (manifest.mediaType !== undefined && !MANIFEST_TYPES.has(manifest.mediaType))
      throw new ImageError(
        'ImageFormat',
        `${ref}: unsupported manifest media type ${manifest.mediaType}`,
      );
    if (!manifest.config?.digest || !Array.isArray(manifest.layers))
      throw new ImageError('ImageFormat', `${ref}: manifest has no config or layers`);
    await this.#ensureBlob(manifest.config, source, `config of ${ref}`);
    const config = JSON.parse(
      (await this.blobs.read(manifest.config.digest)).toString('utf8'),
    ) as ImageConfig;
    const diffIds = config.rootfs?.diff_ids ?? [];
    if (diffIds.length !== manifest.layers.length)
      throw new ImageError(
        'ImageFormat',
        `${ref}: config lists ${diffIds.length} diff_ids for ${manifest.layers.length} layers`,
      );
    let i = 0;
    for (const layer of manifest.layers) {
      const cached = await this.blobs.has(layer.digest);
      progress?.({
        layer: layer.digest,
        index: i++,
        count: manifest.layers.length,
        sizeBytes: layer.size,
        cached,
      });
      if (!cached) await this.#ensureBlob(layer, source, `layer ${layer.digest} of ${ref}`);
    }
    await this.blobs.put(Readable.from([manifestBytes]), digest);
    const record: ImageRecord = {
      name: storeName(r.tag === undefined && r.digest === undefined ? { ...r, tag: 'latest' } : r),
      digest,
      imageId: digestReference(r, digest),
      configDigest: manifest.config.digest,
      layers: manifest.layers,
      sizeBytes: manifest.layers.reduce((n, l) => n + l.size, manifest.config.size),
      config,
      storedAt: new Date().toISOString(),
    };
    await this.#update((all) => [...all.filter((x) => x.name !== record.name), record]);
    return record;
  }

  async #ensureBlob(d: Descriptor, source: BlobSource, what: string): Promise<void> {
    if (await this.blobs.has(d.digest)) return;
    await this.blobs.put(await source(d), d.digest, d.size, what);
  }

  /** Removes `ref`'s record, then blobs and rootfs directories no record uses. */
  async remove(ref: string): Promise<ImageRecord> {
    const found = await this.get(ref);
    if (!found) throw new ImageError('ImageNotPresent', `image ${ref} is not on this node`);
    const left = await this.#update((all) => all.filter((x) => x.name !== found.name));
    const used = new Set(
      left.flatMap((x) => [x.digest, x.configDigest, ...x.layers.map((l) => l.digest)]),
    );
    for (const d of await this.blobs.list()) if (!used.has(d)) await this.blobs.remove(d);
    const configs = new Set(left.map((x) => x.configDigest.slice(7)));
    for (const dir of await readdir(join(this.root, 'rootfs')).catch(() => [] as string[]))
      if (!configs.has(dir))
        await rm(join(this.root, 'rootfs', dir), { recursive: true, force: true });
    return found;
  }

  /**
   * The unpacked root filesystem of `image` (treat as read-only; containers get an overlay or a
   * copy). Each layer's uncompressed digest is checked against the config's diff_ids.
   */
  async rootfs(image: ImageRecord): Promise<string> {
    const dir = join(this.root, 'rootfs', image.configDigest.slice(7));
    if (existsSync(dir)) return dir;
    let p = this.#unpacking.get(dir);
    if (!p) {
      p = this.#unpack(image, dir).finally(() => this.#unpacking.delete(dir));
      this.#unpacking.set(dir, p);
    }
    return p;
  }

  async #unpack(image: ImageRecord, dir: string): Promise<string> {
    const tmp = join(this.root, 'rootfs', `.tmp-${randomBytes(6).toString('hex')}`);
    await mkdir(tmp, { recursive: true });
    try {
      const diffIds = image.config.rootfs?.diff_ids ?? [];
      for (const [i, layer] of image.layers.entries()) {
        const { diffId } = await unpackLayer(this.blobs.open(layer.digest), tmp);
        if (diffId !== diffIds[i])
          throw new ImageError(
            'DigestMismatch',
            `layer ${layer.digest} of ${image.name} unpacks to ${diffId}, config says ${diffIds[i]}`,
          );
      }
      await rename(tmp, dir);
      return dir;
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }

  async #update(change: (all: ImageRecord[]) => ImageRecord[]): Promise<ImageRecord[]> {
    const run = this.#lock.then(async () => {
      const next = change(await this.list());
      await mkdir(this.root, { recursive: true });
      const tmp = join(this.root, `.images-${randomBytes(4).toString('hex')}.json`);
      await writeFile(tmp, JSON.stringify(next, null, 2));
      await rename(tmp, join(this.root, 'images.json'));
      return next;
    });
    this.#lock = run.catch(() => undefined);
    return run;
  }
}

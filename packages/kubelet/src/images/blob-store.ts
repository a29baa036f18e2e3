// Content-addressed blobs (manifests, configs, compressed layers) under <root>/blobs/sha256/,
// shared by every image and sandbox. A blob is only visible under its name once its bytes
// hashed to that name: it is written to a temp file and renamed.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ImageError } from '../errors.ts';
import { DIGEST } from './reference.ts';

export class BlobStore {
  readonly root: string;
  constructor(root: string) {
    this.root = root;
  }

  path(digest: string): string {
    if (!DIGEST.test(digest))
      throw new ImageError('ImageFormat', `unsupported digest "${digest}" (want sha256:<64 hex>)`);
    return join(this.root, 'blobs', 'sha256', digest.slice(7));
  }

  async has(digest: string): Promise<boolean> {
    return stat(this.path(digest)).then(
      () => true,
      () => false,
    );
  }

  async read(digest: string): Promise<Buffer> {
    return readFile(this.path(digest));
  }

  open(digest: string): Readable {
    return createReadStream(this.path(digest));
  }

  /** Stores `source`; rejects with DigestMismatch if its bytes do not hash to `digest`/`size`. */
  async put(source: Readable, digest: string, size?: number, what = digest): Promise<void> {
    const dest = this.path(digest);
    if (await this.has(digest)) {
      source.resume();
      return;
    }
    await mkdir(join(this.root, 'blobs', 'sha256'), { recursive: true });
    const tmp = join(this.root, 'blobs', `.tmp-${randomBytes(6).toString('hex')}`);
    const hash = createHash('sha256');
    let bytes = 0;
    source.on('data', (c: Buffer) => {
      hash.update(c);
      bytes += c.length;
    });
    try {
      await pipeline(source, createWriteStream(tmp));
      const got = `sha256:${hash.digest('hex')}`;
      if (got !== digest)
        throw new ImageError('DigestMismatch', `${what}: content hashes to ${got}, want ${digest}`);
      if (size !== undefined && bytes !== size)
        throw new ImageError(
          'DigestMismatch',
          `${what}: got ${bytes} bytes, descriptor says ${size}`,
        );
      await rename(tmp, dest);
    } finally {
      await rm(tmp, { force: true });
    }
  }

  async putBytes(bytes: Buffer): Promise<string> {
    const digest = sha256(bytes);
    await this.put(Readable.from([bytes]), digest, bytes.length);
    return digest;
  }

  async remove(digest: string): Promise<void> {
    await rm(this.path(digest), { force: true });
  }

  async list(): Promise<string[]> {
    const names = await readdir(join(this.root, 'blobs', 'sha256')).catch(() => [] as string[]);
    return names.map((n) => `sha256:${n}`);
  }
}

export function sha256(bytes: Buffer | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

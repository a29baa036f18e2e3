// Applies one layer tar onto a rootfs directory (§4.5): regular files, directories, symlinks,
// hard links, devices and FIFOs with owner, mode and mtime; `.wh.<name>` deletes a lower file and
// `.wh..wh..opq` empties a directory of lower content. Returns the uncompressed digest (diff_id).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import {
  chmod,
  lchown,
  link,
  lstat,
  lutimes,
  mkdir,
  readdir,
  rm,
  symlink,
  utimes,
} from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { ImageError } from '../errors.ts';
import { entryComponents, resolveInRoot } from './safe-path.ts';

const WHITEOUT = '.wh.';
const OPAQUE = '.wh..wh..opq';

export interface UnpackResult {
  diffId: string;
}

/** Sniffs gzip (`1f 8b`) and zstd (`28 b5 2f fd`, unsupported on Node 20) and decompresses. */
async function* decompressed(source: Readable): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first = await it.next();
  if (first.done) return;
  const head = first.value;
  async function* all(): AsyncGenerator<Buffer> {
    yield head;
    for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
  }
  if (head[0] === 0x28 && head[1] === 0xb5 && head[2] === 0x2f && head[3] === 0xfd)
    throw new ImageError('ImageFormat', 'zstd-compressed layers are not supported on Node 20');
  if (head[0] !== 0x1f || head[1] !== 0x8b) {
    yield* all();
    return;
  }
  const gunzip = createGunzip();
  const feeding = pipeline(Readable.from(all()), gunzip);
  feeding.catch(() => {}); // surfaces through the gunzip iteration below
  for await (const c of gunzip) yield c as Buffer;
  await feeding;
}

export async function unpackLayer(source: Readable, root: string): Promise<UnpackResult> {
  const hash = createHash('sha256');
  async function* hashed(): AsyncGenerator<Buffer> {
    for await (const c of decompressed(source)) {
      hash.update(c);
      yield c;
    }
  }
  const extract = tar.extract();
  const tarDone = pipeline(Readable.from(hashed()), extract);
  tarDone.catch(() => {}); // awaited below; an early failure also ends the entry loop
  const own = new Set<string>(); // paths this layer created: its whiteouts never hide them
  const dirTimes: { path: string; mtime: Date }[] = [];
  for await (const entry of extract) {
    try {
      await applyEntry(root, entry.header, entry, own, dirTimes);
    } finally {
      entry.resume();
    }
  }
  await tarDone;
  // Directory mtimes last: creating their children moved them.
  for (const d of dirTimes.reverse()) await utimes(d.path, d.mtime, d.mtime).catch(() => {});
  return { diffId: `sha256:${hash.digest('hex')}` };
}

async function applyEntry(
  root: string,
  h: tar.Header,
  body: AsyncIterable<unknown>,
  own: Set<string>,
  dirTimes: { path: string; mtime: Date }[],
): Promise<void> {
  const parts = entryComponents(h.name);
  if (parts.length === 0) return; // the root itself
  const base = parts[parts.length - 1] as string;
  const parentParts = parts.slice(0, -1);
  if (base === OPAQUE) {
    const dir = resolveInRoot(root, [...parentParts, 'x']).slice(0, -2);
    const keep = parentParts.join('/');
    for (const child of await readdir(dir).catch(() => [] as string[]))
      if (!own.has(keep ? `${keep}/${child}` : child))
        await rm(join(dir, child), { recursive: true, force: true });
    return;
  }
  if (base.startsWith(WHITEOUT)) {
    const hidden = [...parentParts, base.slice(WHITEOUT.length)];
    if (!own.has(hidden.join('/')))
      await rm(resolveInRoot(root, hidden), { recursive: true, force: true });
    return;
  }
  const dest = resolveInRoot(root, parts);
  own.add(parts.join('/'));
  await mkdir(dirname(dest), { recursive: true });
  const existing = await lstat(dest).catch(() => undefined);
  if (existing && !(existing.isDirectory() && h.type === 'directory'))
    await rm(dest, { recursive: true, force: true });
  const mode = (h.mode ?? 0o644) & 0o7777;
  const mtime = h.mtime ?? new Date(0);
  switch (h.type) {
    case 'directory':
      await mkdir(dest, { recursive: true });
      dirTimes.push({ path: dest, mtime });
      break;
    case 'file':
    case 'contiguous-file':
      await pipeline(Readable.from(body), createWriteStream(dest, { mode }));
      break;
    case 'symlink':
      await symlink(h.linkname ?? '', dest);
      break;
    case 'link': {
      const target = resolveInRoot(root, entryComponents(h.linkname ?? ''));
      await link(target, dest);
      return; // a hard link shares the target's owner, mode and times
    }
    case 'character-device':
    case 'block-device':
    case 'fifo':
      mknod(dest, h);
      break;
    default:
      return; // pax headers and the like carry no file
  }
  await lchown(dest, h.uid ?? 0, h.gid ?? 0).catch(() => {}); // unprivileged: keep our own uid
  if (h.type === 'symlink') {
    await lutimes(dest, mtime, mtime).catch(() => {});
    return;
  }
  await chmod(dest, mode); // after chown, which clears setuid bits
  if (h.type !== 'directory') await utimes(dest, mtime, mtime);
}

function mknod(dest: string, h: tar.Header): void {
  const kind = h.type === 'fifo' ? 'p' : h.type === 'block-device' ? 'b' : 'c';
  const args =
    kind === 'p' ? [dest, 'p'] : [dest, kind, String(h.devmajor ?? 0), String(h.devminor ?? 0)];
  const r = spawnSync('mknod', args, { encoding: 'utf8' });
  if (r.status !== 0)
    throw new ImageError(
      'ImageFormat',
      `cannot create device ${h.name}: ${r.stderr || r.error?.message}`,
    );
}

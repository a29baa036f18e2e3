// The filesystem operations behind /v1/files and the legacy routes (dataplane §4.3, §5). Every
// path that reaches these functions has been through sanitizePath. Writes are atomic (temp file
// in the target directory, fsync, rename), so a reader sees the old or the new content and a
// failed or refused upload leaves the old file as it was.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import {
  chmod,
  lstat,
  mkdir,
  open,
  readdir,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
} from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DirectoryListing, FileEntry, LegacyFileEntry } from '@agent-sandbox/protocol';
import { FilesMessage } from '@agent-sandbox/protocol';
import { errnoCode, SandboxdError, sandboxdError } from './errors.ts';
import { isWithin, sanitizePath } from './paths.ts';

const TEMP_PREFIX = '.sandboxd-tmp-';

/** Maps an fs error to the daemon's vocabulary (ENOENT → NotFound, EACCES → PermissionDenied). */
export function fsError(err: unknown, what: string): SandboxdError {
  if (err instanceof SandboxdError) return err;
  switch (errnoCode(err)) {
    case 'ENOENT':
    case 'ENOTDIR':
      return sandboxdError('NotFound', FilesMessage.notFound, err);
    case 'EACCES':
    case 'EPERM':
      return sandboxdError('PermissionDenied', FilesMessage.permissionDenied, err);
    case 'ENOTEMPTY':
    case 'EEXIST':
      return sandboxdError('Conflict', FilesMessage.notEmpty, err);
    default:
      return sandboxdError('Internal', `${what}: ${String(err)}`, err);
  }
}

function rfc3339Seconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Directory entries sorted by name; symlinks resolved, those escaping or broken left out. */
export async function listDirectory(
  root: string,
  dir: string,
  shownPath: string,
): Promise<DirectoryListing> {
  const names = (
    await readdir(dir).catch((err: unknown) => {
      throw fsError(err, 'read directory');
    })
  ).sort();
  const entries: FileEntry[] = [];
  for (const name of names) {
    const entry = await describeEntry(root, path.join(dir, name));
    if (entry) entries.push({ name, ...entry });
  }
  return { path: `/${shownPath}`, entries };
}

async function describeEntry(
  root: string,
  full: string,
): Promise<Omit<FileEntry, 'name'> | undefined> {
  try {
    const target = await sanitizePath(root, full);
    const st = await stat(target);
    if (!st.isFile() && !st.isDirectory()) return undefined;
    return {
      size: st.size,
      type: st.isDirectory() ? 'directory' : 'file',
      modified_at: rfc3339Seconds(st.mtimeMs),
      mode: (st.mode & 0o777).toString(8).padStart(4, '0'),
    };
  } catch {
    return undefined; // escaping or broken symlink: left out of the listing (§4.3)
  }
}

/** The legacy bare-array listing: directory order, `mod_time` as float seconds. */
export async function listLegacy(dir: string): Promise<LegacyFileEntry[]> {
  const dirents = await readdir(dir, { withFileTypes: true });
  const out: LegacyFileEntry[] = [];
  for (const d of dirents) {
    const full = path.join(dir, d.name);
    const st = await stat(full).catch(() => lstat(full));
    out.push({
      name: d.name,
      size: st.size,
      type: st.isDirectory() ? 'directory' : 'file',
      mod_time: st.mtimeMs / 1000,
    });
  }
  return out;
}

/** Counts bytes and fails the stream with TooLarge once `limit` (> 0) is passed. */
export function byteLimit(limit: number, option: string): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
      seen += chunk.length;
      if (limit > 0 && seen > limit) {
        done(sandboxdError('TooLarge', tooLargeMessage(limit, option)));
        return;
      }
      done(null, chunk);
    },
  });
}

export const tooLargeMessage = (limit: number, option: string) =>
  `request body exceeds the ${limit}-byte limit (${option})`;

export interface WriteOptions {
  /** Permission bits applied with chmod (umask does not apply). */
  mode: number;
  /** 0 = unlimited */
  maxBytes: number;
  limitOption: string;
}

/**
 * Writes `body` to `target` atomically, creating missing parents with 0755. Throws
 * InvalidArgument when `target` is a directory and TooLarge past the limit; the temp file is
 * removed on every failure.
 */
export async function writeFileAtomic(
  target: string,
  body: Readable,
  options: WriteOptions,
): Promise<void> {
  // The body may fail (a client closing mid-upload) before pipeline() listens: the error stays
  // on the stream for pipeline to report, and must not be an unheard 'error' event meanwhile.
  body.on('error', () => undefined);
  const existing = await stat(target).catch(() => undefined);
  if (existing?.isDirectory())
    throw sandboxdError('InvalidArgument', FilesMessage.targetIsDirectory);
  const dir = path.dirname(target);
  await mkdir(dir, { recursive: true, mode: 0o755 }).catch((err: unknown) => {
    throw fsError(err, 'create parent directories');
  });
  const temp = path.join(dir, `${TEMP_PREFIX}${randomBytes(6).toString('hex')}`);
  try {
    await pipeline(
      body,
      byteLimit(options.maxBytes, options.limitOption),
      createWriteStream(temp, { flags: 'wx', mode: 0o600 }),
    );
    const handle = await open(temp, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(temp, options.mode);
    await rename(temp, target);
  } catch (err: unknown) {
    await unlink(temp).catch(() => undefined);
    body.destroy();
    throw fsError(err, 'write file');
  }
}

/**
 * DELETE semantics (§4.3): `resolved` is sanitized; the root is only ever emptied, and only
 * with `recursive`.
 */
export async function deletePath(
  root: string,
  resolved: string,
  recursive: boolean,
): Promise<void> {
  const st = await lstat(resolved).catch((err: unknown) => {
    throw fsError(err, 'stat');
  });
  if (resolved === root) {
    if (!recursive) throw sandboxdError('Conflict', FilesMessage.deleteRoot);
    for (const name of await readdir(root)) {
      await rm(path.join(root, name), { recursive: true, force: true });
    }
    return;
  }
  if (!isWithin(root, resolved)) throw sandboxdError('PathEscapes', FilesMessage.pathEscapes);
  try {
    if (!st.isDirectory()) await unlink(resolved);
    else if (recursive) await rm(resolved, { recursive: true });
    else await rmdir(resolved);
  } catch (err: unknown) {
    throw fsError(err, 'delete');
  }
}

// Small file helpers for the data dir: atomic, mode-restricted writes (temp file + fsync +
// rename, so a crash leaves either the old file or the new one, never half of either).
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CredentialError } from './errors.ts';

/** Owner read/write only: keys, the token and the kubeconfig (it embeds the token). */
export const PRIVATE_FILE_MODE = 0o600;
/** Certificates are public. */
export const PUBLIC_FILE_MODE = 0o644;
export const PRIVATE_DIR_MODE = 0o700;

/** Creates `dir` (and parents) with mode 0700; fails with `Unwritable` naming it. */
export function ensureDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (err: unknown) {
    throw new CredentialError(
      'Unwritable',
      dir,
      `cannot create directory ${dir}: ${describe(err)}; pick a writable --data-dir`,
      { cause: err },
    );
  }
}

/** Writes `path` atomically with `mode`: the final name appears only once the content is on disk. */
export function writeFileAtomic(path: string, data: string, mode: number): void {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(tmp, 'wx', mode);
    try {
      writeSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err: unknown) {
    rmSync(tmp, { force: true });
    throw new CredentialError('Unwritable', path, `cannot write ${path}: ${describe(err)}`, {
      cause: err,
    });
  }
}

/** The file's text, or undefined when it does not exist. */
export function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err: unknown) {
    if (isErrnoException(err) && err.code === 'ENOENT') return undefined;
    throw new CredentialError('Corrupt', path, `cannot read ${path}: ${describe(err)}`, {
      cause: err,
    });
  }
}

function isErrnoException(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && 'code' in err;
}

function describe(err: unknown): string {
  if (isErrnoException(err) && err.code !== undefined) return `${err.code} (${err.message})`;
  return err instanceof Error ? err.message : String(err);
}

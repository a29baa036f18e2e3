// Path confinement (dataplane §4.5): every user path is resolved to an absolute path that is the
// root or lies under `root + "/"` after all symlinks are followed. A relative `..` that climbs
// above the root is refused, never clamped; absolute paths are re-rooted.
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { errnoCode, sandboxdError } from './errors.ts';
import { FilesMessage } from '@agent-sandbox/protocol';

/** Resolves the root once (symlinks followed; the lexical form if it does not exist). */
export async function resolveRoot(root: string): Promise<string> {
  if (root === '') throw sandboxdError('InvalidArgument', 'root directory must not be empty');
  const abs = path.resolve(root);
  try {
    return await realpath(abs);
  } catch {
    return abs; // resolution failed: keep the unresolved form (§4.5 step 2)
  }
}

/** True when `p` is `root` or below it; a plain prefix test would let `/root-evil` through. */
export function isWithin(root: string, p: string): boolean {
  return p === root || p.startsWith(root === '/' ? '/' : `${root}/`);
}

/**
 * The user path cleaned lexically and joined under `root`, without touching the disk (dataplane
 * §4.5 step 3): a path equal to root is `.`, one already under root loses that prefix, a leading
 * `/` re-roots, and a relative `..` is kept for the containment check to refuse.
 */
export function joinUnderRoot(root: string, userPath: string): string {
  let cleaned = path.posix.normalize(userPath === '' ? '.' : userPath);
  if (cleaned === root) cleaned = '.';
  else if (cleaned.startsWith(`${root}/`)) cleaned = cleaned.slice(root.length + 1);
  // A leading '/' re-roots; a relative '..' stays and is caught by the containment check.
  if (cleaned.startsWith('/')) return path.posix.join(root, path.posix.normalize(cleaned));
  return path.posix.join(root, cleaned);
}

async function resolveExisting(p: string): Promise<string> {
  const suffix: string[] = [];
  let current = p;
  for (;;) {
    try {
      const real = await realpath(current);
      return suffix.length === 0 ? real : path.posix.join(real, ...suffix.reverse());
    } catch (err: unknown) {
      const code = errnoCode(err);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        throw sandboxdError('Internal', `resolve path: ${String(err)}`, err);
      }
      const parent = path.posix.dirname(current);
      if (parent === current) throw sandboxdError('PathEscapes', FilesMessage.pathEscapes);
      suffix.push(path.posix.basename(current));
      current = parent;
    }
  }
}

/**
 * Returns the resolved absolute path for `userPath` under `root` (already resolved with
 * resolveRoot). Throws SandboxdError `PathEscapes` when it leaves the root (by `..`, by a
 * symlink anywhere on the way, or by a prefix trick) and `InvalidArgument` for a NUL byte.
 */
export async function sanitizePath(root: string, userPath: string): Promise<string> {
  if (userPath.includes('\0')) {
    throw sandboxdError('InvalidArgument', 'path must not contain a NUL byte');
  }
  const joined = joinUnderRoot(root, userPath);
  if (!isWithin(root, joined)) throw sandboxdError('PathEscapes', FilesMessage.pathEscapes);
  const resolved = await resolveExisting(joined);
  if (!isWithin(root, resolved)) throw sandboxdError('PathEscapes', FilesMessage.pathEscapes);
  return resolved;
}

// Resolving a layer entry's path inside a rootfs as if the rootfs were `/` (§4.5 safety): no
// absolute paths or `..` above the root, and every symlink met among the parents is resolved
// against the root, so `a -> /etc` then `a/shadow` lands in <root>/etc/shadow, never the host's.
import { lstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ImageError } from '../errors.ts';

const MAX_SYMLINKS = 40;

/** Splits a tar entry name into components; rejects `..` and empty names. */
export function entryComponents(name: string): string[] {
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..'))
    throw new ImageError('ImageFormat', `layer entry "${name}" has a ".." component`);
  return parts;
}

/**
 * The host path of `components` under `root`: parents resolved through symlinks inside the root;
 * the last component is never followed (the caller creates, replaces or removes it).
 */
export function resolveInRoot(root: string, components: readonly string[]): string {
  const resolved: string[] = [];
  const pending = [...components];
  let hops = 0;
  while (pending.length > 1) {
    const c = pending.shift() as string;
    if (c === '..') {
      resolved.pop();
      continue;
    }
    const here = join(root, ...resolved, c);
    let target: string | undefined;
    try {
      if (lstatSync(here).isSymbolicLink()) target = readlinkSync(here);
    } catch {
      target = undefined; // does not exist yet: the caller creates it as a directory
    }
    if (target === undefined) {
      resolved.push(c);
      continue;
    }
    if (++hops > MAX_SYMLINKS)
      throw new ImageError('ImageFormat', `too many symlinks resolving ${components.join('/')}`);
    if (target.startsWith('/')) resolved.length = 0;
    pending.unshift(...target.split('/').filter((p) => p !== '' && p !== '.'));
  }
  const last = pending[0];
  if (last === undefined) return join(root, ...resolved);
  if (last === '..') return join(root, ...resolved.slice(0, -1));
  return join(root, ...resolved, last);
}

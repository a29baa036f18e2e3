// The daemon's host files gathered into one directory, so a container gets them with one
// read-only bind of a directory instead of one per file: runc made eleven binds, each with its
// own read-only remount, on every `runc run` (2–4 ms of a start, bench/README "Where runc's time
// goes"); bwrap and gVisor's gofer handle each mount too. Files are hard links where the data
// dir shares the host's filesystem (no bytes copied), copies otherwise. The directory is named
// by what it holds (each file's bytes; node, the large one, by inode, size and mtime) and never
// changed once made: containers still running from an earlier `up` keep theirs whole, and a
// daemon restarted in one finds every file it had.
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import type { HostMount, SandboxdLaunch } from './launch.ts';

/**
 * Makes (or finds) `<parent>/sbx-<hash>` holding every file of `launch`'s mounts at its path
 * below `launch.mountPoint`, and returns the one mount that replaces them. Throws naming a
 * mount that is not below the mount point.
 */
export function stageLaunchDir(launch: SandboxdLaunch, parent: string): HostMount {
  const { mountPoint } = launch;
  const files = launch.mounts.map((m) => ({
    ...m,
    relative: relativeTo(mountPoint, m.containerPath),
  }));
  const dir = path.join(parent, `sbx-${identity(files)}`);
  if (!existsSync(dir)) {
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    for (const f of files) place(f.hostPath, path.join(tmp, f.relative));
    // A rename makes it appear whole: an `up` that dies half way leaves only a .tmp directory.
    renameSync(tmp, dir);
  }
  return { hostPath: dir, containerPath: mountPoint, readOnly: true };
}

function relativeTo(mountPoint: string, containerPath: string): string {
  const relative = path.posix.relative(mountPoint, containerPath);
  if (relative === '' || relative.startsWith('..') || path.posix.isAbsolute(relative))
    throw new Error(`launch mount ${containerPath} is not below ${mountPoint}`);
  return relative;
}

/** Files up to this size are named by their bytes; larger ones (node) by inode, size, mtime. */
const HASHED_BYTES = 8 << 20;

/** What the files are: a change to any (a new node, a new bundle) names a new directory. */
function identity(files: readonly (HostMount & { relative: string })[]): string {
  const hash = createHash('sha256');
  for (const f of [...files].sort((a, b) => a.relative.localeCompare(b.relative))) {
    const s = statSync(f.hostPath);
    hash.update(`${f.relative}\0${f.hostPath}\0`);
    // The bundle is written again by every `up`: its bytes, not its mtime, say what it is.
    if (s.size <= HASHED_BYTES) hash.update(readFileSync(f.hostPath));
    else hash.update(`${s.ino}:${s.size}:${s.mtimeMs}`);
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

function place(source: string, target: string): void {
  mkdirSync(path.dirname(target), { recursive: true });
  try {
    linkSync(source, target);
  } catch {
    // Another filesystem (EXDEV), or a link refused (protected_hardlinks): a copy.
    copyFileSync(source, target);
  }
}

// A container's writable root: an overlay of the image's shared rootfs (lower, read-only) and a
// per-instance upper directory; a full copy where overlayfs cannot be mounted.
import { readFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { RuntimeError } from '../errors.ts';
import { runCommand } from '../host/run-command.ts';

export interface ContainerRootfs {
  path: string;
  mode: 'overlay' | 'copy';
}

export async function prepareRootfs(lower: string, dir: string): Promise<ContainerRootfs> {
  const merged = join(dir, 'merged');
  const failed = await mountOverlay(lower, dir);
  if (failed === undefined) return { path: merged, mode: 'overlay' };
  const cp = await runCommand('cp', ['-a', `${lower}/.`, merged], { timeoutMs: 300_000 });
  if (cp.code !== 0)
    throw new RuntimeError(
      'Runtime',
      `cannot prepare the container root: overlay failed (${failed}) and copy failed (${cp.stderr.trim()})`,
    );
  return { path: merged, mode: 'copy' };
}

/**
 * Makes `dir`'s fresh upper, work and merged directories and mounts the overlay of `lower` at
 * merged; resolves to the mount's error output when it failed (the directories stay), else
 * undefined.
 */
export async function mountOverlay(lower: string, dir: string): Promise<string | undefined> {
  const merged = join(dir, 'merged');
  await mkdir(join(dir, 'upper'), { recursive: true });
  await mkdir(join(dir, 'work'), { recursive: true });
  await mkdir(merged, { recursive: true });
  const opts = `lowerdir=${lower},upperdir=${join(dir, 'upper')},workdir=${join(dir, 'work')}`;
  const r = await runCommand('mount', ['-t', 'overlay', 'overlay', '-o', opts, merged]);
  return r.code === 0 ? undefined : r.stderr.trim() || `mount exited ${r.code}`;
}

/** Mount points under `prefix` (from /proc/self/mountinfo), deepest first. */
export async function mountsUnder(prefix: string): Promise<string[]> {
  const info = await readFile('/proc/self/mountinfo', 'utf8');
  return info
    .split('\n')
    .map((l) => l.split(' ')[4] ?? '')
    .map((p) => p.replace(/\\040/g, ' '))
    .filter((p) => p === prefix || p.startsWith(`${prefix}/`))
    .sort((a, b) => b.length - a.length);
}

/** An overlay mounted on this host: its mount point and its (first) lower directory. */
export interface OverlayMount {
  mountPoint: string;
  lower: string;
}

/** The overlay mounts in this process's mount namespace (from /proc/self/mountinfo). */
export async function overlayMounts(): Promise<OverlayMount[]> {
  const info = await readFile('/proc/self/mountinfo', 'utf8');
  const unescape = (p: string) => p.replace(/\\040/g, ' ');
  const out: OverlayMount[] = [];
  for (const line of info.split('\n')) {
    // "<id> <parent> <dev> <root> <mount point> <opts> [optional...] - <type> <source> <super opts>"
    const [head = '', tail = ''] = line.split(' - ');
    const [type, , superOpts = ''] = tail.split(' ');
    if (type !== 'overlay') continue;
    const lower = superOpts
      .split(',')
      .find((o) => o.startsWith('lowerdir='))
      ?.slice('lowerdir='.length)
      .split(':')[0];
    if (lower) out.push({ mountPoint: unescape(head.split(' ')[4] ?? ''), lower: unescape(lower) });
  }
  return out;
}

/** Unmounts everything under `dir` and removes it; idempotent. */
export async function removeMountedDir(dir: string): Promise<void> {
  for (const m of await mountsUnder(dir)) {
    const r = await runCommand('umount', [m]);
    if (r.code !== 0) await runCommand('umount', ['-l', m]);
  }
  await rm(dir, { recursive: true, force: true });
}

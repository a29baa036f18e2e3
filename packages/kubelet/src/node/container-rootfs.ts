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
  await mkdir(join(dir, 'upper'), { recursive: true });
  await mkdir(join(dir, 'work'), { recursive: true });
  await mkdir(merged, { recursive: true });
  const opts = `lowerdir=${lower},upperdir=${join(dir, 'upper')},workdir=${join(dir, 'work')}`;
  const r = await runCommand('mount', ['-t', 'overlay', 'overlay', '-o', opts, merged]);
  if (r.code === 0) return { path: merged, mode: 'overlay' };
  const cp = await runCommand('cp', ['-a', `${lower}/.`, merged], { timeoutMs: 300_000 });
  if (cp.code !== 0)
    throw new RuntimeError(
      'Runtime',
      `cannot prepare the container root: overlay failed (${r.stderr.trim()}) and copy failed (${cp.stderr.trim()})`,
    );
  return { path: merged, mode: 'copy' };
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

/** Unmounts everything under `dir` and removes it; idempotent. */
export async function removeMountedDir(dir: string): Promise<void> {
  for (const m of await mountsUnder(dir)) {
    const r = await runCommand('umount', [m]);
    if (r.code !== 0) await runCommand('umount', ['-l', m]);
  }
  await rm(dir, { recursive: true, force: true });
}

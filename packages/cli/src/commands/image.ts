// `agent-sandbox image load|ls|rm` on the node agent's image store (<data dir>/node/images).
// Bad input is refused before the store is touched, naming the argument and the fix.
import {
  ImageError,
  ImageStore,
  isKubeletError,
  loadDockerArchive,
  loadOciLayout,
  overlayMounts,
  parseReference,
  removePooledRoots,
  rootPoolDir,
} from '@agent-sandbox/kubelet';
import { nodeImageStore } from '@agent-sandbox/local';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError, FlagError } from '../errors.ts';
import type { CommandIO } from '../io.ts';
import { exitCodeFor } from '../report-error.ts';
import type { ImageFlags } from '../verbs/image.ts';
import { upDataDir } from './up.ts';

/** The node agent's data dir under `up`'s. */
function nodeDir(flags: ImageFlags): string {
  return join(upDataDir(flags.dataDir), 'node');
}

function store(flags: ImageFlags): ImageStore {
  return nodeImageStore(nodeDir(flags));
}

/** Image errors a user can act on as CliErrors (exit 1); anything else is a bug. */
function asCliError(err: unknown): unknown {
  if (err instanceof CliError) return err;
  if (isKubeletError(err)) return new CliError('Failed', err.message, { cause: err });
  return err;
}

async function guarded(io: CommandIO, run: () => Promise<void>): Promise<number> {
  try {
    await run();
    return 0;
  } catch (err: unknown) {
    return exitCodeFor(asCliError(err), io);
  }
}

export function runImageLoad(path: string, flags: ImageFlags, io: CommandIO): Promise<number> {
  return guarded(io, async () => {
    const name = flags.name ?? '';
    try {
      parseReference(name);
    } catch (err: unknown) {
      throw new FlagError(`--name: ${(err as Error).message}; use NAME[:TAG], e.g. my/tool:v1`, {
        cause: err,
      });
    }
    const source = resolve(path);
    if (!existsSync(source))
      throw new CliError(
        'InvalidInput',
        `${source} does not exist: give an OCI image layout directory or a docker-archive tarball`,
      );
    const images = store(flags);
    const record = statSync(source).isDirectory()
      ? await loadOciLayout(images, source, name)
      : await loadDockerArchive(images, source, name).catch((err: unknown) => {
          if (isKubeletError(err)) throw err;
          // tar's own errors ("Unexpected end of data"): the file is not an archive at all.
          throw new CliError(
            'InvalidInput',
            `${source} is not a docker-archive tarball (${(err as Error).message}); give an OCI image layout directory or a \`docker save\` tarball`,
            { cause: err },
          );
        });
    io.stdout(`loaded ${record.name} (${record.digest}, ${formatSize(record.sizeBytes)})\n`);
  });
}

export function runImageList(flags: ImageFlags, io: CommandIO): Promise<number> {
  return guarded(io, async () => {
    const images = await store(flags).list();
    const rows = images
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((i) => [i.name, i.digest.slice(7, 19), formatSize(i.sizeBytes), i.storedAt]);
    io.stdout(table([['NAME', 'DIGEST', 'SIZE', 'STORED'], ...rows]));
  });
}

export function runImageRemove(names: string[], flags: ImageFlags, io: CommandIO): Promise<number> {
  return guarded(io, async () => {
    const images = store(flags);
    for (const name of names) {
      const found = await images.get(name).catch((err: unknown) => {
        throw new FlagError(`image rm: ${(err as Error).message}`, { cause: err });
      });
      if (!found)
        throw new ImageError(
          'ImageNotPresent',
          `image ${name} is not on this node (see agent-sandbox image ls)`,
        );
      // Another name for the same image keeps its rootfs: dropping this name cannot hurt a container.
      const aliased = (await images.list()).some(
        (i) => i.name !== found.name && i.configDigest === found.configDigest,
      );
      const lower = join(images.root, 'rootfs', found.configDigest.slice(7));
      const users = aliased ? 0 : await containersUsing(nodeDir(flags), lower);
      if (users > 0)
        throw new CliError(
          'Failed',
          `image ${found.name} is in use by ${users} running container${users === 1 ? '' : 's'}; delete the Pods or Sandboxes that use it first`,
        );
      // The agent's roots mounted ahead for it (ADR 0044) go with it: no container has them.
      if (!aliased) await removePooledRoots(nodeDir(flags), lower);
      await images.remove(found.name);
      io.stdout(`removed ${found.name}\n`);
    }
  });
}

/**
 * Containers whose root is an overlay on image root `lower` (from mountinfo); the agent's roots
 * mounted ahead (in its pool's directory) are no container's.
 */
async function containersUsing(dataDir: string, lower: string): Promise<number> {
  const pool = `${rootPoolDir(dataDir)}/`;
  return (await overlayMounts()).filter((m) => m.lower === lower && !m.mountPoint.startsWith(pool))
    .length;
}

function formatSize(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB'];
  let n = bytes;
  let u = 0;
  for (; n >= 1000 && u < units.length - 1; u++) n /= 1000;
  return `${u === 0 ? n : n.toFixed(1)} ${units[u]}`;
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map(
      (r) =>
        r.map((c, i) => (i === r.length - 1 ? c : c.padEnd((widths[i] ?? 0) + 3))).join('') + '\n',
    )
    .join('');
}

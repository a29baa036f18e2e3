// The contract with the node agent (README "Running in any image"): which host files to mount
// read-only into a Pod and which argv starts the daemon there. The host's node binary, its
// shared libraries and its dynamic loader are mounted under one directory and node is started
// through that loader, so the image needs no Node and no libc (machine-notes §1.9). The host's
// `script` and `stty` come along the same way for PTY support.
import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { CodeCachedBundle } from './code-cache.ts';

export interface HostMount {
  hostPath: string;
  containerPath: string;
  readOnly: true;
}

export interface SandboxdLaunch {
  mounts: HostMount[];
  /** argv[0] is the mounted loader; run it with the Pod's root as `/`. */
  argv: string[];
  /** The container directory every mount lies below (stageLaunchDir makes it one mount). */
  mountPoint: string;
}

export interface HostBinary {
  /** Host path of the executable (symlinks resolved). */
  path: string;
  /** Host paths of its shared libraries by soname, loader included. */
  libraries: Record<string, string>;
  /** Soname of the dynamic loader, e.g. ld-linux-x86-64.so.2. */
  loader: string;
}

export interface LaunchOptions {
  node: HostBinary;
  /** Host path of the single-file bundle (bundleSandboxd); run when there is no codeCache. */
  bundlePath: string;
  /** The code-cached bundle (buildCodeCachedBundle): node runs its boot script instead. */
  codeCache?: CodeCachedBundle;
  /** PTY helpers; without them Start with a PTY fails with a clear error. */
  script?: HostBinary;
  stty?: HostBinary;
  /** @default /.sbx */
  mountPoint?: string;
  /** Daemon flags, e.g. ['--root-dir', '/workspace']. */
  flags?: string[];
}

/** Parses `ldd` output into soname → host path (and the loader's soname). */
export function parseLdd(output: string): { libraries: Record<string, string>; loader: string } {
  const libraries: Record<string, string> = {};
  let loader = '';
  for (const line of output.split('\n')) {
    const arrow = /^\s*(\S+)\s+=>\s+(\/\S+)\s+\(/.exec(line);
    if (arrow) {
      libraries[arrow[1]!] = arrow[2]!;
      continue;
    }
    const direct = /^\s*(\/\S+)\s+\(/.exec(line);
    if (direct) {
      loader = path.basename(direct[1]!);
      libraries[loader] = direct[1]!;
    }
  }
  return { libraries, loader };
}

/** Describes a host executable with `ldd` (part of libc-bin, on every glibc host). */
export async function describeHostBinary(executable: string): Promise<HostBinary> {
  const real = await realpath(executable);
  const output = await new Promise<string>((resolve, reject) =>
    execFile('ldd', [real], (err, stdout) =>
      err ? reject(new Error(`ldd ${real}: ${err.message}`)) : resolve(stdout),
    ),
  );
  const { libraries, loader } = parseLdd(output);
  if (!loader)
    throw new Error(
      `ldd ${real} names no dynamic loader; a static binary needs no launch contract`,
    );
  const resolved: Record<string, string> = {};
  for (const [soname, p] of Object.entries(libraries)) resolved[soname] = await realpath(p);
  return { path: real, libraries: resolved, loader };
}

/** Pure: the mounts and argv for one Pod. */
export function sandboxdLaunch(o: LaunchOptions): SandboxdLaunch {
  const mp = o.mountPoint ?? '/.sbx';
  const lib = `${mp}/lib`;
  const mounts = new Map<string, HostMount>();
  const mount = (hostPath: string, containerPath: string) =>
    mounts.set(containerPath, { hostPath, containerPath, readOnly: true });
  const binaries = [o.node, o.script, o.stty].filter((b): b is HostBinary => b !== undefined);
  for (const b of binaries)
    for (const [soname, p] of Object.entries(b.libraries)) mount(p, `${lib}/${soname}`);
  mount(o.node.path, `${mp}/node`);
  let entry = `${mp}/sandboxd.mjs`;
  if (o.codeCache) {
    // The three files lie side by side: the boot script finds the others by its own directory.
    entry = `${mp}/${path.basename(o.codeCache.bootPath)}`;
    for (const file of [o.codeCache.bootPath, o.codeCache.bundlePath, o.codeCache.cachePath])
      mount(file, `${mp}/${path.basename(file)}`);
  } else mount(o.bundlePath, entry);
  const loader = `${lib}/${o.node.loader}`;
  const viaLoader = (file: string) => `${loader} --library-path ${lib} ${file}`;
  const flags = [...(o.flags ?? [])];
  if (o.script) {
    mount(o.script.path, `${mp}/bin/script`);
    flags.push('--pty-command', viaLoader(`${mp}/bin/script`));
  }
  if (o.stty) {
    mount(o.stty.path, `${mp}/bin/stty`);
    flags.push('--stty-command', viaLoader(`${mp}/bin/stty`));
  }
  return {
    mounts: [...mounts.values()],
    mountPoint: mp,
    argv: [loader, '--library-path', lib, `${mp}/node`, entry, ...flags],
  };
}

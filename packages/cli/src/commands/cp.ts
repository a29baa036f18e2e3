// `agent-sandbox cp SRC DST`, one side `ID:PATH`: files and directories both ways as a tar
// stream through exec (the image needs only tar and sh, as with kubectl cp), packed and unpacked
// on this side by the host's tar. Like `cp -r`: into DST when it is an existing directory, else
// as DST (replacing it); the parent of DST is created in the sandbox.
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import type { ClusterOptions } from '../cluster-options.ts';
import { CliError, FlagError } from '../errors.ts';
import type { CommandIO } from '../io.ts';
import { execInPod } from '../pod-streams/remote-command.ts';
import { sandboxPod, type SandboxPod } from './sandbox-pod.ts';
import { sandboxBoundary } from './sdk-connection.ts';

export type CopyEnd = { sandbox: string; path: string } | { local: string };

/** Pure: `ID:PATH` is a sandbox path (ID a DNS label), anything else a local one. */
export function parseCopyEnd(arg: string): CopyEnd {
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?):(.*)$/.exec(arg);
  if (!m) return { local: arg };
  return { sandbox: m[1] ?? '', path: m[3] || '.' };
}

// Extracts stdin into a temporary directory beside the destination, then moves it into place.
const UNPACK = `set -e
dst=$1; base=$2
if [ -d "$dst" ]; then dir=$dst; name=$base; else dir=$(dirname "$dst"); name=$(basename "$dst"); mkdir -p "$dir"; fi
tmp=$(mktemp -d "$dir/.agent-sandbox-cp.XXXXXX")
tar -xf - -C "$tmp" || { rm -rf "$tmp"; exit 1; }
rm -rf "$dir/$name"; mv "$tmp/$base" "$dir/$name"; rmdir "$tmp"`;

function hostTar(args: string[], stdio: { input?: PassThrough; output?: Writable }) {
  const child = spawn('tar', args);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  if (stdio.input) stdio.input.pipe(child.stdin);
  else child.stdin.end();
  // Read at once: Node discards the unread output of a child that has exited.
  const stdout = new PassThrough();
  child.stdout.pipe(stdio.output ?? stdout);
  const done = new Promise<void>((ok, fail) => {
    child.on('error', (e) =>
      fail(new CliError('Failed', `cannot run tar on this machine: ${e.message}`)),
    );
    child.on('close', (code) =>
      code === 0
        ? ok()
        : fail(new CliError('Failed', `tar failed here: ${stderr.trim() || `exit ${code}`}`)),
    );
  });
  return { stdout, done };
}

async function upload(pod: SandboxPod, local: string, remote: string): Promise<void> {
  const src = resolve(local);
  if (!existsSync(src))
    throw new CliError('InvalidInput', `cp: ${local}: no such file or directory`);
  const pack = hostTar(['-cf', '-', '-C', dirname(src), basename(src)], {});
  const stderr = new PassThrough();
  let remoteErr = '';
  stderr.on('data', (d: Buffer) => (remoteErr += d.toString()));
  const code = await execInPod(pod.config, {
    pod,
    container: pod.container,
    command: ['sh', '-c', UNPACK, 'sh', remote, basename(src)],
    tty: false,
    stdin: pack.stdout,
    stdout: new PassThrough().resume(),
    stderr,
  });
  await pack.done;
  if (code !== 0)
    throw new CliError(
      'Failed',
      `cp: cannot write ${remote} in the sandbox: ${remoteErr.trim() || `exit ${code}`}`,
    );
}

async function download(pod: SandboxPod, remote: string, local: string): Promise<void> {
  const dest = resolve(local);
  const into = existsSync(dest) && statSync(dest).isDirectory();
  const parent = into ? dest : dirname(dest);
  if (!existsSync(parent))
    throw new CliError('InvalidInput', `cp: ${dirname(local)}: no such directory here`);
  const base = basename(remote.replace(/\/+$/, '')) || '.';
  const tmp = await mkdtemp(join(parent, '.agent-sandbox-cp.'));
  try {
    const input = new PassThrough();
    const unpack = hostTar(['-xf', '-', '-C', tmp], { input });
    const stderr = new PassThrough();
    let remoteErr = '';
    stderr.on('data', (d: Buffer) => (remoteErr += d.toString()));
    const code = await execInPod(pod.config, {
      pod,
      container: pod.container,
      command: ['tar', '-cf', '-', '-C', dirname(remote), base],
      tty: false,
      stdout: input,
      stderr,
    });
    input.end();
    if (code !== 0) unpack.done.catch(() => undefined); // tar here fails on the empty input too
    if (code !== 0)
      throw new CliError(
        'Failed',
        /No such file|not found|Cannot stat/i.test(remoteErr)
          ? `cp: ${remote}: no such file or directory in the sandbox`
          : `cp: cannot read ${remote} in the sandbox: ${remoteErr.trim() || `exit ${code}`}`,
      );
    await unpack.done;
    const target = into ? join(dest, base) : dest;
    await rm(target, { recursive: true, force: true });
    await rename(join(tmp, base), target);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

export function runCopy(
  src: string,
  dst: string,
  opts: ClusterOptions,
  io: CommandIO,
): Promise<number> {
  const from = parseCopyEnd(src);
  const to = parseCopyEnd(dst);
  if ('sandbox' in from === 'sandbox' in to)
    throw new FlagError(
      'cp needs one side in a sandbox (ID:PATH) and one here, e.g. agent-sandbox cp ./data demo:/workspace/data',
    );
  if ('local' in from && !existsSync(from.local))
    throw new CliError('InvalidInput', `cp: ${from.local}: no such file or directory`);
  return sandboxBoundary(async () => {
    if ('sandbox' in to && 'local' in from) {
      const pod = await sandboxPod(to.sandbox, opts);
      await upload(pod, from.local, to.path);
    } else if ('sandbox' in from && 'local' in to) {
      const pod = await sandboxPod(from.sandbox, opts);
      await download(pod, from.path, to.local);
    }
    if (opts.output === 'name') io.stdout(`${dst}\n`);
    return 0;
  });
}

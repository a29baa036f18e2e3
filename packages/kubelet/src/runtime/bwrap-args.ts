// The bubblewrap command lines for one container, computed purely from the bundle's config.json
// (the same OCI spec runc gets, oci-spec.ts) — ADR 0034. bwrap 0.8 runs rootful here, without a
// user namespace: bwrap's own single-uid map would make the sandbox's uid host root (kuid 0), which
// the kernel treats as root for /proc/sys and file ownership; runc's default model (host uids, a
// reduced capability set, read-only /proc/sys, masked paths) is the one to match.
import { InvalidArgumentError } from '../errors.ts';
import { checkExecProcess, overlayEnv, type ExecOptions } from './container-runtime.ts';
import type { SeccompProfile } from './seccomp-bpf.ts';

export interface BwrapMount {
  destination: string;
  type?: string;
  source?: string;
  options?: string[];
}

/** The part of an OCI runtime spec the bubblewrap runtime reads. */
export interface BwrapSpec {
  hostname?: string;
  process: {
    args: string[];
    env: string[];
    cwd: string;
    user: { uid: number; gid: number; additionalGids?: number[] };
    capabilities?: { bounding?: string[] };
    terminal?: boolean;
    oomScoreAdj?: number;
  };
  root: { path: string; readonly?: boolean };
  mounts: BwrapMount[];
  linux?: {
    namespaces?: { type: string; path?: string }[];
    cgroupsPath?: string;
    maskedPaths?: string[];
    readonlyPaths?: string[];
    seccomp?: SeccompProfile;
  };
}

/** Where a static busybox is bound inside the sandbox to switch to a non-root uid/gid. */
export const UID_HELPER_PATH = '/.asb/busybox';

/** Caps the uid helper needs; setuid to a non-zero uid then clears every capability. */
const SWITCH_CAPS = ['CAP_SETUID', 'CAP_SETGID'];

/** The kernel's /dev/shm default for containers (runc's, oci-spec.ts STANDARD_MOUNTS). */
const SHM_BYTES = 65_536 * 1024;

export interface BwrapArgsOptions {
  /** 'file', 'dir' or undefined for a host path (/proc entries to mask, bind sources). */
  pathKind(path: string): 'file' | 'dir' | undefined;
  /** Host path of a static busybox (for non-root users); absent: only uid/gid 0 can run. */
  uidHelper?: string;
  /** An fd the caller opened on the compiled seccomp filter (seccomp-bpf.ts); absent: none. */
  seccompFd?: number;
}

/** Parses config.json, naming the first missing or malformed field. */
export function parseBwrapSpec(json: unknown): BwrapSpec {
  const o = json as Partial<BwrapSpec> | null;
  const fail = (field: string, want: string) => {
    throw new InvalidArgumentError(`config.json ${field}: ${want}`);
  };
  if (!o || typeof o !== 'object') return fail('', 'must be an object');
  const p = o.process;
  if (!p || !Array.isArray(p.args) || p.args.length === 0)
    return fail('process.args', 'must be a non-empty list');
  if (!Array.isArray(p.env)) return fail('process.env', 'must be a list of NAME=value');
  if (typeof p.cwd !== 'string' || !p.cwd.startsWith('/'))
    return fail('process.cwd', 'must be an absolute path');
  if (!p.user || !Number.isInteger(p.user.uid) || !Number.isInteger(p.user.gid))
    return fail('process.user', 'must have integer uid and gid');
  if (!o.root || typeof o.root.path !== 'string' || !o.root.path.startsWith('/'))
    return fail('root.path', 'must be an absolute host path');
  if (!Array.isArray(o.mounts)) return fail('mounts', 'must be a list');
  return o as BwrapSpec;
}

/** The Pod's network namespace path (config.json `linux.namespaces` type network). */
export function netnsPathOf(spec: BwrapSpec): string | undefined {
  return spec.linux?.namespaces?.find((n) => n.type === 'network')?.path || undefined;
}

/** Mount operations: the root, /proc, /dev, the spec's mounts, then masks and read-only covers. */
function mountArgs(spec: BwrapSpec, o: BwrapArgsOptions, helper: boolean): string[] {
  const out = ['--bind', spec.root.path, '/'];
  const made = new Set<string>();
  for (const m of spec.mounts) out.push(...parentDirs(m.destination, made), ...oneMount(m));
  if (helper) out.push('--ro-bind', o.uidHelper as string, UID_HELPER_PATH);
  for (const path of spec.linux?.readonlyPaths ?? [])
    if (o.pathKind(path) !== undefined) out.push('--ro-bind', path, path);
  for (const path of spec.linux?.maskedPaths ?? []) {
    const kind = o.pathKind(path);
    // A device bind: bwrap's plain binds are nodev, and /dev/null there could not be opened.
    if (kind === 'file') out.push('--dev-bind', '/dev/null', path);
    if (kind === 'dir') out.push('--perms', '0555', '--tmpfs', path, '--remount-ro', path);
  }
  // Mount points are made while / is writable; then it turns read-only (readOnlyRootFilesystem).
  if (spec.root.readonly === true) out.push('--remount-ro', '/');
  return out;
}

/**
 * `--dir` for each ancestor of a mount point, 0755 as runc makes a missing one: bwrap makes
 * them 0700, and a non-root process could then not reach the mount (the node-exec socket at
 * /run/agent-sandbox in an image without /run, ADR 0037). An existing directory keeps its mode.
 */
function parentDirs(destination: string, made: Set<string>): string[] {
  const out: string[] = [];
  const parts = destination.split('/').filter((p) => p !== '');
  for (let i = 1; i < parts.length; i++) {
    const dir = `/${parts.slice(0, i).join('/')}`;
    if (made.has(dir)) continue;
    made.add(dir);
    out.push('--perms', '0755', '--dir', dir);
  }
  return out;
}

/** One OCI mount as bwrap options; runc's standard kernel mounts map to bwrap's own. */
function oneMount(m: BwrapMount): string[] {
  const ro = (m.options ?? []).includes('ro');
  switch (m.type ?? 'bind') {
    case 'proc':
      return ['--proc', m.destination];
    case 'devpts': // part of --dev (a new devpts instance)
    case 'sysfs': // no /sys under bubblewrap: the host's sysfs is not namespaced enough (ADR 0034)
    case 'cgroup':
      return [];
    case 'mqueue':
      return ['--mqueue', m.destination];
    case 'tmpfs':
      if (m.destination === '/dev') return ['--dev', '/dev'];
      return m.destination === '/dev/shm'
        ? ['--perms', '1777', '--size', `${SHM_BYTES}`, '--tmpfs', m.destination]
        : ['--tmpfs', m.destination];
    case 'bind':
      if (!m.source)
        throw new InvalidArgumentError(`config.json mounts[${m.destination}].source: missing`);
      return [ro ? '--ro-bind' : '--bind', m.source, m.destination];
    default:
      throw new InvalidArgumentError(
        `config.json mounts[${m.destination}].type: "${m.type}" is not supported under bubblewrap (bind, tmpfs, proc, mqueue)`,
      );
  }
}

/** Capabilities: none but the spec's bounding set (bwrap drops all by default as root). */
function capArgs(spec: BwrapSpec, helper: boolean): string[] {
  const caps = new Set(spec.process.capabilities?.bounding ?? []);
  if (helper) SWITCH_CAPS.forEach((c) => caps.add(c));
  return ['--cap-drop', 'ALL', ...[...caps].flatMap((c) => ['--cap-add', c])];
}

function envArgs(spec: BwrapSpec): string[] {
  const out = ['--clearenv'];
  for (const kv of spec.process.env) {
    const i = kv.indexOf('=');
    if (i > 0) out.push('--setenv', kv.slice(0, i), kv.slice(i + 1));
  }
  return out;
}

/** The workload argv, through the uid helper when the user is not root. */
function userArgv(spec: BwrapSpec, argv: readonly string[], helper: boolean): string[] {
  const { uid, gid } = spec.process.user;
  return helper
    ? [UID_HELPER_PATH, 'nsenter', '-S', `${uid}`, '-G', `${gid}`, '--', ...argv]
    : [...argv];
}

function needsHelper(spec: BwrapSpec, o: BwrapArgsOptions): boolean {
  const { uid, gid, additionalGids } = spec.process.user;
  if ((additionalGids ?? []).length > 0)
    throw new InvalidArgumentError(
      'spec.securityContext.supplementalGroups: not supported under bubblewrap; remove it or use the runc RuntimeClass',
    );
  if (uid === 0 && gid === 0) return false;
  if (!o.uidHelper)
    throw new InvalidArgumentError(
      `user ${uid}:${gid}: bubblewrap needs a static busybox to run as a non-root user (apt-get install busybox-static), or run as uid 0`,
    );
  return true;
}

/**
 * `bwrap` arguments that start the container: own PID, IPC, UTS and cgroup namespaces (the
 * network namespace is the Pod's, joined by the caller with nsenter), the workload as PID 1 as
 * under runc, and the child's host pid and exit status as JSON lines on fd 3.
 */
export function bwrapStartArgs(spec: BwrapSpec, o: BwrapArgsOptions): string[] {
  return [
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup',
    ...(netnsPathOf(spec) ? [] : ['--unshare-net']),
    '--as-pid-1',
    '--die-with-parent',
    ...(spec.process.terminal === true ? [] : ['--new-session']),
    '--json-status-fd',
    '3',
    ...(spec.hostname ? ['--hostname', spec.hostname] : []),
    ...processArgs(spec, spec.process.args, o),
  ];
}

/** The filesystem view, capabilities, environment, working directory and argv (user switch). */
function processArgs(spec: BwrapSpec, argv: readonly string[], o: BwrapArgsOptions): string[] {
  const helper = needsHelper(spec, o);
  return [
    ...mountArgs(spec, o, helper),
    ...capArgs(spec, helper),
    ...envArgs(spec),
    ...(o.seccompFd !== undefined ? ['--seccomp', `${o.seccompFd}`] : []),
    '--chdir',
    spec.process.cwd,
    '--',
    ...userArgv(spec, argv, helper),
  ];
}

/**
 * `bwrap` arguments for a process inside the running container, to run under `nsenter` into the
 * container's network, IPC, UTS and cgroup namespaces and with `--pidns` on its PID namespace (the
 * caller adds both): bwrap builds the same filesystem view again from the same host paths (the
 * overlay root and volumes are shared, so files are too), with the container's capabilities, user,
 * environment and working directory (the exec's own cwd and env over them).
 *
 * No `--die-with-parent` here: under `--pidns` bwrap forks an intermediate that exits at once,
 * and the command arms its parent-death signal while that intermediate may still be exiting (a
 * loaded machine delays it): its exit then SIGKILLs the command before it runs — exit 137, no
 * output. Without the flag an exec's command outlives a killed exec process, as `runc exec`'s does.
 */
export function bwrapExecArgs(
  spec: BwrapSpec,
  argv: readonly string[],
  exec: ExecOptions,
  o: BwrapArgsOptions,
): string[] {
  checkExecProcess(exec);
  const process = {
    ...spec.process,
    cwd: exec.cwd ?? spec.process.cwd,
    env: overlayEnv(spec.process.env, exec.env),
  };
  return [...(exec.tty ? [] : ['--new-session']), ...processArgs({ ...spec, process }, argv, o)];
}

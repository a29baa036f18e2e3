// The seam between the node agent and one isolation mechanism (runc, runsc, bubblewrap). A
// runtime runs one container from a prepared OCI bundle in the foreground: the node agent keeps
// its stdio (CRI logs, attach) and learns the exit status from `exited`. Streaming (exec) runs
// a host command that this interface describes, so whoever spawns it can give it a pty.
import type { Readable, Writable } from 'node:stream';
import { InvalidArgumentError } from '../errors.ts';

/** How a container ended. `exitCode` follows the 128+signal convention (SIGKILL → 137). */
export interface ExitStatus {
  exitCode: number;
  /** Set when the runtime process itself died of a signal. */
  signal?: NodeJS.Signals;
}

/** A program to run on the host, as argv; `env` is the whole environment (nothing inherited). */
export interface HostCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
}

export interface ContainerStart {
  /** Unique among this runtime's containers (its state key); [a-z0-9-], at most 64 characters. */
  id: string;
  /** A directory holding config.json (OCI runtime spec) and the rootfs it names. */
  bundleDir: string;
  /** Keep a stdin pipe open (container `stdin: true`). */
  stdin: boolean;
  /**
   * The container's daemon dials the agent's exec socket (ADR 0037) and the runtime must let it
   * reach a host unix socket for that (`daemonExecOpensHostSockets`). @default false
   */
  hostSockets?: boolean;
}

/** The container process's user (config.json `process.user`), which an exec must run as. */
export interface ExecUser {
  uid: number;
  gid: number;
  additionalGids?: number[];
}

/** What an exec may set for its own command beyond the container's process config. */
export interface ExecProcess {
  /** The command's working directory, an absolute path; absent: the container's `process.cwd`. */
  cwd?: string;
  /**
   * Variables set on top of the container's environment (a name the container has takes this
   * value), as `runc exec --env` does; absent: the container's environment alone.
   */
  env?: Record<string, string>;
}

export interface ExecOptions extends ExecProcess {
  tty: boolean;
  /**
   * The container process's user. runc and bubblewrap take it from the container themselves;
   * `runsc exec` runs as root unless told (`--user`). Absent: the runtime's default.
   */
  user?: ExecUser;
}

/** Pure: throws InvalidArgumentError naming `exec.cwd` or `exec.env` when one is malformed. */
export function checkExecProcess(p: ExecProcess): void {
  if (p.cwd !== undefined && (!p.cwd.startsWith('/') || p.cwd.includes('\0')))
    throw new InvalidArgumentError(
      `exec.cwd: must be an absolute path, not ${JSON.stringify(p.cwd)}`,
    );
  for (const [name, value] of Object.entries(p.env ?? {})) {
    if (name === '' || name.includes('=') || name.includes('\0'))
      throw new InvalidArgumentError(
        `exec.env: ${JSON.stringify(name)} is not a variable name (non-empty, without "=" or NUL)`,
      );
    if (typeof value !== 'string' || value.includes('\0'))
      throw new InvalidArgumentError(`exec.env.${name}: must be a string without NUL`);
  }
}

/** Pure: `NAME=value` entries without `over`'s names, then `over`'s entries. */
export function overlayEnv(env: readonly string[], over: Record<string, string> = {}): string[] {
  const kept = env.filter((kv) => !Object.hasOwn(over, kv.slice(0, Math.max(kv.indexOf('='), 0))));
  return [...kept, ...Object.entries(over).map(([name, value]) => `${name}=${value}`)];
}

/** Pure: config.json's `process.user` as an ExecUser, or undefined when it has none. */
export function execUser(proc: Record<string, unknown> | undefined): ExecUser | undefined {
  const u = proc?.['user'] as
    { uid?: unknown; gid?: unknown; additionalGids?: unknown } | undefined;
  if (typeof u?.uid !== 'number' || typeof u.gid !== 'number') return undefined;
  const extra = Array.isArray(u.additionalGids)
    ? u.additionalGids.filter((g): g is number => typeof g === 'number')
    : [];
  return { uid: u.uid, gid: u.gid, ...(extra.length > 0 ? { additionalGids: extra } : {}) };
}

export interface ContainerProcess {
  readonly id: string;
  /** The container's stdout/stderr as the runtime relays them; both end when it exits. */
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Present when started with `stdin: true`. */
  readonly stdin: Writable | undefined;
  /** Resolves once the container has exited and its runtime process is gone; never rejects. */
  readonly exited: Promise<ExitStatus>;
}

export interface RuntimeProbe {
  available: boolean;
  /** e.g. `runc version 1.1.5`; shown on the Node as containerRuntimeVersion. */
  version?: string;
  /** Why it is unavailable, naming what to install or configure. */
  reason?: string;
}

/**
 * Contract:
 * - `handler` is the RuntimeClass handler name that selects this runtime (`runc`, `runsc`,
 *   `bubblewrap`); `scheme` prefixes containerIDs (`<scheme>://<id>`).
 * - `probe()` never throws; it reports whether this machine can run the runtime.
 * - `start()` resolves once the runtime process is spawned (not when the workload is ready); it
 *   rejects with RuntimeError when it cannot even spawn. Runtime failures after that (bad
 *   config, missing binary in the image) show up as a non-zero `exited` plus stderr text.
 * - `execCommand()` is pure: the host command that runs `argv` inside the running container
 *   `id` (with `tty`, the caller must give it a terminal as stdin/stdout).
 * - `isRunning()` is true once the container's own process runs (exec into it works); false
 *   while it is being created and after it stopped. Never throws.
 * - `kill()` signals the container's init; a container that is already gone is not an error.
 * - `remove()` force-stops and deletes the runtime's state for `id`; idempotent.
 * - `list()` returns the ids in the runtime's state directory (adoption after an agent restart
 *   and leak checks); only ids this agent created appear there.
 */
export interface ContainerRuntime {
  readonly handler: string;
  readonly scheme: string;
  /**
   * Who writes the container's cgroup (config.json `linux.cgroupsPath` and `linux.resources`):
   * `runtime` (runc does it itself) or `agent` (the agent creates it with the limits before
   * `start()`; runsc then uses the pre-created cgroup, bubblewrap has no cgroup support).
   */
  readonly cgroupOwner: 'runtime' | 'agent';
  /**
   * Whether a process in the container can dial a host unix socket bind-mounted into it, so
   * execs can go through the in-sandbox daemon (ADR 0037): runc and bubblewrap yes, runsc with
   * `--host-uds=open` (see `daemonExecOpensHostSockets`). Absent: no.
   */
  readonly daemonExec?: boolean;
  /**
   * Whether letting a container reach the exec socket lets it connect to every other host unix
   * socket in its mounts too (runsc's `--host-uds=open` has no per-path rule). The agent then
   * gives the socket only to Pods whose mounts are all its own (no hostPath volume) and starts
   * just the daemon's container with `hostSockets`. Absent: no.
   */
  readonly daemonExecOpensHostSockets?: boolean;
  /**
   * Whether the runtime runs config.json's `createRuntime` hooks on the host after the
   * container's namespaces, cgroup and mounts are made and before its process runs, failing the
   * create when one fails (runc): a container can then be created before its volumes are ready
   * and held by a start gate (start-gate.ts). Absent: no.
   */
  readonly startGate?: boolean;
  /**
   * The host pids.max that allows the container `limit` processes: the runtime's own tasks in the
   * container's cgroup (gVisor's sentry threads and ptrace stubs) count too. Pure.
   */
  hostPidsLimit(limit: number): number;
  probe(): Promise<RuntimeProbe>;
  start(spec: ContainerStart): Promise<ContainerProcess>;
  execCommand(id: string, argv: readonly string[], opts: ExecOptions): HostCommand;
  isRunning(id: string): Promise<boolean>;
  /**
   * Calls `onChange` when the runtime's state of container `id` may have changed (runc: its
   * state directory, through inotify), until the returned function is called: a hint to ask
   * `isRunning()` again now rather than at the next poll. Absent: poll only.
   */
  watchStart?(id: string, onChange: () => void): () => void;
  kill(id: string, signal: NodeJS.Signals): Promise<void>;
  remove(id: string): Promise<void>;
  list(): Promise<string[]>;
}

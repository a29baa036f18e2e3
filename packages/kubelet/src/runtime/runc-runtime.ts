// runc as a ContainerRuntime: one foreground `runc run --keep` per container with piped stdio
// (its exit status is the container's), state under a root of our own so that `list()` and
// cleanup only ever see this agent's containers (kubelet-and-oci §6.3 recipe).
import { existsSync } from 'node:fs';
import { RuntimeError } from '../errors.ts';
import { runCommand } from '../host/run-command.ts';
import { runcStarted, runscStarted, watchRuncStart } from './runc-state.ts';
import {
  checkExecProcess,
  type ContainerProcess,
  type ContainerRuntime,
  type ContainerStart,
  type ExecOptions,
  type HostCommand,
  type RuntimeProbe,
} from './container-runtime.ts';
import { PATH_ENV, spawnForeground } from './foreground-process.ts';

export interface OciCliRuntimeOptions {
  /** The binary. */
  binary: string;
  /** State directory (`--root`), private to this agent. */
  stateDir: string;
  /** Global flags before the subcommand (e.g. `--platform=ptrace` for runsc). */
  globalArgs?: readonly string[];
  handler: string;
  scheme: string;
  /** Install hint shown when the binary is missing. */
  installHint: string;
  /** `run --keep` (runc): state and cgroup stay until delete, so OOM kills can be read. */
  keep?: boolean;
  /** @default 'runtime' */
  cgroupOwner?: 'runtime' | 'agent';
  /** ContainerRuntime.daemonExec. @default true */
  daemonExec?: boolean;
  /**
   * Global flags `run` adds for a container started with `hostSockets` (runsc:
   * `--host-uds=open`); set, the runtime reports `daemonExecOpensHostSockets`.
   */
  hostSocketsArgs?: readonly string[];
  /** `exec` passes ExecOptions.user as `--user uid:gid` (runsc, whose exec is root otherwise). */
  execUser?: boolean;
  /** ContainerRuntime.startGate. @default false */
  startGate?: boolean;
  /** @default the limit itself */
  hostPidsLimit?: (limit: number) => number;
  /** argv that `run` is spawned through (the runtime's own argv is appended). */
  runLauncher?: readonly string[];
  /**
   * Answers `isRunning` from the state directory without a process (runc-state.ts); absent:
   * `<binary> state`.
   */
  started?: (stateDir: string, id: string) => Promise<boolean>;
  /** ContainerRuntime.watchStart over the state directory (runc-state.ts); absent: none. */
  watchStart?: (stateDir: string, id: string, onChange: () => void) => () => void;
}

/** runc and runsc share the OCI runtime CLI (create/run/exec/kill/delete/state). */
export class OciCliRuntime implements ContainerRuntime {
  readonly handler: string;
  readonly scheme: string;
  readonly cgroupOwner: 'runtime' | 'agent';
  readonly daemonExec: boolean;
  readonly daemonExecOpensHostSockets: boolean;
  readonly startGate: boolean;
  readonly #o: OciCliRuntimeOptions;

  constructor(options: OciCliRuntimeOptions) {
    this.#o = options;
    this.handler = options.handler;
    this.scheme = options.scheme;
    this.cgroupOwner = options.cgroupOwner ?? 'runtime';
    this.daemonExec = options.daemonExec ?? true;
    this.daemonExecOpensHostSockets = options.hostSocketsArgs !== undefined;
    this.startGate = options.startGate ?? false;
  }

  hostPidsLimit(limit: number): number {
    return this.#o.hostPidsLimit ? this.#o.hostPidsLimit(limit) : limit;
  }

  #args(...rest: string[]): string[] {
    return ['--root', this.#o.stateDir, ...(this.#o.globalArgs ?? []), ...rest];
  }

  async probe(): Promise<RuntimeProbe> {
    const r = await runCommand(this.#o.binary, ['--version']);
    if (r.code !== 0)
      return {
        available: false,
        reason: `${this.#o.binary} is not runnable (${r.stderr.trim() || `exit ${r.code}`}); ${this.#o.installHint}`,
      };
    return { available: true, version: r.stdout.split('\n')[0]?.trim() ?? '' };
  }

  async start(spec: ContainerStart): Promise<ContainerProcess> {
    const argv = [
      ...(this.#o.runLauncher ?? []),
      this.#o.binary,
      ...this.#args(
        ...(spec.hostSockets ? (this.#o.hostSocketsArgs ?? []) : []),
        'run',
        ...(this.#o.keep ? ['--keep'] : []),
        '--bundle',
        spec.bundleDir,
        spec.id,
      ),
    ];
    const started = await spawnForeground(argv, {
      id: spec.id,
      stdin: spec.stdin,
      env: PATH_ENV,
      cannotRun: (e) => `cannot run ${this.#o.binary}: ${e.message}; ${this.#o.installHint}`,
    });
    return started.process;
  }

  execCommand(id: string, argv: readonly string[], opts: ExecOptions): HostCommand {
    checkExecProcess(opts);
    const u = this.#o.execUser ? opts.user : undefined;
    const user = u
      ? [
          `--user=${u.uid}:${u.gid}`,
          ...(u.additionalGids ?? []).map((g) => `--additional-gids=${g}`),
        ]
      : [];
    // Both CLIs start from the container's cwd and env; --env sets a name over the container's.
    const proc = [
      ...(opts.cwd === undefined ? [] : [`--cwd=${opts.cwd}`]),
      ...Object.entries(opts.env ?? {}).map(([name, value]) => `--env=${name}=${value}`),
    ];
    return {
      file: this.#o.binary,
      args: this.#args('exec', ...user, ...proc, ...(opts.tty ? ['-t'] : []), id, ...argv),
      env: PATH_ENV,
    };
  }

  async isRunning(id: string): Promise<boolean> {
    if (this.#o.started) return this.#o.started(this.#o.stateDir, id);
    const r = await runCommand(this.#o.binary, this.#args('state', id));
    if (r.code !== 0) return false;
    try {
      return (JSON.parse(r.stdout) as { status?: string }).status === 'running';
    } catch {
      return false;
    }
  }

  watchStart(id: string, onChange: () => void): () => void {
    return this.#o.watchStart?.(this.#o.stateDir, id, onChange) ?? (() => undefined);
  }

  async kill(id: string, signal: NodeJS.Signals): Promise<void> {
    await runCommand(this.#o.binary, this.#args('kill', id, signal.replace(/^SIG/, '')));
  }

  async remove(id: string): Promise<void> {
    const r = await runCommand(this.#o.binary, this.#args('delete', '--force', id));
    if (r.code !== 0 && !/does not exist|not found|no such/i.test(r.stderr))
      throw new RuntimeError('Runtime', `${this.#o.binary} delete ${id}: ${r.stderr.trim()}`);
  }

  async list(): Promise<string[]> {
    if (!existsSync(this.#o.stateDir)) return [];
    const r = await runCommand(this.#o.binary, this.#args('list', '--quiet'));
    return r.code === 0 ? r.stdout.split('\n').filter((l) => l.trim() !== '') : [];
  }
}

export function runcRuntime(stateDir: string, binary = 'runc'): OciCliRuntime {
  return new OciCliRuntime({
    binary,
    stateDir,
    handler: 'runc',
    scheme: 'runc',
    installHint: 'install runc (apt-get install runc)',
    keep: true,
    // runc 1.1 runs createRuntime hooks from `run` after the mounts, before pivot_root and exec.
    startGate: true,
    started: runcStarted,
    watchStart: watchRuncStart,
  });
}

/**
 * runsc's netstack refuses a namespace where /proc/sys/net/core/rmem_default exists ("cannot run
 * with network enabled in root network namespace"): its root-namespace test predates kernels that
 * show that file in every namespace (6.x does). `run` therefore starts in a private mount
 * namespace with /proc/sys/net hidden; the sandbox then joins the Pod's netns (the spec's
 * `linux.namespaces` path) and takes over its interfaces, so gVisor Pods get their bridge IP.
 */
export const RUNSC_NETNS_LAUNCHER: readonly string[] = [
  'unshare',
  '--mount',
  '--propagation',
  'private',
  '--',
  'sh',
  '-c',
  'mount -t tmpfs -o size=4k,mode=555 asb-netmask /proc/sys/net && exec "$@"',
  'runsc-launch',
];

/**
 * Under the ptrace platform the sentry runs about 36 host tasks and each sandboxed process about
 * 8.4 more (measured: 36 → 203 → 373 with 20 and 40 sleeping processes), so a pod limit of N
 * processes becomes N × 9 + 64 host tasks. At that limit the sentry cannot make the stub process
 * of the next fork and the sandbox ends (the container terminates and restarts by policy): the
 * limit holds, but as the end of the sandbox, not as fork's EAGAIN. RLIMIT_NPROC does not help
 * here: this runsc neither gives it to exec'd processes nor survives it on its own stubs.
 */
export function gvisorHostPids(limit: number): number {
  return limit < 0 ? limit : limit * 9 + 64;
}

/**
 * gVisor. Debian's runsc only has the ptrace platform here. Networking is gVisor's own netstack
 * (`--network=sandbox`) over the Pod's network namespace: the sandbox moves eth0's addresses into
 * netstack, so the host namespace shows the interface without them while the Pod runs.
 */
export function runscRuntime(
  stateDir: string,
  binary = 'runsc',
  opts: { daemonExec?: boolean } = {},
): OciCliRuntime {
  return new OciCliRuntime({
    binary,
    stateDir,
    globalArgs: ['--platform=ptrace', '--network=sandbox'],
    // Execs through the daemon need the sandbox to dial the agent's socket, which only
    // --host-uds=open allows, and it allows every host socket in the sandbox's mounts: the
    // agent asks for it per Pod, only where every mount is its own (ADR 0040). The sandbox
    // keeps the flags `run` gave it: exec, kill and delete need not repeat it.
    daemonExec: opts.daemonExec ?? true,
    hostSocketsArgs: ['--host-uds=open'],
    execUser: true,
    handler: 'runsc',
    scheme: 'gvisor',
    installHint: 'install gVisor (apt-get install runsc)',
    // runsc applies no limits to a cgroup that exists, and removes one it made when `run` ends
    // (taking the OOM counter with it): the agent makes it, with the limits, and removes it later.
    cgroupOwner: 'agent',
    hostPidsLimit: gvisorHostPids,
    runLauncher: RUNSC_NETNS_LAUNCHER,
    started: runscStarted,
  });
}

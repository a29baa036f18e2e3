// bubblewrap as a ContainerRuntime, the fallback where runc cannot run (ADR 0034). One foreground
// `bwrap` per container, started from a shell that first joins the cgroup the agent made with the
// limits (bwrap has no cgroup support) and then enters the Pod's network namespace with nsenter.
// bwrap reports the container's host pid on fd 3 (--json-status-fd): kill and exec use it. A state
// file per container (pid + start time) lets a restarted agent find and stop what it left.
import { existsSync, statSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { KubeletError, errorMessage } from '../errors.ts';
import { runCommand } from '../host/run-command.ts';
import {
  bwrapExecArgs,
  bwrapStartArgs,
  netnsPathOf,
  parseBwrapSpec,
  type BwrapArgsOptions,
  type BwrapSpec,
} from './bwrap-args.ts';
import { cgroupDirs, hostCgroupMode, joinCgroupScript } from './cgroup-limits.ts';
import { compileSeccomp } from './seccomp-bpf.ts';
import type {
  ContainerProcess,
  ContainerRuntime,
  ContainerStart,
  ExecOptions,
  HostCommand,
  RuntimeProbe,
} from './container-runtime.ts';
import { PATH_ENV, spawnForeground } from './foreground-process.ts';

export interface BwrapRuntimeOptions {
  /** State directory (one `<id>.json` per container), private to this agent. */
  stateDir: string;
  /** @default 'bwrap' */
  binary?: string;
  /** Static busybox bound into sandboxes whose user is not root. @default '/bin/busybox' */
  uidHelper?: string;
}

const INSTALL_HINT = 'install bubblewrap (apt-get install bubblewrap)';

/** What the runtime keeps per running container. */
interface Running {
  spec: BwrapSpec;
  /** Host pid of the container's PID 1, once bwrap reported it. */
  pid?: number;
  exited: boolean;
  /** The compiled seccomp filter in the bundle, loaded by every bwrap of this container. */
  seccompFile: string | undefined;
  /** The state file write, awaited by remove() so that no file outlives its container. */
  recorded: Promise<void>;
}

/** On disk, for `list()`/`remove()` after an agent restart. */
interface StateFile {
  pid: number;
  /** /proc/<pid>/stat start time, so a reused pid is never signalled. */
  startTime: string;
}

const pathKind = (p: string): 'file' | 'dir' | undefined => {
  try {
    return statSync(p).isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined; // absent on this kernel: nothing to mask
  }
};

/** The fd the exec shell opens the container's PID namespace on, for bwrap --pidns. */
const PIDNS_FD = 4;
/** The fd the shells open the compiled seccomp filter on, for bwrap --seccomp. */
const SECCOMP_FD = 5;

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Shell steps that open what bwrap reads from fds (the seccomp filter). */
function openFds(running: Pick<Running, 'seccompFile'>): string[] {
  return running.seccompFile ? [`exec ${SECCOMP_FD}< ${shellQuote(running.seccompFile)}`] : [];
}

/** `sh -c` prologue: join the container's cgroups and OOM score, then exec the rest. */
function launchScript(spec: BwrapSpec, extra: readonly string[] = []): string {
  const path = spec.linux?.cgroupsPath;
  const steps = path ? [joinCgroupScript(cgroupDirs(path, hostCgroupMode()))] : [];
  steps.push(...extra);
  const adj = spec.process.oomScoreAdj;
  // Lowering the score needs CAP_SYS_RESOURCE, which this kind of machine withholds from root:
  // the score then stays the agent's, as runc leaves it.
  if (adj !== undefined) steps.push(`{ echo ${adj} > /proc/self/oom_score_adj; } 2>/dev/null || :`);
  return [...steps, 'exec "$@"'].join(' && ');
}

async function procStartTime(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  // Field 22, counted after the parenthesised command name (which may hold spaces).
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

export class BwrapRuntime implements ContainerRuntime {
  readonly handler = 'bubblewrap';
  readonly scheme = 'bubblewrap';
  readonly cgroupOwner = 'agent';
  readonly daemonExec = true;
  readonly #o: Required<BwrapRuntimeOptions>;
  readonly #running = new Map<string, Running>();

  constructor(options: BwrapRuntimeOptions) {
    this.#o = { binary: 'bwrap', uidHelper: '/bin/busybox', ...options };
  }

  /** The outer bwrap process waits in the container's cgroup beside PID 1: one task more. */
  hostPidsLimit(limit: number): number {
    return limit < 0 ? limit : limit + 1;
  }

  #argsOptions(running: Pick<Running, 'seccompFile'>): BwrapArgsOptions {
    return {
      pathKind,
      ...(existsSync(this.#o.uidHelper) ? { uidHelper: this.#o.uidHelper } : {}),
      ...(running.seccompFile ? { seccompFd: SECCOMP_FD } : {}),
    };
  }

  async probe(): Promise<RuntimeProbe> {
    const r = await runCommand(this.#o.binary, ['--version']);
    if (r.code !== 0)
      return {
        available: false,
        reason: `${this.#o.binary} is not runnable (${r.stderr.trim() || `exit ${r.code}`}); ${INSTALL_HINT}`,
      };
    if (process.arch !== 'x64')
      return {
        available: false,
        reason: `the bubblewrap runtime's seccomp filter is compiled for x86_64 only (this node: ${process.arch})`,
      };
    if (process.getuid?.() !== 0)
      return {
        available: false,
        reason: 'the bubblewrap runtime needs root (cgroup limits, the Pod network namespace)',
      };
    const ns = await runCommand('nsenter', ['--version']);
    if (ns.code !== 0)
      return { available: false, reason: 'nsenter is missing (apt-get install util-linux)' };
    return { available: true, version: r.stdout.trim() };
  }

  async start(spec: ContainerStart): Promise<ContainerProcess> {
    const config = parseBwrapSpec(
      JSON.parse(await readFile(join(spec.bundleDir, 'config.json'), 'utf8')),
    );
    const profile = config.linux?.seccomp;
    const seccompFile = profile ? join(spec.bundleDir, 'seccomp.bpf') : undefined;
    if (profile && seccompFile) await writeFile(seccompFile, compileSeccomp(profile));
    const running: Running = {
      spec: config,
      seccompFile,
      exited: false,
      recorded: Promise.resolve(),
    };
    const args = bwrapStartArgs(config, this.#argsOptions(running));
    const netns = netnsPathOf(config);
    const argv = [...(netns ? ['nsenter', `--net=${netns}`, '--'] : []), this.#o.binary, ...args];
    await mkdir(this.#o.stateDir, { recursive: true });
    let reported: number | undefined;
    const { child, process } = await spawnForeground(
      ['/bin/sh', '-c', launchScript(config, openFds(running)), 'bwrap-launch', ...argv],
      {
        id: spec.id,
        stdin: spec.stdin,
        env: PATH_ENV,
        extraPipes: 1,
        cannotRun: (e) => `cannot run /bin/sh for bwrap: ${e.message}`,
        reportedExitCode: () => reported,
      },
    );
    this.#running.set(spec.id, running);
    child.once('close', () => (running.exited = true));
    const status = child.stdio[3] as NodeJS.ReadableStream | null;
    if (status)
      createInterface({ input: status }).on('line', (line) => {
        const msg = parseStatusLine(line);
        if (msg['child-pid'] !== undefined)
          running.recorded = this.#record(spec.id, running, msg['child-pid']);
        if (msg['exit-code'] !== undefined) reported = msg['exit-code'];
      });
    return process;
  }

  async #record(id: string, running: Running, pid: number): Promise<void> {
    running.pid = pid;
    const startTime = await procStartTime(pid);
    if (startTime === undefined || running.exited) return;
    const state: StateFile = { pid, startTime };
    await writeFile(join(this.#o.stateDir, `${id}.json`), JSON.stringify(state)).catch(
      () => undefined, // the state dir is only for cleanup after a crash; the container runs on
    );
  }

  execCommand(id: string, argv: readonly string[], opts: ExecOptions): HostCommand {
    const running = this.#running.get(id);
    if (!running?.pid || running.exited)
      return {
        file: '/bin/sh',
        args: ['-c', `echo 'container ${id.slice(0, 12)} is not running' >&2; exit 126`],
        env: PATH_ENV,
      };
    const spec = running.spec;
    // The PID namespace goes to bwrap as an fd (--pidns): bwrap mounts a /proc of its own only
    // when it enters or makes a PID namespace; under `nsenter --pid` it would bind the host's.
    const pidns = `exec ${PIDNS_FD}< /proc/${running.pid}/ns/pid`;
    return {
      file: '/bin/sh',
      args: [
        '-c',
        launchScript(spec, [pidns, ...openFds(running)]),
        'bwrap-exec',
        'nsenter',
        `--target=${running.pid}`,
        '--net',
        '--uts',
        '--ipc',
        '--cgroup',
        '--',
        this.#o.binary,
        '--pidns',
        `${PIDNS_FD}`,
        ...bwrapExecArgs(spec, argv, opts, this.#argsOptions(running)),
      ],
      env: PATH_ENV,
    };
  }

  async isRunning(id: string): Promise<boolean> {
    const r = this.#running.get(id);
    return r?.pid !== undefined && !r.exited;
  }

  async kill(id: string, signal: NodeJS.Signals): Promise<void> {
    const r = this.#running.get(id);
    if (r?.pid === undefined || r.exited) return;
    signalPid(r.pid, signal);
  }

  async remove(id: string): Promise<void> {
    const r = this.#running.get(id);
    if (r?.pid !== undefined && !r.exited) signalPid(r.pid, 'SIGKILL');
    await r?.recorded;
    this.#running.delete(id);
    const file = join(this.#o.stateDir, `${id}.json`);
    const state = await readFile(file, 'utf8').then(
      (t) => JSON.parse(t) as StateFile,
      () => undefined,
    );
    // Left by an earlier agent: PID 1's death ends the whole PID namespace.
    if (state && (await procStartTime(state.pid)) === state.startTime)
      signalPid(state.pid, 'SIGKILL');
    await rm(file, { force: true });
  }

  async list(): Promise<string[]> {
    const names = await readdir(this.#o.stateDir).catch(() => []);
    return names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -'.json'.length));
  }
}

function parseStatusLine(line: string): { 'child-pid'?: number; 'exit-code'?: number } {
  try {
    return JSON.parse(line) as { 'child-pid'?: number; 'exit-code'?: number };
  } catch {
    return {}; // not a status line: bwrap writes only JSON objects there
  }
}

/** Signals a pid; one that is already gone is not an error. */
function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH')
      throw new KubeletError('Runtime', `kill ${signal} ${pid}: ${errorMessage(e)}`, { cause: e });
  }
}

export function bwrapRuntime(stateDir: string, binary = 'bwrap'): BwrapRuntime {
  return new BwrapRuntime({ stateDir, binary });
}

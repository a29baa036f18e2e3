// runc as a ContainerRuntime: one foreground `runc run --keep` per container with piped stdio
// (its exit status is the container's), state under a root of our own so that `list()` and
// cleanup only ever see this agent's containers (kubelet-and-oci §6.3 recipe).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { RuntimeError } from '../errors.ts';
import { runCommand } from '../host/run-command.ts';
import type {
  ContainerProcess,
  ContainerRuntime,
  ContainerStart,
  ExitStatus,
  HostCommand,
  RuntimeProbe,
} from './container-runtime.ts';

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
  /** @default 0 */
  pidsOverhead?: number;
}

const PATH_ENV = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' };

/** runc and runsc share the OCI runtime CLI (create/run/exec/kill/delete/state). */
export class OciCliRuntime implements ContainerRuntime {
  readonly handler: string;
  readonly scheme: string;
  readonly pidsOverhead: number;
  readonly #o: OciCliRuntimeOptions;

  constructor(options: OciCliRuntimeOptions) {
    this.#o = options;
    this.handler = options.handler;
    this.scheme = options.scheme;
    this.pidsOverhead = options.pidsOverhead ?? 0;
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
    const child = spawn(
      this.#o.binary,
      this.#args('run', ...(this.#o.keep ? ['--keep'] : []), '--bundle', spec.bundleDir, spec.id),
      {
        stdio: [spec.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
        env: PATH_ENV,
      },
    );
    const exited = new Promise<ExitStatus>((resolve) => {
      child.on('error', () => resolve({ exitCode: 128 }));
      child.on('close', (code, signal) =>
        resolve(signal ? { exitCode: 128 + 9, signal } : { exitCode: code ?? 128 }),
      );
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (e) =>
        reject(
          new RuntimeError(
            'Runtime',
            `cannot run ${this.#o.binary}: ${e.message}; ${this.#o.installHint}`,
          ),
        ),
      );
    });
    if (!child.stdout || !child.stderr) throw new RuntimeError('Runtime', 'runtime stdio missing');
    return {
      id: spec.id,
      stdout: child.stdout,
      stderr: child.stderr,
      stdin: child.stdin ?? undefined,
      exited,
    };
  }

  execCommand(id: string, argv: readonly string[], opts: { tty: boolean }): HostCommand {
    return {
      file: this.#o.binary,
      args: this.#args('exec', ...(opts.tty ? ['-t'] : []), id, ...argv),
      env: PATH_ENV,
    };
  }

  async isRunning(id: string): Promise<boolean> {
    const r = await runCommand(this.#o.binary, this.#args('state', id));
    if (r.code !== 0) return false;
    try {
      return (JSON.parse(r.stdout) as { status?: string }).status === 'running';
    } catch {
      return false;
    }
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
  });
}

/**
 * gVisor. Debian's runsc only has the ptrace platform here. Its netstack cannot take over a
 * netns that has only loopback (it refuses "network enabled in root network namespace"), so pods
 * get `--network=none`: gVisor's own loopback, no pod IP (follow-up: `sandbox` networking once
 * the bridge network gives pods an interface).
 */
export function runscRuntime(stateDir: string, binary = 'runsc'): OciCliRuntime {
  return new OciCliRuntime({
    binary,
    stateDir,
    globalArgs: ['--platform=ptrace', '--network=none'],
    handler: 'runsc',
    scheme: 'gvisor',
    installHint: 'install gVisor (apt-get install runsc)',
    pidsOverhead: 1024,
  });
}

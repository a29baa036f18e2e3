// A process started with Start: its own process group (or a PTY session), output retained for
// re-attach, any number of followers, and its exit code kept after it ends.
import { spawn, type ChildProcess } from 'node:child_process';
import { sandboxdError } from '../errors.ts';
import { signalGroup, spawnError } from '../exec.ts';
import { ptyArgv, ptyChildPid, resizePty } from './pty.ts';
import { RetainedOutput } from './retained-output.ts';

export type OutputEvent =
  { kind: 'stdout' | 'stderr'; data: Buffer } | { kind: 'exit'; exitCode: number };

export interface SpawnSpec {
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  pty?: { cols: number; rows: number };
  ptyCommand: string[];
  sttyCommand: string[];
  retainBytes: number;
  chunkSize: number;
  /** How long pipes held open by grandchildren may outlive the child. @default 5000 */
  drainMs?: number;
}

type Listener = (e: OutputEvent) => void;

export class ManagedProcess {
  readonly stdout: RetainedOutput;
  readonly stderr: RetainedOutput;
  exitCode: number | undefined;
  timedOut = false;
  private readonly listeners = new Set<Listener>();
  private stdinClosed = false;
  private constructor(
    readonly id: number,
    readonly argv: string[],
    readonly child: ChildProcess,
    readonly spec: SpawnSpec,
  ) {
    this.stdout = new RetainedOutput(spec.retainBytes);
    this.stderr = new RetainedOutput(spec.retainBytes);
  }

  /** Spawns and resolves once the OS started it; rejects NotFound/PermissionDenied/Internal. */
  static start(id: number, spec: SpawnSpec): Promise<ManagedProcess> {
    const prefix = spec.pty ? 'failed to start command with PTY' : 'failed to start command';
    const [cmd = '', ...args] = spec.pty
      ? ptyArgv(spec.ptyCommand, spec.argv, spec.pty.cols, spec.pty.rows)
      : spec.argv;
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawn(cmd, args, { cwd: spec.cwd, env: spec.env, detached: true, stdio: 'pipe' });
      } catch (err: unknown) {
        reject(spawnError(err, prefix, spec.argv[0] ?? ''));
        return;
      }
      child.once('error', (err) =>
        reject(spawnError(err, prefix, spec.pty ? cmd : (spec.argv[0] ?? ''))),
      );
      child.once('spawn', () => {
        const p = new ManagedProcess(id, spec.argv, child, spec);
        p.wire();
        resolve(p);
      });
    });
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  get isPty(): boolean {
    return this.spec.pty !== undefined;
  }

  private emit(e: OutputEvent): void {
    for (const l of this.listeners) l(e);
  }

  private wire(): void {
    const chunked = (kind: 'stdout' | 'stderr', store: RetainedOutput) => (b: Buffer) => {
      for (let i = 0; i < b.length; i += this.spec.chunkSize) {
        const part = b.subarray(i, i + this.spec.chunkSize);
        store.append(part);
        this.emit({ kind, data: part });
      }
    };
    this.child.stdout?.on('data', chunked('stdout', this.stdout));
    this.child.stderr?.on('data', chunked('stderr', this.stderr));
    this.child.stdin?.on('error', () => undefined); // EPIPE after the child ended: reported by writeStdin
    let code = -1;
    this.child.once('exit', (c) => {
      code = c ?? -1;
      const drain = setTimeout(() => {
        this.child.stdout?.destroy();
        this.child.stderr?.destroy();
      }, this.spec.drainMs ?? 5000);
      drain.unref();
      this.child.once('close', () => clearTimeout(drain));
    });
    this.child.once('close', () => {
      this.exitCode = code;
      this.emit({ kind: 'exit', exitCode: code });
      this.listeners.clear();
    });
  }

  /** Follows new output; returns the unsubscribe function. */
  follow(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async writeStdin(input: Uint8Array | undefined, eof: boolean): Promise<void> {
    const stdin = this.child.stdin;
    if (!stdin) throw sandboxdError('FailedPrecondition', `process ${this.id} has no stdin`);
    if (input && input.length > 0) {
      if (this.stdinClosed || stdin.destroyed) {
        throw sandboxdError('FailedPrecondition', `process ${this.id} stdin is closed`);
      }
      await new Promise<void>((resolve, reject) =>
        stdin.write(Buffer.from(input), (err) =>
          err ? reject(sandboxdError('Internal', `write stdin: ${err.message}`, err)) : resolve(),
        ),
      );
    }
    if (eof && !this.stdinClosed) {
      this.stdinClosed = true;
      stdin.end();
    }
  }

  /** Signals the process group; in PTY mode also the PTY session's group. */
  async signal(sig: NodeJS.Signals): Promise<void> {
    if (!this.running) return;
    if (this.isPty && this.child.pid !== undefined) {
      const inner = await ptyChildPid(this.child.pid);
      if (inner !== undefined) {
        try {
          process.kill(-inner, sig);
        } catch {
          // the session already ended
        }
      }
    }
    signalGroup(this.child, sig);
  }

  async resize(cols: number, rows: number): Promise<void> {
    if (!this.isPty)
      throw sandboxdError(
        'FailedPrecondition',
        `failed to resize TTY: process ${this.id} has no TTY`,
      );
    if (!this.running || this.child.pid === undefined) {
      throw sandboxdError(
        'FailedPrecondition',
        `failed to resize TTY: process ${this.id} has completed`,
      );
    }
    const inner = await ptyChildPid(this.child.pid);
    if (inner === undefined)
      throw sandboxdError(
        'FailedPrecondition',
        `failed to resize TTY: process ${this.id} has completed`,
      );
    try {
      await resizePty(this.spec.sttyCommand, inner, cols, rows);
    } catch (err: unknown) {
      throw sandboxdError('FailedPrecondition', `failed to resize TTY: ${String(err)}`, err);
    }
  }
}

// One run of one container: bundle (config.json + writable root), CRI log, the runtime process,
// OOM detection from the container's memory cgroup, termination message, then cleanup.
import { formatTime } from '@agent-sandbox/kube-types';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createCgroup, oomKills, type OciResources } from '../runtime/cgroup-limits.ts';
import type { ContainerProcess, ContainerRuntime } from '../runtime/container-runtime.ts';
import { StartGate } from '../runtime/start-gate.ts';
import { CriLogWriter } from '../streaming/cri-log.ts';
import { prepareRootfs, removeMountedDir, type ContainerRootfs } from './container-rootfs.ts';
import { podPhaseTimer, type PodPhaseTimer } from './pod-phases.ts';

export interface InstanceSpec {
  runtime: ContainerRuntime;
  /** Instance directory: bundle, rootfs layers, termination log. */
  dir: string;
  imageRootfs: string;
  logPath: string;
  cgroupsPath: string;
  stdin: boolean;
  /** ContainerStart.hostSockets: the daemon in it dials the agent's exec socket. */
  hostSockets?: boolean;
  /** A root already mounted at `dir/fs` over imageRootfs (rootfs-stage.ts, root-pool.ts); undefined: none. */
  staged?: Promise<ContainerRootfs | undefined>;
  /**
   * The process is held at a start gate until start() (runtimes with `startGate`): create() may
   * then run before the Pod's volumes are ready. @default false
   */
  gated?: boolean;
  /** Times the start's steps (rootfs, bundle, cgroup, runtime-start, until-running). */
  timer?: PodPhaseTimer;
  /** config.json for a given root path and termination-log host file. */
  config(rootfs: string, terminationLog: string): Record<string, unknown>;
}

export interface InstanceExit {
  exitCode: number;
  oomKilled: boolean;
  message: string;
  finishedAt: string;
}

export class ContainerInstance {
  readonly id = randomBytes(32).toString('hex');
  readonly spec: InstanceSpec;
  process: ContainerProcess | undefined;
  /** config.json's `process` once the bundle is written: what an exec applies (ADR 0037). */
  processConfig: Record<string, unknown> | undefined;
  readonly #listeners = new Set<(stream: 'stdout' | 'stderr', chunk: Buffer) => void>();
  #stopped = false;
  /** When a stop under way sends SIGKILL. */
  #deadline = Infinity;
  /** A stop() that came before the process: its grace. */
  #stopWanted: number | undefined;
  #created: Promise<void> | undefined;
  /** Holds a container created ahead of its volumes (spec.gated) until start(). */
  #gate: StartGate | undefined;

  constructor(spec: InstanceSpec) {
    this.spec = spec;
  }

  /** A stop was asked for (it may still be waiting out the grace). */
  get stopping(): boolean {
    return this.#stopped || this.#stopWanted !== undefined;
  }

  get containerID(): string {
    return `${this.spec.runtime.scheme}://${this.id}`;
  }

  subscribe(l: (stream: 'stdout' | 'stderr', chunk: Buffer) => void): () => void {
    this.#listeners.add(l);
    return () => this.#listeners.delete(l);
  }

  /**
   * Prepares and starts; resolves when the container runs (or already ended). Throws on
   * preparation errors. After an early create(), only lets the held process run.
   */
  async start(): Promise<void> {
    await this.create();
    if (!this.process || this.stopping) return;
    const { time } = this.spec.timer ?? podPhaseTimer(undefined, '', '');
    await this.#gate?.give('go');
    await time('until-running', () => this.#untilRunning());
    await this.#gate?.release();
  }

  /**
   * Bundle and runtime process, without letting the container's process run when the spec is
   * `gated` (and the runtime has a start gate): start() lets it. Idempotent.
   */
  create(): Promise<void> {
    this.#created ??= this.#create();
    return this.#created;
  }

  async #create(): Promise<void> {
    const { dir } = this.spec;
    const { time } = this.spec.timer ?? podPhaseTimer(undefined, '', '');
    await mkdir(dir, { recursive: true });
    const rootfs = await time(
      'rootfs',
      async () => (await this.spec.staged) ?? prepareRootfs(this.spec.imageRootfs, join(dir, 'fs')),
    );
    const terminationLog = join(dir, 'termination-log');
    if (this.spec.gated && this.spec.runtime.startGate) this.#gate = new StartGate(dir);
    const config = await time('bundle', async () => {
      await writeFile(terminationLog, '');
      const config = this.spec.config(rootfs.path, terminationLog);
      if (this.#gate) config['hooks'] = { createRuntime: [this.#gate.hook()] };
      await writeFile(join(dir, 'config.json'), JSON.stringify(config, null, 2));
      this.processConfig = config['process'] as Record<string, unknown> | undefined;
      return config;
    });
    if (this.spec.runtime.cgroupOwner === 'agent') {
      const linux = config['linux'] as { resources?: OciResources } | undefined;
      await time('cgroup', () => createCgroup(this.spec.cgroupsPath, linux?.resources ?? {}));
    }
    const log = new CriLogWriter(this.spec.logPath);
    const process = await time('runtime-start', () =>
      this.spec.runtime.start({
        id: this.id,
        bundleDir: dir,
        stdin: this.spec.stdin,
        ...(this.spec.hostSockets ? { hostSockets: true } : {}),
      }),
    );
    this.process = process;
    this.#logClosed = this.#follow(log, process);
    if (this.#stopWanted !== undefined) await this.stop(this.#stopWanted);
  }

  /** Copies both streams into the CRI log (and to attach listeners) until both end. */
  #follow(log: CriLogWriter, p: ContainerProcess): Promise<void> {
    const copy = (source: NodeJS.ReadableStream, stream: 'stdout' | 'stderr') =>
      new Promise<void>((resolve) => {
        source.on('data', (c: Buffer) => {
          log.write(stream, c);
          this.#listeners.forEach((l) => l(stream, c));
        });
        source.on('close', () => resolve());
        source.on('end', () => resolve());
      });
    return Promise.all([copy(p.stdout, 'stdout'), copy(p.stderr, 'stderr')]).then(() =>
      log.flush(),
    );
  }

  /** Until exec works (the runtime reports it running) or the container already ended. */
  async #untilRunning(): Promise<void> {
    let ended = false;
    void this.process?.exited.then(() => (ended = true));
    const deadline = Date.now() + 30_000;
    // The runtime's change hint (runc: inotify on its state directory) ends a wait early, so the
    // start is seen as runc makes it; the poll stays for runtimes without one and missed hints.
    const pause = wakeableSleep();
    const unwatch = this.spec.runtime.watchStart?.(this.id, pause.wake);
    try {
      while (!ended && Date.now() < deadline) {
        if (await this.spec.runtime.isRunning(this.id)) return;
        // Every runtime answers without a process (runc-state.ts, bwrap in memory): cheap to ask.
        await pause.sleep(5);
      }
    } finally {
      unwatch?.();
    }
  }

  #logClosed: Promise<void> = Promise.resolve();

  /** Waits for the exit, then removes runtime state and the writable root. */
  async wait(): Promise<InstanceExit> {
    const status = await (this.process?.exited ?? Promise.resolve({ exitCode: 128 }));
    await this.#gate?.release();
    const finishedAt = formatTime(Date.now());
    await this.#logClosed;
    const oomKilled = (await oomKills(this.spec.cgroupsPath)) > 0;
    const message = (
      await readFile(join(this.spec.dir, 'termination-log'), 'utf8').catch(() => '')
    ).slice(0, 4096);
    await this.cleanup();
    return { exitCode: status.exitCode, oomKilled, message, finishedAt };
  }

  /**
   * Signals TERM, then KILL after `graceMs`, retrying until the process is gone. Asked while
   * start() has not spawned the process yet, it is remembered: start() stops the process as soon
   * as it exists — otherwise a Pod deleted (or a node stopped) mid-start kept running and its
   * worker waited on it for ever.
   */
  async stop(graceMs: number): Promise<void> {
    if (this.#stopped) {
      // A stop under way only gets shorter (a second DELETE with a shorter grace).
      this.#deadline = Math.min(this.#deadline, Date.now() + graceMs);
      return;
    }
    if (!this.process) {
      this.#stopWanted = Math.min(this.#stopWanted ?? graceMs, graceMs);
      return;
    }
    this.#stopped = true;
    // Held at its gate: the hook fails, and with it the create (runc removes the container).
    await this.#gate?.give('stop');
    const exited = this.process.exited.then(() => true);
    this.#deadline = Date.now() + graceMs;
    for (;;) {
      const deadline = this.#deadline;
      const signal = Date.now() < deadline ? 'SIGTERM' : 'SIGKILL';
      await this.spec.runtime.kill(this.id, signal);
      const done = await Promise.race([
        exited,
        new Promise<false>((r) =>
          setTimeout(
            () => r(false),
            signal === 'SIGTERM' ? Math.min(500, Math.max(50, deadline - Date.now())) : 200,
          ),
        ),
      ]);
      if (done) return;
    }
  }

  async cleanup(): Promise<void> {
    await this.spec.runtime.remove(this.id);
    await removeMountedDir(this.spec.dir);
  }
}

/** A sleep that `wake()` ends early; a wake while none runs ends the next one at once. */
function wakeableSleep(): { sleep(ms: number): Promise<void>; wake(): void } {
  let pending = false;
  let end: (() => void) | undefined;
  return {
    wake: () => (end ? end() : (pending = true)),
    sleep: (ms) => {
      if (pending) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => end?.(), ms);
        end = () => {
          clearTimeout(timer);
          end = undefined;
          resolve();
        };
      });
    },
  };
}

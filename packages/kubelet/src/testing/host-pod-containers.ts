// PodContainers whose containers are plain host processes, for protocol tests of the streaming
// server (kubectl → API server → node server → process) before or beside a real runtime. exec
// runs argv on the host, attach joins a registered process, logs are CRI files written from each
// registered process's output, and port-forward enters the network namespace the test names.
// No isolation at all: tests only.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { KubeletError } from '../errors.ts';
import type { AttachTarget, PodContainers, PodRef } from '../node/pod-containers.ts';
import type { HostCommand } from '../runtime/container-runtime.ts';
import { CriLogWriter } from '../streaming/cri-log.ts';

interface Instance {
  child: ChildProcess;
  log: CriLogWriter;
  running: boolean;
  exited: Promise<void>;
  listeners: Set<(stream: 'stdout' | 'stderr', chunk: Buffer) => void>;
}

interface Container {
  current: Instance;
  previous?: Instance;
  restarts: number;
}

export interface HostPodContainersOptions {
  /** Where CRI log files go: `<logDir>/<ns>_<pod>/<container>/<restart>.log`. */
  logDir: string;
  /** The network namespace port-forward dials into. @default this process's own */
  netnsPath?: string;
}

const podKey = (p: PodRef): string => `${p.namespace}/${p.name}`;

export class HostPodContainers implements PodContainers {
  readonly #containers = new Map<string, Container>();
  readonly #pods = new Set<string>();

  constructor(readonly options: HostPodContainersOptions) {}

  /**
   * Starts (or restarts) `container` of `pod` as the host process `argv`, stdin piped. A restart
   * keeps the previous instance's log for `--previous`.
   */
  register(pod: PodRef, container: string, argv: string[]): ChildProcess {
    const key = `${podKey(pod)}/${container}`;
    const old = this.#containers.get(key);
    const restarts = old ? old.restarts + 1 : 0;
    const path = join(
      this.options.logDir,
      `${pod.namespace}_${pod.name}`,
      container,
      `${restarts}.log`,
    );
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    const instance: Instance = {
      child,
      log: new CriLogWriter(path),
      running: true,
      listeners: new Set(),
      exited: new Promise((resolve) => child.once('exit', () => resolve())),
    };
    for (const stream of ['stdout', 'stderr'] as const)
      child[stream]?.on('data', (chunk: Buffer) => {
        instance.log.write(stream, chunk);
        for (const l of instance.listeners) l(stream, chunk);
      });
    void instance.exited.then(() => {
      instance.log.flush();
      instance.running = false;
    });
    this.#containers.set(key, {
      current: instance,
      restarts,
      ...(old ? { previous: old.current } : {}),
    });
    this.#pods.add(podKey(pod));
    return child;
  }

  /** Kills every registered process. */
  stopAll(): void {
    for (const c of this.#containers.values())
      if (c.current.running) c.current.child.kill('SIGKILL');
  }

  #container(pod: PodRef, container: string): Container {
    if (!this.#pods.has(podKey(pod)))
      throw new KubeletError(
        'NotFound',
        `pod "${pod.name}" in namespace "${pod.namespace}" is not on this node`,
      );
    const c = this.#containers.get(`${podKey(pod)}/${container}`);
    if (!c)
      throw new KubeletError(
        'NotFound',
        `container "${container}" in pod "${pod.name}" is not on this node`,
      );
    return c;
  }

  execCommand(pod: PodRef, container: string, argv: readonly string[]): HostCommand {
    this.#container(pod, container);
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      TERM: 'xterm',
    };
    return { file: argv[0] as string, args: argv.slice(1), env };
  }

  logPath(
    pod: PodRef,
    container: string,
    opts: { previous: boolean },
  ): { path: string; running: boolean } | undefined {
    const c = this.#container(pod, container);
    const instance = opts.previous ? c.previous : c.current;
    return instance ? { path: instance.log.path, running: instance.running } : undefined;
  }

  attach(pod: PodRef, container: string): AttachTarget {
    const { current } = this.#container(pod, container);
    if (!current.running)
      throw new KubeletError('NotRunning', `container ${container} is not running`);
    return {
      stdin: current.child.stdin ?? undefined,
      subscribe: (listener) => {
        current.listeners.add(listener);
        return () => current.listeners.delete(listener);
      },
      exited: current.exited,
      tty: false,
    };
  }

  netnsPath(pod: PodRef): string {
    if (!this.#pods.has(podKey(pod)))
      throw new KubeletError(
        'NotFound',
        `pod "${pod.name}" in namespace "${pod.namespace}" is not on this node`,
      );
    return this.options.netnsPath ?? `/proc/${process.pid}/ns/net`;
  }
}

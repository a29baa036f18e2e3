// Holds a container's ready flag until the node's in-sandbox daemon listens (PodDaemon.readyPorts):
// each port is dialled as the container's TCP probes are (probe-runner.ts), every 10 ms (500 ms
// after 5 s), from each start of the daemon until all accept. The daemon starts after its container runs, so without
// this a Pod was Ready — and a warm pool member handed out — before anything served its API.
import type { Container, Pod } from '@agent-sandbox/kube-types';
import { runProbe, type ProbeTarget } from '../probes/probe-runner.ts';
import { execUser, type ContainerRuntime } from '../runtime/container-runtime.ts';
import type { ContainerInstance } from './container-instance.ts';
import type { NodeLogger } from './node-context.ts';
import { superviseDaemon, type PodDaemon } from './pod-daemon.ts';

const POLL_MS = 10;
/** A daemon still not listening after this is polled at SLOW_POLL_MS (one that keeps failing). */
const FAST_FOR_MS = 5000;
const SLOW_POLL_MS = 500;
const DIAL_TIMEOUT_MS = 1000;

export class DaemonGate {
  readonly #ports: readonly number[];
  readonly #target: ProbeTarget;
  readonly #onChange: (listening: boolean) => void;
  #listening = false;
  /** Bumped by every restart and stop: a poll of an older run stops. */
  #run = 0;
  #stopped = false;

  constructor(
    ports: readonly number[],
    target: ProbeTarget,
    onChange: (listening: boolean) => void,
  ) {
    this.#ports = ports;
    this.#target = target;
    this.#onChange = onChange;
  }

  /** Whether every port answered since the daemon's latest start. */
  get listening(): boolean {
    return this.#listening;
  }

  /** The daemon (re)started: not listening until each port accepts again. */
  restart(): void {
    if (this.#stopped) return;
    const run = ++this.#run;
    this.#set(false);
    void this.#poll(run);
  }

  stop(): void {
    this.#stopped = true;
    this.#run++;
  }

  async #poll(run: number): Promise<void> {
    const waiting = new Set(this.#ports);
    const started = Date.now();
    while (run === this.#run) {
      for (const port of [...waiting]) {
        const outcome = await runProbe({ tcpSocket: { port } }, DIAL_TIMEOUT_MS, this.#target);
        if (outcome.ok) waiting.delete(port);
      }
      if (run !== this.#run) return;
      if (waiting.size === 0) return this.#set(true);
      const pause = Date.now() - started < FAST_FOR_MS ? POLL_MS : SLOW_POLL_MS;
      await new Promise((r) => setTimeout(r, pause));
    }
  }

  #set(listening: boolean): void {
    if (this.#listening === listening) return;
    this.#listening = listening;
    this.#onChange(listening);
  }
}

export interface PodDaemonRun {
  /** Starts supervising the daemon (after the container's Running status is out). */
  start(): void;
  /** Set when the daemon names ready ports; undefined: the daemon does not hold Ready. */
  gate: DaemonGate | undefined;
}

/**
 * The node's daemon for one instance of the Pod's first app container, or undefined (no daemon,
 * another container, or the Pod opts out). `onGate` hears the gate open and close.
 */
export function podDaemonRun(o: {
  daemon: PodDaemon | undefined;
  pod: Pod;
  container: Container;
  instance: ContainerInstance;
  runtime: ContainerRuntime;
  target: ProbeTarget;
  log: NodeLogger;
  key: string;
  onGate: (listening: boolean) => void;
  /** The Pod's node-exec socket as the container sees it, when the agent listens on one. */
  nodeExecSocket?: string;
}): PodDaemonRun | undefined {
  const { daemon, pod, container: c, instance } = o;
  const process = instance.process;
  if (!daemon || c.name !== pod.spec?.containers?.[0]?.name || !process) return undefined;
  const argv = daemon.argv(pod, c, o.nodeExecSocket ? { nodeExecSocket: o.nodeExecSocket } : {});
  if (!argv) return undefined;
  const ports = daemon.readyPorts?.(pod, c) ?? [];
  const user = execUser(instance.processConfig);
  const gate = ports.length > 0 ? new DaemonGate(ports, o.target, o.onGate) : undefined;
  return {
    gate,
    start: () =>
      superviseDaemon({
        runtime: o.runtime,
        id: instance.id,
        argv,
        ...(user ? { user } : {}),
        exited: process.exited,
        stopping: () => instance.stopping,
        log: o.log,
        key: o.key,
        ...(gate ? { onStart: () => gate.restart() } : {}),
      }),
  };
}

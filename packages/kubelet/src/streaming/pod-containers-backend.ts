// The streaming server's backend on top of the node agent's PodContainers seam: exec goes through
// the container's in-sandbox daemon where one is registered (ADR 0037), else spawns the runtime's
// host command (on a pty for TTY sessions); attach joins the primary process,
// port-forward dials inside the Pod's network namespace, logs read the CRI file of an instance.
import { KubeletError } from '../errors.ts';
import type { PodContainers, PodRef } from '../node/pod-containers.ts';
import type { ExecProcess } from '../runtime/container-runtime.ts';
import { daemonExec } from '../node-exec/daemon-exec.ts';
import type {
  ContainerTarget,
  PodTarget,
  ProcessExit,
  StreamingBackend,
  StreamProcess,
  StreamSelection,
} from './backend.ts';
import { attachStreamProcess, spawnStreamProcess } from './host-process.ts';
import { dialInNetns, type NetnsDialOptions } from './netns-dial.ts';

function podRef(t: PodTarget): PodRef {
  return t.uid === undefined
    ? { namespace: t.namespace, name: t.pod }
    : { namespace: t.namespace, name: t.pod, uid: t.uid };
}

/** Which way an exec went: a fork by the in-sandbox daemon, or the runtime's exec. */
export type ExecPath = 'daemon' | 'runtime';

/** One exec as it started, for the node's log line and metric. */
export interface ExecEvent {
  target: ContainerTarget;
  path: ExecPath;
  /** The Pod's runtime handler (runc, runsc, bubblewrap), or 'unknown'. */
  runtime: string;
  /** From the request to the process running (the daemon's ack, or the runtime command spawned). */
  startMs: number;
  /** How the process ended (a host process killed by a signal names it). */
  exited: Promise<ProcessExit>;
}

export interface PodContainersBackendOptions extends NetnsDialOptions {
  /** Hears every exec that started. */
  onExec?: (e: ExecEvent) => void;
}

/**
 * One exec: through the daemon when it answers (ADR 0037; TTY sessions too), else the runtime's
 * exec; `own` sets the command's cwd and env over the container's on either path (kube's exec
 * has none; the streaming server passes nothing).
 */
export async function containerExec(
  containers: PodContainers,
  target: ContainerTarget,
  command: string[],
  streams: StreamSelection,
  own: ExecProcess = {},
): Promise<{ process: StreamProcess; path: ExecPath }> {
  const ref = podRef(target);
  const conn = await containers.daemonExec?.(ref, target.container, command, own);
  if (conn) {
    const process = await daemonExec(conn.socket, conn.start, streams);
    if (process) {
      void process.exited.finally(conn.done);
      return { process, path: 'daemon' };
    }
    conn.done();
  }
  const cmd = containers.execCommand(ref, target.container, command, { ...own, tty: streams.tty });
  return { process: await spawnStreamProcess(cmd, streams), path: 'runtime' };
}

/** The Pod's runtime handler for the exec event; 'unknown' when the Pod went away meanwhile. */
function runtimeOf(containers: PodContainers, target: ContainerTarget): string {
  try {
    return containers.runtimeHandler?.(podRef(target)) ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** @param options how port-forward reaches a port in a netns (tests may point it elsewhere) */
export function podContainersBackend(
  containers: PodContainers,
  options: PodContainersBackendOptions = {},
): StreamingBackend {
  const { onExec, ...dial } = options;
  return {
    exec: async (target, command, streams) => {
      const at = performance.now();
      const { process, path } = await containerExec(containers, target, command, streams);
      onExec?.({
        target,
        path,
        runtime: runtimeOf(containers, target),
        startMs: performance.now() - at,
        exited: process.exited,
      });
      return process;
    },
    attach: async (target, streams) =>
      attachStreamProcess(containers.attach(podRef(target), target.container), streams),
    portForward: async (target, port) =>
      dialInNetns(containers.netnsPath(podRef(target)), port, dial),
    containerLog: async (target: ContainerTarget, { previous }) => {
      const ref = podRef(target);
      const found = containers.logPath(ref, target.container, { previous });
      if (!found) {
        if (previous)
          throw new KubeletError(
            'InvalidArgument',
            `previous terminated container "${target.container}" in pod "${target.pod}" not found`,
          );
        throw new KubeletError(
          'NotRunning',
          `container "${target.container}" in pod "${target.pod}" is waiting to start: ContainerCreating`,
        );
      }
      const { path } = found;
      // Still running while the current instance is this file and runs (a restart starts a new file).
      const isRunning = (): boolean => {
        const now = containers.logPath(ref, target.container, { previous: false });
        return !previous && now?.path === path && now.running;
      };
      return { path, isRunning };
    },
  };
}

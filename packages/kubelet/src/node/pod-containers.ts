// What the node agent offers the streaming server (kubelet-io's packages/kubelet/src/streaming):
// exec, attach, logs and port-forward all start from a Pod the agent runs on this node.
import type { NodeExecStart } from '@agent-sandbox/protocol/node-exec';
import type { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import type { ExecProcess, HostCommand } from '../runtime/container-runtime.ts';

/** Identifies a pod instance; `uid` guards against a new pod of the same name. */
export interface PodRef {
  namespace: string;
  name: string;
  uid?: string;
}

/** The live primary process of a container, for `attach`. */
export interface AttachTarget {
  /** Present when the container spec has `stdin: true`; ending it closes the process stdin. */
  stdin: Writable | undefined;
  /** Live output from now on (no history); `stream` is `stdout` or `stderr`. Returns unsubscribe. */
  subscribe(listener: (stream: 'stdout' | 'stderr', chunk: Buffer) => void): () => void;
  /** Resolves when the container exits. */
  exited: Promise<void>;
  tty: boolean;
}

/** An idle connection of the container's in-sandbox daemon, taken for one exec (ADR 0037). */
export interface DaemonExec {
  socket: Socket;
  /** The start frame: `argv` with the container's env and working directory (the exec's own over them). */
  start: NodeExecStart;
  /** Call once the exec is over (frees the Pod's session slot). */
  done(): void;
}

/**
 * Contract (all methods throw KubeletError `NotFound` for a pod or container this node does
 * not run, naming it, and `NotRunning` for a container that is not running now, naming its state):
 * - `execCommand()` returns the host command that runs `argv` inside the container, the same
 *   namespaces, cgroup and root; with `tty` the caller gives it a pty. Pure apart from the lookup.
 *   The command gets the container's cwd and env, with the ExecProcess's own over them (both
 *   methods; a malformed one throws KubeletError `InvalidArgument` naming `exec.cwd`/`exec.env`).
 * - `logPath()` returns the CRI-format log file (kubelet-and-oci §3.6) of the current instance,
 *   or of the previous terminated one with `previous`; undefined when that instance has none.
 *   The file may keep growing while the container runs (follow it); `running` says whether it can.
 * - `attach()` returns the live primary process.
 * - `daemonExec()` returns a daemon connection for an exec of `argv`, or undefined when the
 *   container has no daemon to fork it (another container, no connection registered, the
 *   runtime cannot reach a host socket, the Pod at its session bound). Optional: absent, no
 *   exec goes through a daemon.
 * - `netnsPath()` returns the pod's network namespace file (port-forward dials 127.0.0.1 in it).
 * - `runtimeHandler()` names the runtime handler running the pod (for metrics). Optional.
 */
export interface PodContainers {
  execCommand(
    pod: PodRef,
    container: string,
    argv: readonly string[],
    opts: { tty: boolean } & ExecProcess,
  ): HostCommand;
  logPath(
    pod: PodRef,
    container: string,
    opts: { previous: boolean },
  ): { path: string; running: boolean } | undefined;
  attach(pod: PodRef, container: string): AttachTarget;
  daemonExec?(
    pod: PodRef,
    container: string,
    argv: readonly string[],
    own?: ExecProcess,
  ): Promise<DaemonExec | undefined>;
  netnsPath(pod: PodRef): string;
  runtimeHandler?(pod: PodRef): string;
}

// What the streaming server needs from the node's container runtime: start a process in a
// container (exec), join a container's primary process (attach), dial a port inside a Pod's
// network namespace (port-forward) and find a container's log file (logs). The kubelet's runtime
// implements it; tests implement it with real host processes (testing/host-process-backend.ts).
import type { Duplex, Readable, Writable } from 'node:stream';

/** A Pod on this node, as the streaming URL names it. `uid` is absent in the short URL forms. */
export interface PodTarget {
  namespace: string;
  pod: string;
  uid?: string;
}

/** One container of a Pod on this node. */
export interface ContainerTarget extends PodTarget {
  container: string;
}

/** Terminal size in character cells (kubectl's `{"Width":w,"Height":h}` resize events). */
export interface TerminalSize {
  width: number;
  height: number;
}

/** Which standard streams the client asked for. With `tty`, stderr is merged into stdout. */
export interface StreamSelection {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
  /** With `tty`: the client's terminal size when it sent one before the start (create the pty so). */
  terminalSize?: TerminalSize;
}

/** How a process (exec) or an attach session ended. */
export type ProcessExit =
  | {
      exitCode: number;
      /**
       * The signal that ended the host process the node spawned (a runtime-path exec), when one
       * did: it tells a SIGKILL of that process from an exit status of 137 passed up from within.
       */
      signal?: NodeJS.Signals;
    }
  /** The runtime failed the session itself (not the process): the message reaches the client. */
  | { error: string };

/**
 * A running exec'd process, or an attach session to a container's primary process.
 *
 * Contract: `stdin` is non-null exactly when stdin was requested; `stdout` when stdout was
 * requested; `stderr` when stderr was requested without a TTY. The readables end after the last
 * byte the process wrote. `exited` resolves (never rejects) once the process has ended, or the
 * attach session is over; the streaming server sends the exit status after `exited` resolved and
 * the readables ended.
 */
export interface StreamProcess {
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly exited: Promise<ProcessExit>;
  /** Resizes the terminal; ignored without a TTY. */
  resize(size: TerminalSize): void;
  /**
   * The client went away: close stdin and release the terminal (a TTY session gets a hang-up,
   * as when a terminal closes). An attach session detaches and leaves the container running.
   * Idempotent.
   */
  hangUp(): void;
}

/** Where a container instance's CRI-format log is, and whether it can still grow. */
export interface ContainerLog {
  /** A file in the CRI log format (cri-log.ts); may not exist yet for a new instance. */
  path: string;
  /** Whether the instance writing `path` is still running (so `follow` keeps waiting). */
  isRunning(): boolean;
}

/**
 * The node runtime behind the streaming server.
 *
 * Every method throws KubeletError: `NotFound` when the pod or container is not on this node,
 * `BadRequest` when it cannot serve the request in the container's state (the message is what
 * kubectl shows, e.g. `container "app" in pod "web" is waiting to start: ContainerCreating`),
 * `Internal` when the runtime failed. Anything else thrown is reported as an internal error.
 */
export interface StreamingBackend {
  /** Starts `command` (argv, no shell) in the container with the requested streams. */
  exec(
    target: ContainerTarget,
    command: string[],
    streams: StreamSelection,
  ): Promise<StreamProcess>;
  /** Joins the container's primary process (its stdin only if the container has `stdin: true`). */
  attach(target: ContainerTarget, streams: StreamSelection): Promise<StreamProcess>;
  /**
   * Connects to `port` on the Pod's loopback or address (as kubelet dials localhost inside the
   * Pod's network namespace). Resolves with the connected socket; rejects with a message naming
   * the port when nothing listens.
   */
  portForward(target: PodTarget, port: number): Promise<Duplex>;
  /** The log of the current instance, or with `previous` of the last terminated one. */
  containerLog(target: ContainerTarget, options: { previous: boolean }): Promise<ContainerLog>;
}

// A process the node starts inside each Pod's first app container once it runs — in the embedded
// mode the in-sandbox daemon (sandboxd), whose files the node mounts read-only into every
// container (NodeAgentOptions.extraReadOnlyMounts) — through the runtime's exec, so it shares the
// container's root, namespaces, cgroup, user and environment and works in any image. It lives
// and dies with the container instance; if it exits while the container runs it is restarted
// with back-off, and its last stderr is logged. Every stderr line it writes goes to the node's log
// as it comes (`in-sandbox daemon`, the line's JSON as `daemon`), so a daemon that stalls while
// it runs can be read afterwards (`up` keeps them in DIR/up.log).
import { spawn, type ChildProcess } from 'node:child_process';
import type { Container, Pod } from '@agent-sandbox/kube-types';
import type { ContainerRuntime, ExecUser } from '../runtime/container-runtime.ts';
import type { NodeLogger } from './node-context.ts';

/**
 * Contract: `argv()` is pure and cheap; it returns the command to run inside `container` of
 * `pod` (paths as the container sees them), or undefined when this Pod gets no daemon (opt-out).
 * `nodeExecSocket`, when given, is the agent's exec socket inside the container (ADR 0037) for
 * the daemon to dial.
 */
export interface PodDaemon {
  argv(
    pod: Pod,
    container: Container,
    opts?: { nodeExecSocket?: string },
  ): readonly string[] | undefined;
  /**
   * The TCP ports the daemon serves once it is up. The node holds the container's ready flag
   * (and so the Pod's Ready condition) until each accepts a connection, after every (re)start of
   * the daemon: a client handed a Ready Pod must find its daemon listening. Absent or empty: no
   * hold.
   */
  readyPorts?(pod: Pod, container: Container): readonly number[];
}

export interface DaemonInstance {
  runtime: ContainerRuntime;
  /** The runtime's container id. */
  id: string;
  argv: readonly string[];
  /** The container process's user, for the runtime's exec (runsc's is root otherwise). */
  user?: ExecUser;
  /** Resolves when the container instance has exited. */
  exited: Promise<unknown>;
  /** True once the container is being stopped (deleted, node stopping): the daemon goes with it. */
  stopping?: () => boolean;
  log: NodeLogger;
  /** `<namespace>/<pod>/<container>`, for the log. */
  key: string;
  /** First restart delay. @default 1000 */
  backoffBaseMs?: number;
  /** Called as each run of the daemon starts (the first and every restart). */
  onStart?: () => void;
}

const MAX_BACKOFF_MS = 30_000;
const STDERR_TAIL = 2048;
/** A longer stderr line is logged in pieces of this size. */
const MAX_LINE = 4096;
/** How long a daemon's exit waits to see whether its container is ending too. */
const SETTLE_MS = 500;

/** Resolves when `p` settles or after `ms`, whichever is first. */
function settled(p: Promise<unknown>, ms: number): Promise<void> {
  let t: NodeJS.Timeout | undefined;
  return Promise.race([
    p.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((r) => (t = setTimeout(r, ms))),
  ]).finally(() => clearTimeout(t));
}

/**
 * The daemon's JSON log line as an object, any other line as it is. Its own `logger` name is
 * dropped: the node's line names its part once (`in-sandbox daemon` says whose line it is).
 */
function parsedLine(line: string): unknown {
  if (!line.startsWith('{')) return line;
  try {
    const parsed = JSON.parse(line) as Record<string, unknown>;
    delete parsed['logger'];
    return parsed;
  } catch {
    return line;
  }
}

/** Calls `onLine` with each complete line of a byte stream fed to the returned function. */
export function lineSplitter(onLine: (line: string) => void): (chunk: string) => void {
  let partial = '';
  return (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    while (partial.length > MAX_LINE) {
      lines.push(partial.slice(0, MAX_LINE));
      partial = partial.slice(MAX_LINE);
    }
    for (const line of lines) if (line.trim() !== '') onLine(line);
  };
}

/** Starts the daemon and keeps it running until the instance exits. Never throws. */
export function superviseDaemon(d: DaemonInstance): void {
  let ended = false;
  let child: ChildProcess | undefined;
  let failures = 0;
  void d.exited.then(() => {
    ended = true;
    child?.kill('SIGKILL');
  });
  const run = (): void => {
    if (ended) return;
    const cmd = d.runtime.execCommand(d.id, d.argv, {
      tty: false,
      ...(d.user ? { user: d.user } : {}),
    });
    const started = Date.now();
    let tail = '';
    child = spawn(cmd.file, cmd.args, { env: cmd.env, stdio: ['ignore', 'ignore', 'pipe'] });
    d.onStart?.();
    const forward = lineSplitter((line) =>
      d.log.info({ container: d.key, daemon: parsedLine(line) }, 'in-sandbox daemon'),
    );
    child.stderr?.setEncoding('utf8'); // a character split across two reads stays whole
    child.stderr?.on('data', (text: string) => {
      tail = (tail + text).slice(-STDERR_TAIL);
      forward(text);
    });
    child.once('error', () => undefined); // 'exit' or 'close' follows
    child.once('close', (code, signal) => {
      child = undefined;
      // A container that ends takes the daemon with it (137), often a moment before its own exit
      // is seen: that is no daemon failure, so nothing is said and nothing restarted.
      void settled(d.exited, SETTLE_MS).then(() => {
        if (ended || d.stopping?.()) return;
        // A run that lasted a minute was healthy: start the back-off over.
        failures = Date.now() - started > 60_000 ? 1 : failures + 1;
        const delay = Math.min((d.backoffBaseMs ?? 1000) * 2 ** (failures - 1), MAX_BACKOFF_MS);
        d.log.warn(
          { container: d.key, code, signal, stderr: tail.trim(), retryInMs: delay },
          'in-sandbox daemon exited',
        );
        setTimeout(run, delay).unref();
      });
    });
  };
  run();
}

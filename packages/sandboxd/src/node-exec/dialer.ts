// The daemon's side of the node-exec channel (ADR 0037): the node agent listens on a unix socket
// it owns, in a directory mounted read-only into the container; the daemon dials out and keeps
// one idle connection there, so an exec never waits for a dial. A connection becomes an exec on
// its first byte, and another idle one is dialled at once.
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { LogFn } from '../errors.ts';
import type { ProcessLimiter } from '../process-limiter.ts';
import { serveNodeExec } from './session.ts';
import type { TtyCommands } from './tty.ts';

export interface NodeExecDialerOptions {
  path: string;
  limiter: ProcessLimiter;
  /** The pty helpers of TTY sessions. @default none: TTY execs are refused (the agent falls back) */
  tty?: TtyCommands;
  log?: LogFn;
  /** First redial delay after a failed dial, doubled up to 5 s. @default 100 */
  retryMs?: number;
}

export interface NodeExecDialer {
  close(): void;
}

const since = (): number => Math.round(performance.now());

export function dialNodeExec(o: NodeExecDialerOptions): NodeExecDialer {
  let closed = false;
  let idle: Socket | undefined;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  let registered = false;
  const redial = () => {
    if (closed || timer) return;
    const delay = failures === 0 ? 0 : Math.min((o.retryMs ?? 100) * 2 ** (failures - 1), 5000);
    timer = setTimeout(() => {
      timer = undefined;
      dial();
    }, delay);
    timer.unref();
  };
  const dial = () => {
    const socket = connect(o.path);
    idle = socket;
    let used = false;
    socket.once('connect', () => {
      failures = 0;
      // The first connection is when the node can hand execs over (its `daemon-registered`).
      if (!registered) o.log?.('node-exec registered', { sinceStartMs: since() });
      registered = true;
    });
    socket.once('data', (first: Buffer) => {
      used = true;
      idle = undefined;
      redial();
      serveNodeExec(socket, first, o.limiter, o.tty);
    });
    socket.on('error', (err) => {
      if (!used && failures++ === 0) o.log?.('node-exec dial failed', { error: err.message });
    });
    socket.once('close', () => {
      if (used) return;
      if (idle === socket) idle = undefined;
      if (failures === 0) failures = 1; // the agent hung up an idle connection: do not spin
      redial();
    });
  };
  dial();
  return {
    close: () => {
      closed = true;
      if (timer) clearTimeout(timer);
      idle?.destroy();
    },
  };
}

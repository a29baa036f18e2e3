// The node agent's end of one Pod's node-exec channel (ADR 0037): a unix socket the agent owns
// in `<pod dir>/node-exec/`, which the Pod's containers see read-only at NODE_EXEC_MOUNT. The
// in-sandbox daemon dials in and leaves connections idle; an exec takes one. Whoever connects is
// untrusted (anything in the sandbox can), so idle connections are capped, one that speaks
// before it is asked is dropped, and so is any over the per-Pod session bound.
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

/** Where the directory is mounted in each container, and the socket the daemon is told to dial. */
export const NODE_EXEC_MOUNT = '/run/agent-sandbox';
export const NODE_EXEC_SOCKET = `${NODE_EXEC_MOUNT}/exec.sock`;

/** Idle connections kept per Pod (the daemon keeps one; more is a peer we need not serve). */
const MAX_IDLE = 4;
/** Execs through the daemon at once per Pod; past it, execs take the runtime's path. */
export const MAX_SESSIONS = 16;
/** How long an exec waits for a live daemon's next connection (see take()). */
const REDIAL_WAIT_MS = 250;

export class NodeExecSocket {
  readonly dir: string;
  readonly #server: Server;
  readonly #idle: Socket[] = [];
  readonly #all = new Set<Socket>();
  readonly #waiters: ((s: Socket | undefined) => void)[] = [];
  #sessions = 0;
  /** A daemon connected and has not dropped its idle connection since. */
  #alive = false;
  #connected: () => void = () => undefined;
  /** Resolves at the first connection (a daemon registered; bench/node times it). */
  readonly firstConnection = new Promise<void>((r) => (this.#connected = r));

  private constructor(dir: string, server: Server) {
    this.dir = dir;
    this.#server = server;
    server.on('connection', (s) => this.#accept(s));
    server.on('error', () => undefined); // a listening unix socket fails only on close races
  }

  /** Creates `dir` afresh and listens on `dir/exec.sock`. */
  static async open(dir: string): Promise<NodeExecSocket> {
    // Synchronous: a few metadata calls (microseconds), where promise fs made each a threadpool
    // job answered turns later on the agent's busy loop, on a Pod's start path.
    rmSync(dir, { recursive: true, force: true });
    // 0711/0666: the daemon runs as the container's user, who may not be root. The directory is
    // only mounted into this Pod, and the host side sits under the agent's own pod directory.
    mkdirSync(dir, { recursive: true, mode: 0o711 });
    const server = createServer({ allowHalfOpen: false });
    const path = join(dir, 'exec.sock');
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    chmodSync(path, 0o666);
    return new NodeExecSocket(dir, server);
  }

  /**
   * An idle connection from the daemon for one exec, or undefined (none registered, or the Pod
   * is at MAX_SESSIONS). The daemon dials its next connection as one is taken: when none is idle
   * but the daemon is alive (its last connection was taken, not dropped), the redial is waited
   * for, up to `waitMs` — a short exec can end before it lands. Call `done` once the exec is over.
   */
  async take(waitMs = REDIAL_WAIT_MS): Promise<{ socket: Socket; done: () => void } | undefined> {
    if (this.#sessions >= MAX_SESSIONS) return undefined;
    const socket = this.#idle.shift() ?? (this.#alive ? await this.#next(waitMs) : undefined);
    if (!socket || socket.destroyed) return undefined;
    socket.removeAllListeners('data');
    socket.pause();
    this.#sessions++;
    let released = false;
    const done = () => {
      if (released) return;
      released = true;
      this.#sessions--;
    };
    socket.once('close', done);
    return { socket, done };
  }

  /** Stops listening and drops every connection. Idempotent. */
  async close(): Promise<void> {
    for (const w of [...this.#waiters]) w(undefined);
    for (const s of this.#all) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(s: Socket): void {
    this.#connected();
    this.#all.add(s);
    this.#alive = true;
    s.once('close', () => {
      this.#all.delete(s);
      const i = this.#idle.indexOf(s);
      if (i < 0) return;
      // An idle connection that closes untaken: its daemon is gone (or never was one).
      this.#idle.splice(i, 1);
      if (this.#idle.length === 0) this.#alive = false;
    });
    s.on('error', () => undefined); // 'close' follows
    if (this.#idle.length >= MAX_IDLE) {
      s.destroy();
      return;
    }
    // The daemon never speaks first: bytes on an idle connection are a protocol violation.
    s.on('data', () => s.destroy());
    const waiter = this.#waiters.shift();
    if (waiter) waiter(s);
    else this.#idle.push(s);
  }

  /** The next accepted connection, or undefined after `ms`. */
  #next(ms: number): Promise<Socket | undefined> {
    return new Promise((resolve) => {
      const take = (s: Socket | undefined) => {
        clearTimeout(timer);
        const i = this.#waiters.indexOf(take);
        if (i >= 0) this.#waiters.splice(i, 1);
        resolve(s);
      };
      const timer = setTimeout(() => take(undefined), ms);
      this.#waiters.push(take);
    });
  }
}

// The node's per-Pod node-exec sockets (ADR 0037), by Pod UID: opened when the Pod's first
// container is launched with the daemon path on, closed when the Pod is released.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { NodeExecSocket } from './exec-socket.ts';

/** The host directory of a Pod's socket, under the agent's pod directory. */
export function nodeExecDir(podDir: string): string {
  return join(podDir, 'node-exec');
}

export class NodeExecSockets {
  readonly #open = new Map<string, Promise<NodeExecSocket>>();
  readonly #ready = new Map<string, NodeExecSocket>();

  /** Opens (once) the socket of Pod `uid` in `nodeExecDir(podDir)`; resolves to that directory. */
  async open(uid: string, podDir: string): Promise<string> {
    let p = this.#open.get(uid);
    if (!p) {
      p = NodeExecSocket.open(nodeExecDir(podDir));
      this.#open.set(uid, p);
      p.then(
        (s) => this.#ready.set(uid, s),
        () => this.#open.delete(uid),
      );
    }
    return (await p).dir;
  }

  /** The open socket of Pod `uid`, if any. */
  get(uid: string): NodeExecSocket | undefined {
    return this.#ready.get(uid);
  }

  /** Closes Pod `uid`'s socket and removes its directory. Never throws. */
  async close(uid: string, podDir: string): Promise<void> {
    const p = this.#open.get(uid);
    this.#open.delete(uid);
    this.#ready.delete(uid);
    const s = await p?.catch(() => undefined);
    await s?.close();
    await rm(nodeExecDir(podDir), { recursive: true, force: true }).catch(() => undefined);
  }

  async closeAll(podsDir: string): Promise<void> {
    await Promise.all([...this.#open.keys()].map((uid) => this.close(uid, join(podsDir, uid))));
  }
}

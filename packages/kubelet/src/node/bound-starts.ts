// Pods this agent bound itself (the embedded mode's scheduler) start from the Binding's answer,
// not from the node watch's delivery of the bound Pod: that delivery is one more trip through the
// API server's watch fan-out and the shared event loop, on every cold start's critical path. The
// Pod the agent starts is its own copy as the API server stores it after a Binding (nodeName and
// PodScheduled); the watch's later delivery of the same UID only updates that worker (one worker
// per UID). A Pod the watch has not delivered after `readAfterMs` is read: gone (or replaced under
// its name), its worker stops; still there, the worker gets the stored object. The read repeats
// while the watch stays silent, so a Pod deleted in a window the watch missed never runs on.
import { formatTime, type Pod } from '@agent-sandbox/kube-types';

const MAX_GONE = 1024;

export interface BoundStartsOptions {
  nodeName: string;
  /** Starts (or updates) the worker of a Pod bound to this node: the agent's watch handler. */
  observe(pod: Pod): void;
  /** The stored Pod, or undefined when it is gone. */
  read(namespace: string, name: string): Promise<Pod | undefined>;
  /** The Pod of a worker this started is gone: stop that worker without a status write. */
  vanished(uid: string): void;
  /** Whether a worker for `uid` still runs (a finished one needs no read). */
  running(uid: string): boolean;
  onReadError(err: unknown): void;
  /** The watch's first word of a Pod started here (bench/node times the head start). */
  onDelivered?(uid: string): void;
  /** @default 30_000 */
  readAfterMs?: number;
}

/** The Pod as a successful Binding to `nodeName` leaves it (pods-binding.ts, kube's BindingREST). */
export function boundCopy(pod: Pod, nodeName: string, now: Date): Pod {
  const conditions = (pod.status?.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
  return {
    ...pod,
    spec: { ...pod.spec, containers: pod.spec?.containers ?? [], nodeName },
    status: {
      ...pod.status,
      conditions: [
        ...conditions,
        { type: 'PodScheduled', status: 'True', lastTransitionTime: formatTime(now) },
      ],
    },
  };
}

export class BoundStarts {
  readonly #o: BoundStartsOptions;
  /** UIDs started here the watch has not delivered yet → their read timer. */
  readonly #waiting = new Map<string, NodeJS.Timeout>();
  /** UIDs with a Binding in flight, and those of them the watch delivered meanwhile. */
  readonly #binding = new Set<string>();
  readonly #seenWhileBinding = new Set<string>();
  /**
   * UIDs a read found gone: the watch may still replay their ADDED (its history from before the
   * delete), which must not start them again; their DELETED ends the entry.
   */
  readonly #gone = new Set<string>();
  #stopped = false;

  constructor(options: BoundStartsOptions) {
    this.#o = options;
  }

  /** A Binding of Pod `uid` to this node is being sent; bound() or failed() follows. */
  binding(uid: string): void {
    this.#binding.add(uid);
  }

  /** The Binding failed (or was refused): nothing starts here. */
  failed(uid: string): void {
    this.#binding.delete(uid);
    this.#seenWhileBinding.delete(uid);
  }

  /** The Binding of `pod` (as it was before it) to this node succeeded: start it now. */
  bound(pod: Pod): void {
    const uid = pod.metadata?.uid ?? '';
    this.#binding.delete(uid);
    // The watch was faster: its worker runs already, or ran and is gone with its Pod.
    if (this.#seenWhileBinding.delete(uid) || this.#stopped || !uid) return;
    this.#o.observe(boundCopy(pod, this.#o.nodeName, new Date()));
    if (this.#o.running(uid)) this.#arm(uid, pod);
  }

  /**
   * The node watch delivered an event of `uid`: it is the source of truth from now on. False
   * when the agent must ignore it (a replay of a Pod a read already found gone).
   */
  delivered(uid: string, deleted: boolean): boolean {
    if (this.#gone.has(uid)) {
      if (deleted) this.#gone.delete(uid);
      return false;
    }
    if (this.#binding.has(uid)) this.#seenWhileBinding.add(uid);
    const waiting = this.#waiting.get(uid);
    if (waiting) {
      clearTimeout(waiting);
      this.#waiting.delete(uid);
      this.#o.onDelivered?.(uid);
    }
    return true;
  }

  stop(): void {
    this.#stopped = true;
    for (const t of this.#waiting.values()) clearTimeout(t);
    this.#waiting.clear();
  }

  #arm(uid: string, pod: Pod): void {
    clearTimeout(this.#waiting.get(uid));
    const t = setTimeout(() => void this.#read(uid, pod), this.#o.readAfterMs ?? 30_000);
    t.unref();
    this.#waiting.set(uid, t);
  }

  async #read(uid: string, pod: Pod): Promise<void> {
    if (this.#stopped || !this.#waiting.has(uid) || !this.#o.running(uid)) {
      this.#waiting.delete(uid);
      return;
    }
    const m = pod.metadata ?? {};
    let stored: Pod | undefined;
    try {
      stored = await this.#o.read(m.namespace ?? 'default', m.name ?? '');
    } catch (err) {
      this.#o.onReadError(err);
      if (this.#waiting.has(uid)) this.#arm(uid, pod);
      return;
    }
    // The watch may have spoken while the read was out: its word is newer.
    if (this.#stopped || !this.#waiting.has(uid)) return;
    if (!stored || stored.metadata?.uid !== uid) {
      // Gone, or another Pod under its name: this one's delete was missed.
      this.#waiting.delete(uid);
      // A relist, not a DELETED, may be all the watch says of it: keep the memory bounded.
      if (this.#gone.size >= MAX_GONE) this.#gone.delete(this.#gone.values().next().value ?? '');
      this.#gone.add(uid);
      this.#o.vanished(uid);
      return;
    }
    // Still there (a deletionTimestamp starts the worker's graceful termination).
    this.#o.observe(stored);
    this.#arm(uid, stored);
  }
}

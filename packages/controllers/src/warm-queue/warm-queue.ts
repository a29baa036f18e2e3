// The warm sandbox queue (spec §15): per pool (`<namespace>/<pool>`), a FIFO of adoptable warm
// Sandboxes, deduplicated by `namespace/name`, fed by the claim controller's Sandbox watch. It
// lives in memory and is rebuilt from the informer's initial events after a restart; popping is
// the in-process half of exclusivity (the optimistic writes of adoption are the other half).

export interface QueueKey {
  namespace: string;
  name: string;
  /** The Sandbox's `status.nodeName` when known (NodeSpread). */
  nodeName?: string;
}

/** Picks the index of the key to pop from a non-empty snapshot. */
export type PickStrategy = (keys: readonly QueueKey[]) => number;

/**
 * NodeSpread: when some keys know their node, only those are considered and the first key (in
 * queue order) on the node holding the most keys wins; otherwise the oldest key.
 */
export const nodeSpread: PickStrategy = (keys) => {
  const counts = new Map<string, number>();
  for (const k of keys) if (k.nodeName) counts.set(k.nodeName, (counts.get(k.nodeName) ?? 0) + 1);
  if (counts.size === 0) return 0;
  let best = -1;
  let bestCount = 0;
  keys.forEach((k, i) => {
    const c = k.nodeName ? (counts.get(k.nodeName) ?? 0) : 0;
    if (c > bestCount) {
      best = i;
      bestCount = c;
    }
  });
  return best;
};

/**
 * Contract: every method is synchronous, so two reconciles can never pop the same key; `add` of a
 * present key updates its nodeName in place and keeps its position.
 */
export class WarmSandboxQueue {
  readonly #queues = new Map<string, Map<string, QueueKey>>();

  static queueName(namespace: string, pool: string): string {
    return `${namespace}/${pool}`;
  }

  add(queue: string, key: QueueKey): void {
    let q = this.#queues.get(queue);
    if (q === undefined) {
      q = new Map();
      this.#queues.set(queue, q);
    }
    const id = `${key.namespace}/${key.name}`;
    const present = q.get(id);
    if (present !== undefined) {
      if (key.nodeName !== undefined) present.nodeName = key.nodeName;
      return;
    }
    q.set(id, { ...key });
  }

  /** Removes and returns the key `pick` chooses (the head by default). */
  pop(queue: string, pick: PickStrategy = () => 0): QueueKey | undefined {
    const q = this.#queues.get(queue);
    if (q === undefined || q.size === 0) return undefined;
    const keys = [...q.values()];
    const key = keys[pick(keys)] ?? keys[0];
    if (key === undefined) return undefined;
    q.delete(`${key.namespace}/${key.name}`);
    return key;
  }

  remove(queue: string, namespace: string, name: string): void {
    this.#queues.get(queue)?.delete(`${namespace}/${name}`);
  }

  /** Removes the key from whichever queue holds it (a deleted Sandbox). */
  removeEverywhere(namespace: string, name: string): void {
    for (const q of this.#queues.values()) q.delete(`${namespace}/${name}`);
  }

  removeQueue(queue: string): void {
    this.#queues.delete(queue);
  }

  size(queue: string): number {
    return this.#queues.get(queue)?.size ?? 0;
  }

  keys(queue: string): QueueKey[] {
    return [...(this.#queues.get(queue)?.values() ?? [])].map((k) => ({ ...k }));
  }
}

// Pod networks made ahead (the bridge network's pool): a few namespaces with their veth on the
// bridge, addressed and routed, waiting for a Pod. A cold start takes one instead of spawning two
// `ip -batch` processes on its critical path (each spawn also stops the agent's event loop while
// the process forks). Refills run in the background when the agent says no start is under way
// (idle()), or a while after a take otherwise, so they do not compete with the start that took
// the entry; failures leave the pool short (setUp then makes the network itself) and the next
// take tries again. The pool keeps `size` entries, more (up to `maxSize`) while recent takes
// outnumber it: a burst of starts finds as many made as the last one took. Entries can go stale
// while held (the bridge network's bridge was removed and made again: their veth has no master):
// renew() drops those and refills, and one made while that happened is dropped when it is done.

/** A made network waiting for a Pod: its IPAM key (which also names its netns and veth) and IP. */
export interface PoolEntry {
  key: string;
  ip: string;
}

export interface NetnsPoolOptions {
  /** How many entries to keep ready. */
  size: number;
  /** The most entries kept ready when demand is high. @default size */
  maxSize?: number;
  /** The takes within this window set the demand. @default 30_000 */
  demandWindowMs?: number;
  /** Wait after a take before refilling, when idle() does not come first. */
  refillDelayMs: number;
  make(): Promise<PoolEntry>;
  remove(entry: PoolEntry): Promise<void>;
  /** Whether a held entry can no longer be handed out (renew(), and each make). @default never */
  stale?(entry: PoolEntry): boolean;
  onError(err: unknown): void;
}

export class NetnsPool {
  readonly #o: NetnsPoolOptions;
  readonly #ready: PoolEntry[] = [];
  #open = false;
  #timer: NodeJS.Timeout | undefined;
  #filling: Promise<void> | undefined;
  /** When recent entries were taken (performance.now()), oldest first. */
  #takes: number[] = [];

  constructor(options: NetnsPoolOptions) {
    this.#o = options;
  }

  /** Starts filling (once what a previous run left was removed). */
  start(): void {
    if (this.#o.size <= 0) return;
    this.#open = true;
    this.#schedule(0);
  }

  /** A ready entry, now the caller's; undefined when none is ready. */
  take(): PoolEntry | undefined {
    this.#recentTakes().push(performance.now());
    const e = this.#ready.shift();
    this.#schedule(this.#o.refillDelayMs);
    return e;
  }

  /** No start is under way: refill now rather than after the delay. */
  idle(): void {
    if (!this.#open || this.#filling || this.#ready.length >= this.target) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#schedule(0);
  }

  /** How many entries the pool fills to now: `size`, or the recent takes, up to `maxSize`. */
  get target(): number {
    const max = Math.max(this.#o.size, this.#o.maxSize ?? this.#o.size);
    return Math.min(max, Math.max(this.#o.size, this.#recentTakes().length));
  }

  /** The takes within the demand window (older ones dropped). */
  #recentTakes(): number[] {
    const since = performance.now() - (this.#o.demandWindowMs ?? 30_000);
    while ((this.#takes[0] ?? Infinity) < since) this.#takes.shift();
    return this.#takes;
  }

  /** Removes the held entries that went stale and refills (the bridge was made again). */
  async renew(): Promise<void> {
    const stale = this.#ready.filter((e) => this.#stale(e));
    for (const e of stale) this.#ready.splice(this.#ready.indexOf(e), 1);
    this.#schedule(0);
    await this.#removeAll(stale);
  }

  #stale(e: PoolEntry): boolean {
    return this.#o.stale?.(e) ?? false;
  }

  async #removeAll(entries: PoolEntry[]): Promise<void> {
    const results = await Promise.allSettled(entries.map((e) => this.#o.remove(e)));
    for (const r of results) if (r.status === 'rejected') this.#o.onError(r.reason);
  }

  get readyCount(): number {
    return this.#ready.length;
  }

  /** Stops refilling and removes every entry not taken; start() fills again. */
  async drain(): Promise<void> {
    this.#open = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#filling;
    await this.#removeAll(this.#ready.splice(0));
  }

  #schedule(ms: number): void {
    if (!this.#open || this.#timer || this.#filling) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#filling = this.#fill().finally(() => (this.#filling = undefined));
    }, ms);
    this.#timer.unref();
  }

  async #fill(): Promise<void> {
    while (this.#open && this.#ready.length < this.target) {
      let e: PoolEntry;
      try {
        e = await this.#o.make();
      } catch (err) {
        this.#o.onError(err);
        return;
      }
      // Made across a renewal (the bridge went while it was made): not one to hand out.
      if (this.#stale(e)) await this.#removeAll([e]);
      else this.#ready.push(e);
    }
  }
}

// Pod networks made ahead (the bridge network's pool): a few namespaces with their veth on the
// bridge, addressed and routed, waiting for a Pod. A cold start takes one instead of spawning two
// `ip -batch` processes on its critical path (each spawn also stops the agent's event loop while
// the process forks). Refills run in the background a while after a take, so they do not compete
// with the start that took the entry; failures leave the pool short (setUp then makes the network
// itself) and the next take tries again.

/** A made network waiting for a Pod: its IPAM key (which also names its netns and veth) and IP. */
export interface PoolEntry {
  key: string;
  ip: string;
}

export interface NetnsPoolOptions {
  /** How many entries to keep ready. */
  size: number;
  /** Wait after a take before refilling. */
  refillDelayMs: number;
  make(): Promise<PoolEntry>;
  remove(entry: PoolEntry): Promise<void>;
  onError(err: unknown): void;
}

export class NetnsPool {
  readonly #o: NetnsPoolOptions;
  readonly #ready: PoolEntry[] = [];
  #open = false;
  #timer: NodeJS.Timeout | undefined;
  #filling: Promise<void> | undefined;

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
    const e = this.#ready.shift();
    if (e) this.#schedule(this.#o.refillDelayMs);
    return e;
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
    const left = this.#ready.splice(0);
    const results = await Promise.allSettled(left.map((e) => this.#o.remove(e)));
    for (const r of results) if (r.status === 'rejected') this.#o.onError(r.reason);
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
    while (this.#open && this.#ready.length < this.#o.size) {
      let e: PoolEntry;
      try {
        e = await this.#o.make();
      } catch (err) {
        this.#o.onError(err);
        return;
      }
      this.#ready.push(e);
    }
  }
}

// Warm adoptions between their adoption patch and the claim's status write, shared by the
// controllers of one manager (ADR 0039). The adoption patch takes a Sandbox out of its pool, and
// in one event loop with one API server connection the writes it sets off — the pool's refill
// (a Sandbox create, then its Pod, network and runtime), the Sandbox controller's Pod and status
// writes for the adopted Sandbox — went ahead of the one write the claim's user waits for: its
// Ready status. They wait for the adoptions in flight to settle, for a bounded time, instead.

/** How long a write waits for adoptions in flight at most. @see AdoptionsInFlight.settled */
export const DEFAULT_ADOPTION_YIELD_MS = 200;

interface Waiter {
  /** The adopted Sandbox (namespace/name) waited for; undefined = every adoption. */
  key: string | undefined;
  wake: () => void;
}

export class AdoptionsInFlight {
  readonly #keys = new Map<string, number>();
  #count = 0;
  #waiters: Waiter[] = [];
  readonly #maxWaitMs: number;

  /** @param maxWaitMs how long `settled` waits at most; 0 turns the waiting off. */
  constructor(maxWaitMs = DEFAULT_ADOPTION_YIELD_MS) {
    this.#maxWaitMs = maxWaitMs;
  }

  /**
   * Marks the adoption of Sandbox `key` (namespace/name) in flight; the returned function ends
   * it (idempotent).
   */
  enter(key: string): () => void {
    this.#count++;
    this.#keys.set(key, (this.#keys.get(key) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#count--;
      const left = (this.#keys.get(key) ?? 1) - 1;
      if (left > 0) this.#keys.set(key, left);
      else this.#keys.delete(key);
      for (const w of this.#waiters) if (!this.#inFlight(w.key)) w.wake();
    };
  }

  /** Adoptions in flight (of Sandbox `key`, or of any). */
  count(key?: string): number {
    return key === undefined ? this.#count : (this.#keys.get(key) ?? 0);
  }

  /**
   * Resolves once no adoption (of Sandbox `key`, or of any) is in flight, after the constructor's
   * `maxWaitMs` at the latest, or when `signal` aborts: a write is delayed, never prevented — a
   * stream of claims cannot starve a pool's refill.
   */
  settled(signal?: AbortSignal, key?: string): Promise<void> {
    const maxWaitMs = this.#maxWaitMs;
    if (!this.#inFlight(key) || maxWaitMs <= 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: Waiter = { key, wake: () => undefined };
      const timer = setTimeout(() => waiter.wake(), maxWaitMs);
      const onAbort = (): void => waiter.wake();
      waiter.wake = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  #inFlight(key: string | undefined): boolean {
    return this.count(key) > 0;
  }
}

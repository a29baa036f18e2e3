// Per-pool creation and deletion expectations (spec §13.6, upstream bug #1215): a pool creates or
// deletes members only when the writes of its previous pass have been observed through the watch,
// so a lagging cache or a second pass in flight never over-creates. A record older than five
// minutes counts as satisfied (a lost event stalls a pool for at most that long).

export const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;

interface Expectation {
  creations: number;
  deletions: Set<string>;
  raisedAtMs: number;
}

/**
 * Contract: keys are `<namespace>/<pool>`; `nowMs` comes from the caller's clock. JavaScript runs
 * one callback at a time, so each method is atomic with respect to concurrent reconciles.
 */
export class WarmPoolExpectations {
  readonly #records = new Map<string, Expectation>();
  readonly #timeoutMs: number;

  constructor(timeoutMs = EXPECTATIONS_TIMEOUT_MS) {
    this.#timeoutMs = timeoutMs;
  }

  /** Nothing pending, or the record timed out (it is dropped then). */
  satisfied(key: string, nowMs: number): boolean {
    const r = this.#records.get(key);
    if (r === undefined) return true;
    if (r.creations <= 0 && r.deletions.size === 0) return true;
    if (nowMs - r.raisedAtMs > this.#timeoutMs) {
      this.#records.delete(key);
      return true;
    }
    return false;
  }

  /** Records `n` expected creations if nothing is pending; false (nothing recorded) otherwise. */
  tryExpectCreations(key: string, n: number, nowMs: number): boolean {
    if (!(n > 0)) return false;
    if (!this.satisfied(key, nowMs)) return false;
    this.#records.set(key, { creations: n, deletions: new Set(), raisedAtMs: nowMs });
    return true;
  }

  /** A create event of a member (or a create that was never issued or failed). */
  lowerCreations(key: string, n = 1): void {
    const r = this.#records.get(key);
    if (r !== undefined) r.creations = Math.max(0, r.creations - n);
  }

  /** Must be called before the DELETE is sent. */
  expectDeletion(key: string, uid: string, nowMs: number): void {
    if (uid === '') return;
    let r = this.#records.get(key);
    if (r === undefined || (r.creations <= 0 && r.deletions.size === 0)) {
      r = { creations: 0, deletions: new Set(), raisedAtMs: nowMs };
      this.#records.set(key, r);
    }
    r.deletions.add(uid);
  }

  /** The delete event of a member, or a DELETE that failed. */
  deletionObserved(key: string, uid: string): void {
    this.#records.get(key)?.deletions.delete(uid);
  }

  isPendingDeletion(key: string, uid: string, nowMs: number): boolean {
    const r = this.#records.get(key);
    if (r === undefined || nowMs - r.raisedAtMs > this.#timeoutMs) return false;
    return r.deletions.has(uid);
  }

  forget(key: string): void {
    this.#records.delete(key);
  }
}

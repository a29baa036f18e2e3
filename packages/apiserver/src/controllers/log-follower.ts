// How an in-server controller follows the revision log: list (in pages, at one revision), then
// watch from the list's revision, and start over with a fresh list when the watch falls behind
// compaction. State derived from the log is rebuilt the same way after a restart, so a
// controller needs nothing beyond the log to pick up where a stopped server left off.
import { isStorageError } from '../storage/errors.ts';
import type { Store, WatchEvent, WatchHandle } from '../storage/store.ts';

export interface LogFollowerHandlers {
  /** Called before every (re)list: forget everything derived from the log so far. */
  reset(): void;
  /**
   * Called for every listed object (as `ADDED`), then for every later change, in revision
   * order. A throw is reported to `onError` and does not stop the follower.
   */
  observe(e: WatchEvent): void;
  /** Told about failures the follower cannot recover from by itself, and about `observe` throws. */
  onError(err: unknown): void;
}

export interface LogFollowerOptions {
  /** Keys to watch. @default '/registry/' */
  watchPrefix?: string;
  /** Keys to list first; the rest of `watchPrefix` is only seen as it changes. @default watchPrefix */
  listPrefix?: string;
  /** Objects read per list page, bounding memory on large stores. @default 500 */
  pageSize?: number;
}

/** How often in a row a list may be overtaken by compaction before the follower gives up. */
const MAX_RELIST_ATTEMPTS = 5;

export class LogFollower {
  readonly #store: Store;
  readonly #handlers: LogFollowerHandlers;
  readonly #watchPrefix: string;
  readonly #listPrefix: string;
  readonly #pageSize: number;
  #handle: WatchHandle | undefined;
  #stopped = true;

  constructor(store: Store, handlers: LogFollowerHandlers, options: LogFollowerOptions = {}) {
    this.#store = store;
    this.#handlers = handlers;
    this.#watchPrefix = options.watchPrefix ?? '/registry/';
    this.#listPrefix = options.listPrefix ?? this.#watchPrefix;
    this.#pageSize = options.pageSize ?? 500;
  }

  /** Lists synchronously (the handlers see the listed state before this returns), then watches. */
  start(): void {
    this.#stopped = false;
    this.#follow();
  }

  /** Ends the watch; `observe` is not called again. Idempotent. */
  stop(): void {
    this.#stopped = true;
    this.#handle?.cancel();
    this.#handle = undefined;
  }

  #follow(): void {
    for (let attempt = 1; !this.#stopped; attempt++) {
      try {
        this.#listAndWatch();
        return;
      } catch (err: unknown) {
        if (isStorageError(err, 'Compacted') && attempt < MAX_RELIST_ATTEMPTS) continue;
        this.#handlers.onError(err);
        return;
      }
    }
  }

  #listAndWatch(): void {
    this.#handlers.reset();
    let revision: number | undefined;
    let startAfter: string | undefined;
    for (;;) {
      const page = this.#store.list(this.#listPrefix, {
        limit: this.#pageSize,
        ...(revision !== undefined ? { revision } : {}),
        ...(startAfter !== undefined ? { startAfter } : {}),
      });
      revision = page.revision;
      for (const item of page.items) {
        this.#deliver({
          type: 'ADDED',
          key: item.key,
          revision: item.revision,
          value: item.value,
          createRevision: item.createRevision,
        });
      }
      const last = page.items.at(-1);
      if (page.remaining === 0 || last === undefined) break;
      startAfter = last.key;
    }
    this.#handle = this.#store.watch(this.#watchPrefix, revision, (e) => this.#deliver(e), {
      onError: (err) => this.#watchEnded(err),
    });
  }

  #deliver(e: WatchEvent): void {
    if (this.#stopped) return;
    try {
      this.#handlers.observe(e);
    } catch (err: unknown) {
      this.#handlers.onError(err);
    }
  }

  #watchEnded(err: Error): void {
    this.#handle = undefined;
    if (this.#stopped) return;
    // Fell behind compaction: what was missed is only in the current state; relist (§4.3).
    if (isStorageError(err, 'Compacted')) this.#follow();
    // WatchClosed: the store is closing under us; the server is shutting down.
    else if (!isStorageError(err, 'WatchClosed')) this.#handlers.onError(err);
  }
}

// Which revisions a request saw (ADR 0046). An answer may reveal only what its request read or
// wrote, so it needs to wait only until those revisions are durable — not for the store's
// newest write, which may come from an unrelated in-process writer (controllers, node agent).
import { AsyncLocalStorage } from 'node:async_hooks';
import type {
  ListOptions,
  ListResult,
  Store,
  StoredObject,
  StoreReader,
  StoreWriter,
  WatchEvent,
  WatchHandle,
  WatchOptions,
} from './store.ts';

interface Scope {
  seen: number;
}

const scopes = new AsyncLocalStorage<Scope>();

/** Runs `fn` in a fresh scope; `seen` is the highest revision it read or wrote (0: none). */
export async function withSeenRevision<T>(
  fn: () => Promise<T> | T,
): Promise<{ result: T; seen: number }> {
  const scope: Scope = { seen: 0 };
  const result = await scopes.run(scope, fn);
  return { result, seen: scope.seen };
}

/** Notes `revision` into the current scope; outside a scope it does nothing. */
export function noteSeen(revision: number): void {
  const scope = scopes.getStore();
  if (scope && revision > scope.seen) scope.seen = revision;
}

/**
 * Notes what a reader/writer returns. A miss, a count or a change check reveals the state at
 * the store's current revision (a 404 may reveal a pending delete), so those note that.
 */
function notingAccess<T extends StoreReader & StoreWriter>(
  inner: T,
  current: () => number,
): StoreReader & StoreWriter {
  const noteObject = (o: StoredObject | undefined): void => noteSeen(o ? o.revision : current());
  return {
    get(key: string, atRevision?: number): StoredObject | undefined {
      const o = inner.get(key, atRevision);
      noteObject(o);
      return o;
    },
    list(prefix: string, opts?: ListOptions): ListResult {
      const r = inner.list(prefix, opts);
      noteSeen(r.revision);
      return r;
    },
    count(prefix: string): number {
      const n = inner.count(prefix);
      noteSeen(current());
      return n;
    },
    changedSince(prefix: string, revision: number): boolean {
      const changed = inner.changedSince(prefix, revision);
      noteSeen(current());
      return changed;
    },
    create(key: string, value: string): StoredObject {
      const o = inner.create(key, value);
      noteSeen(o.revision);
      return o;
    },
    update(key: string, value: string, expectedRevision?: number): StoredObject | 'unchanged' {
      const o = inner.update(key, value, expectedRevision);
      noteSeen(o === 'unchanged' ? current() : o.revision);
      return o;
    },
    delete(key: string, expectedRevision?: number): StoredObject {
      const o = inner.delete(key, expectedRevision);
      noteSeen(o.revision);
      return o;
    },
  };
}

/** A Store that notes into the current scope every revision it reads or writes. */
export function revisionNotingStore(store: Store): Store {
  const current = (): number => store.currentRevision;
  const access = notingAccess(store, current);
  return {
    ...access,
    get currentRevision(): number {
      return store.currentRevision;
    },
    get compactRevision(): number {
      return store.compactRevision;
    },
    txn<T>(fn: (tx: StoreReader & StoreWriter) => T): T {
      return store.txn((tx) => fn(notingAccess(tx, current)));
    },
    durable(upTo?: number): Promise<void> {
      return store.durable(upTo);
    },
    watch(
      prefix: string,
      fromRevision: number,
      onEvent: (e: WatchEvent) => void | Promise<void>,
      options?: WatchOptions,
    ): WatchHandle {
      const handle = store.watch(prefix, fromRevision, onEvent, options);
      // Events go out only once durable; the start revision is what the response headers reveal.
      noteSeen(Math.min(fromRevision, store.currentRevision));
      return handle;
    },
    compact(keepRevisions: number): number {
      return store.compact(keepRevisions);
    },
    close(): void {
      store.close();
    },
  };
}

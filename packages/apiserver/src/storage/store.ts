// The storage contract the API server builds on (STYLE.md house style 7: "Storage follows kine").
// One append-only revision log gives resourceVersion, optimistic concurrency and watch from a
// single place; docs/adr/0005-embedded-storage-sqlite-revision-log.md records why.
//
// Revisions are global, strictly increasing integers shared by every key. They are the
// resourceVersion of the API (semantics doc §2): every write of any key advances the revision,
// a no-op write does not, and revisions are never reused, not even across restarts or after
// compaction (§12.5).
//
// Keys are opaque strings, by convention `/registry/<group>/<resource>/<namespace>/<name>`. They
// are compared and ordered by the bytes of their UTF-8 encoding (SQLite BINARY collation), which
// is etcd's order (§3.4, §12.4): `a-b/x` sorts before `a/x`. Values are stored exactly as given.

/** One version of one key, as stored. */
export interface StoredObject {
  key: string;
  /** The revision that wrote this version (the object's resourceVersion). */
  revision: number;
  /** The revision that created the key's current incarnation (etcd `create_revision`). */
  createRevision: number;
  /** The value exactly as written (JSON text, compared byte for byte for no-op detection). */
  value: string;
}

/**
 * A change to a key. `ADDED` creates a key, `MODIFIED` replaces its value, `DELETED` removes it:
 * `value` is then the last live value and `revision` the deletion's revision (semantics doc §4.1).
 */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  key: string;
  revision: number;
  /** The new value; for `DELETED`, the value the key had before it was deleted. */
  value: string;
  /** The value this event replaced (`MODIFIED` and `DELETED` only). */
  prevValue?: string;
  /** Revision of the key's current incarnation (for `DELETED`: of the incarnation that ended). */
  createRevision: number;
}

export interface ListOptions {
  /**
   * Read the state as of this revision. Pass the first page's `revision` to every later page to
   * get one consistent snapshot (semantics doc §3.4).
   * @default the current revision
   */
  revision?: number;
  /** At most this many items. @default unlimited */
  limit?: number;
  /** Only keys strictly after this one in byte order (the continue token's position). */
  startAfter?: string;
}

export interface ListResult {
  items: StoredObject[];
  /** The revision the list was read at: list `metadata.resourceVersion` (≥ every item's). */
  revision: number;
  /** How many matching items follow this page (`remainingItemCount`); 0 on the last page. */
  remaining: number;
}

export interface WatchOptions {
  /**
   * Called once if the watch ends for a reason other than `cancel()`: `Compacted` if it fell
   * behind the compact revision while catching up, `WatchClosed` if `onEvent` threw or the store
   * closed. After it no more events arrive. A client re-watches from the last revision it saw.
   */
  onError?: (err: Error) => void;
  /**
   * Events held in memory for this watcher before it stops receiving live events and catches
   * up from the log instead (see `Store.watch`).
   * @default 1000
   */
  maxBufferedEvents?: number;
}

export interface WatchHandle {
  /** Stops delivery; idempotent. No event is delivered after it returns. */
  cancel(): void;
  /** Settles when the watch ends: `undefined` after `cancel()`, the error otherwise. Never rejects. */
  readonly done: Promise<Error | undefined>;
}

/**
 * The reads and writes that can run inside one transaction. Every method is synchronous; see
 * `Store.txn`.
 */
export interface StoreReader {
  /**
   * The latest live version of `key` at or before `atRevision`, or `undefined` if the key did
   * not exist (or was deleted) then.
   * @throws StorageError `Compacted` if `atRevision < compactRevision`, `TooLargeResourceVersion`
   *   if `atRevision > currentRevision`
   */
  get(key: string, atRevision?: number): StoredObject | undefined;
  /**
   * Live objects whose key starts with `prefix`, in byte order of key, as of `opts.revision`.
   * Pages read at the same revision form one snapshot, whatever was written in between.
   * @throws StorageError `Compacted` / `TooLargeResourceVersion` as for `get`
   */
  list(prefix: string, opts?: ListOptions): ListResult;
  /** How many live objects have a key starting with `prefix`, now. */
  count(prefix: string): number;
  /**
   * Whether a write after `revision` touched a key starting with `prefix` (what this reader
   * sees, a transaction's own writes included). True when `revision` is below the compact
   * revision: the writes that would tell may be gone. Cheap when few writes followed `revision`.
   */
  changedSince(prefix: string, revision: number): boolean;
}

export interface StoreWriter {
  /**
   * Creates `key`. The returned object's `revision` and `createRevision` are the new revision.
   * @throws StorageError `KeyExists` if the key has a live object
   */
  create(key: string, value: string): StoredObject;
  /**
   * Replaces the value of a live key. If `value` is byte-identical to the stored value the write
   * is a no-op: returns `'unchanged'`, no revision is used and no event is sent (semantics doc
   * §2, §12.7). `expectedRevision` is checked first, so a stale no-op still conflicts.
   * @throws StorageError `NotFound` if the key has no live object; `Conflict` if
   *   `expectedRevision` is given and is not the key's current revision
   */
  update(key: string, value: string, expectedRevision?: number): StoredObject | 'unchanged';
  /**
   * Deletes a live key by writing a tombstone revision. Returns the last live value with the
   * tombstone's revision (what a `DELETED` event carries, semantics doc §4.1).
   * @throws StorageError `NotFound`, `Conflict` as for `update`
   */
  delete(key: string, expectedRevision?: number): StoredObject;
}

/**
 * The revision log. All methods are synchronous (SQLite is) except durability and event
 * delivery. A write returns once it is in the log, visible to this store's readers; it is on
 * disk once `durable()` settles, and its watch events go out only then (group commit, ADR 0010).
 * Writes made in one turn of the event loop share one transaction (exclusive lock) and writes
 * committed while an fsync runs share the next fsync.
 *
 * Several Store instances, in this or other processes, may share one file when opened with
 * `lock: 'shared'`: writes serialise on SQLite's write lock (`BEGIN IMMEDIATE`), so no update
 * is lost, and each instance's watchers see the others' writes within `pollIntervalMs`.
 */
export interface Store extends StoreReader, StoreWriter {
  /** The revision of the newest write in the log (0 for an empty store). Never decreases. */
  readonly currentRevision: number;
  /** Revisions at or below this may have lost history; reads and watches before it fail. */
  readonly compactRevision: number;

  /**
   * Runs `fn` in one write transaction (`BEGIN IMMEDIATE`): its reads see a state no other
   * writer can change before it commits, so read-check-write sequences (preconditions, generated
   * names, finalizer removal) are atomic. If `fn` throws, nothing it wrote is kept and the error
   * propagates. `fn` must be synchronous; nested `txn` calls join the outer transaction.
   * Events for its writes are delivered once they are durable, in revision order.
   */
  txn<T>(fn: (tx: StoreReader & StoreWriter) => T): T;

  /**
   * Settles once every revision ≤ `upTo` (default: every revision this store has written or read
   * so far) is committed and on disk (`synchronous: 'full'`; otherwise once committed).
   * Acknowledge a write, or answer a read that may have seen one, only after this for the
   * revisions it saw (ADR 0046): a crash never loses what was acknowledged.
   * @throws StorageError `WriteFailed` (as a rejection) if a commit or fsync failed
   */
  durable(upTo?: number): Promise<void>;

  /**
   * Delivers every change to keys starting with `prefix` with revision > `fromRevision`, in
   * revision order, exactly once: first the retained history (replayed from the log), then live
   * changes. `fromRevision` may be in the future; the watch then waits for it. A prefix is a
   * plain string prefix: to watch one key, filter events by key (`/ns/a` also matches `/ns/ab`).
   *
   * Delivery is asynchronous and never blocks writers. If `onEvent` returns a promise, the next
   * event waits for it (back-pressure from, e.g., an HTTP response). Each watcher buffers at most
   * `maxBufferedEvents` live events; beyond that it stops buffering and, once its consumer has
   * drained the buffer, re-reads the missed revisions from the log. So a slow watcher costs
   * bounded memory and loses nothing, unless compaction overtakes it: then `onError` gets a
   * `Compacted` error and the watch ends (the client relists, semantics doc §4.3).
   * @throws StorageError `Compacted` (synchronously) if `fromRevision < compactRevision`
   */
  watch(
    prefix: string,
    fromRevision: number,
    onEvent: (e: WatchEvent) => void | Promise<void>,
    options?: WatchOptions,
  ): WatchHandle;

  /**
   * Removes history older than `currentRevision - keepRevisions`: versions superseded by a later
   * write at or below that revision, and deletions at or below it. The latest live version of
   * every key is always kept, so `get` and `list` at the compact revision or later still see the
   * exact state of that revision. Never lowers the compact revision.
   * @returns the new compact revision
   */
  compact(keepRevisions: number): number;

  /**
   * Commits and fsyncs pending writes, ends every watch (`onError` gets a `WatchClosed` error),
   * releases the lock and closes the file. Idempotent; any later call throws `InvalidArgument`.
   */
  close(): void;
}

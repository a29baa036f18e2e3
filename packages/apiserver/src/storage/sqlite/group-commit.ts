// Group commit (ADR 0010). Writes that arrive in the same turn of the event loop share one SQLite
// transaction (exclusive lock only), committed in the loop's check phase, and one fdatasync of
// the WAL right after it. SQLite itself runs with synchronous=NORMAL, so COMMIT writes the WAL
// without an fsync; the fdatasync is ours, once per batch. While it blocks the loop, new requests
// queue in the kernel and form the next batch. A revision counts as durable only once an
// fdatasync that started after its COMMIT has returned; acknowledgements (`durable()`) and watch
// events (`onDurable`) wait for that. (fdatasync on libuv's thread pool was measured and
// dropped: the extra thread hand-offs cost more than they overlapped on a loaded 2-core machine.)
import { closeSync, fdatasyncSync, openSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { StorageError } from '../errors.ts';

export interface GroupCommitOptions {
  /** The WAL file to fdatasync; `undefined` = durable at commit (`:memory:`, synchronous=normal). */
  walPath: string | undefined;
  /**
   * Keep one transaction open across writes until the event loop's check phase. Only with the
   * exclusive lock: in shared mode it would hold SQLite's write lock against other processes.
   */
  batch: boolean;
  /** Commit an open batch as soon as it holds this many writes (a loop that never yields). */
  maxBatch: number;
  /** The newest revision this connection sees (including the open batch's uncommitted writes). */
  currentRevision: () => number;
  /** The durable revision advanced: watch events up to it may go out. */
  onDurable: () => void;
  /** A commit or fsync failed; the store must stop serving (it may have lost writes). */
  onFail: (err: StorageError) => void;
}

interface Waiter {
  revision: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

export class GroupCommit {
  /** Every revision ≤ durable is committed and on disk. */
  #durable: number;
  /** Every revision ≤ committed is committed (maybe not yet on disk). */
  #committed: number;
  #open = false;
  #writes = 0;
  #depth = 0;
  #closed = false;
  #failed: StorageError | undefined;
  #fd: number | undefined;
  #flush: NodeJS.Immediate | undefined;
  #syncSoon: NodeJS.Immediate | undefined;
  #waiters: Waiter[] = [];
  readonly #db: Database.Database;
  readonly #opts: GroupCommitOptions;

  constructor(db: Database.Database, opts: GroupCommitOptions) {
    this.#db = db;
    this.#opts = opts;
    this.#durable = this.#committed = opts.currentRevision();
  }

  get durableRevision(): number {
    return this.#durable;
  }

  get failure(): StorageError | undefined {
    return this.#failed;
  }

  /**
   * Runs one top-level write. In batch mode it joins the open transaction inside a SAVEPOINT, so
   * a write that throws (a 409, say) undoes only itself; otherwise it is its own BEGIN IMMEDIATE
   * transaction. Writes nested in a `txn` callback join their caller.
   */
  write<T>(fn: () => T): T {
    if (this.#depth > 0) return fn();
    if (this.#failed) throw this.#failed;
    this.#depth++;
    try {
      if (!this.#opts.batch) {
        const result = this.#db.transaction(fn).immediate();
        this.#afterCommit();
        return result;
      }
      if (!this.#open) this.#begin();
      let result: T;
      try {
        result = this.#db.transaction(fn)();
      } catch (err: unknown) {
        // SQLite rolls the whole transaction back on some errors (SQLITE_FULL, IOERR, NOMEM):
        // the batch's earlier writes are then gone although their callers saw them succeed.
        if (!this.#db.inTransaction) this.#fail('a write rolled back its batch', err);
        throw err;
      }
      if (++this.#writes >= this.#opts.maxBatch) this.#commit();
      return result;
    } finally {
      this.#depth--;
    }
  }

  /**
   * Settles once every revision ≤ `upTo` (default: every revision this connection has seen) is
   * committed and on disk. A revision still in the open batch is committed with it first.
   */
  durable(upTo = Infinity): Promise<void> {
    if (this.#failed) return Promise.reject(this.#failed);
    const revision = Math.min(upTo, this.#opts.currentRevision());
    if (revision <= this.#durable) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => {
      this.#waiters.push({ revision, resolve, reject });
    });
    if (!this.#open) {
      // Outside a batch the newest revision is committed: ours, or another process's (shared).
      this.#committed = Math.max(this.#committed, revision);
      this.#scheduleSync();
    }
    return done;
  }

  /** Commits the open batch and fsyncs now, synchronously (compaction, close). */
  flushSync(): void {
    this.#commit();
    this.#syncNow();
  }

  /** Commits and fsyncs what is pending, then releases the WAL file. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.flushSync();
    this.#closed = true;
    if (this.#syncSoon !== undefined) clearImmediate(this.#syncSoon);
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    const err = this.#failed ?? new StorageError('WatchClosed', 'the store was closed');
    for (const w of this.#waiters.splice(0)) w.reject(err);
  }

  #begin(): void {
    this.#db.exec('BEGIN IMMEDIATE');
    this.#open = true;
    // The check phase runs after the poll phase has handed over every request that was ready,
    // so all writes those requests make land in this one transaction.
    this.#flush = setImmediate(() => this.#commit());
  }

  #commit(): void {
    if (this.#flush !== undefined) clearImmediate(this.#flush);
    this.#flush = undefined;
    if (!this.#open) return;
    this.#open = false;
    this.#writes = 0;
    try {
      this.#db.exec('COMMIT');
    } catch (err: unknown) {
      try {
        if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
      } catch {
        // The connection is unusable; #fail closes the store either way.
      }
      this.#fail('COMMIT failed', err);
      return;
    }
    this.#afterCommit();
  }

  #afterCommit(): void {
    this.#committed = Math.max(this.#committed, this.#opts.currentRevision());
    if (this.#opts.batch || this.#opts.walPath === undefined) this.#syncNow();
    else this.#scheduleSync();
  }

  /** Shared mode: one fdatasync for the commits of this turn, at its end. */
  #scheduleSync(): void {
    this.#syncSoon ??= setImmediate(() => {
      this.#syncSoon = undefined;
      this.#syncNow();
    });
  }

  /** fdatasync on this thread, covering every commit so far. */
  #syncNow(): void {
    if (this.#failed || this.#closed) return;
    const target = this.#committed;
    if (target <= this.#durable) return;
    try {
      if (this.#opts.walPath !== undefined) fdatasyncSync(this.#walFd());
    } catch (err: unknown) {
      this.#fail('fdatasync of the WAL failed', err);
      return;
    }
    this.#advance(target);
  }

  #advance(target: number): void {
    if (target <= this.#durable) return;
    this.#durable = target;
    const ready = this.#waiters.filter((w) => w.revision <= target);
    this.#waiters = this.#waiters.filter((w) => w.revision > target);
    for (const w of ready) w.resolve();
    this.#opts.onDurable();
  }

  #walFd(): number {
    // The WAL exists from the first commit until the last connection closes, and ours stays
    // open, so one descriptor serves for the store's lifetime.
    this.#fd ??= openSync(this.#opts.walPath ?? '', 'r');
    return this.#fd;
  }

  #fail(what: string, err: unknown): void {
    if (this.#failed) return;
    const detail = err instanceof Error ? err.message : String(err);
    // After a failed fsync the page cache can no longer be trusted (PostgreSQL's "fsyncgate"):
    // stop instead of retrying, so nothing that may be lost is ever acknowledged.
    this.#failed = new StorageError(
      'WriteFailed',
      `${what}: ${detail}; writes after revision ${this.#durable} were not acknowledged and may be lost — restart the server (it recovers from the WAL)`,
      { cause: err },
    );
    for (const w of this.#waiters.splice(0)) w.reject(this.#failed);
    this.#opts.onFail(this.#failed);
  }
}

// The revision log on better-sqlite3 (kine's Log over its generic SQL dialect, collapsed into one
// class because SQLite is our only backend). Reads and writes are synchronous; every write runs
// in a `BEGIN IMMEDIATE` transaction (its own, or a SAVEPOINT in the event-loop turn's batch:
// group-commit.ts), so two processes sharing the file serialise on SQLite's write lock and the
// read-check-append sequence of one can never interleave with the other's.
import type Database from 'better-sqlite3';
import { StorageError } from '../errors.ts';
import { compareKeys, prefixEnd } from '../key-range.ts';
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
} from '../store.ts';
import { META_COMPACT_REVISION } from './schema.ts';
import { GroupCommit } from './group-commit.ts';
import { COLUMNS, prepareStatements } from './statements.ts';
import { toStorageError } from './sqlite-errors.ts';
import { WatchHub } from './watch-hub.ts';
import {
  checkKey,
  checkRequestSize,
  checkValue,
  toEvent,
  toObject,
  type EventRow,
  type LogRow,
} from './rows.ts';

/** Compaction deletes at most this many revisions per write transaction (kine: 1000). */
const COMPACT_BATCH = 10_000;
/** An open batch commits at this many writes even if the event loop never yields. */
const MAX_BATCH = 1000;

export interface SqliteStoreOptions {
  clock: () => number;
  path: string;
  /** 0 = do not poll (no other process writes this file). */
  pollIntervalMs: number;
  /** The WAL to fdatasync before a write counts as durable; undefined = durable at commit. */
  walPath: string | undefined;
  /** One transaction per event-loop turn (only when no other process shares the file). */
  batch: boolean;
}

export class SqliteStore implements Store {
  private closed = false;
  private readonly hub: WatchHub;
  private readonly commits: GroupCommit;
  private readonly stmt: ReturnType<typeof prepareStatements>;
  private readonly listStmts = new Map<string, Database.Statement>();
  private readonly tx: StoreReader & StoreWriter;

  constructor(
    private readonly db: Database.Database,
    private readonly opts: SqliteStoreOptions,
  ) {
    this.stmt = prepareStatements(db);
    this.tx = {
      get: (key, atRevision) => this.get(key, atRevision),
      list: (prefix, listOpts) => this.list(prefix, listOpts),
      count: (prefix) => this.count(prefix),
      changedSince: (prefix, revision) => this.changedSince(prefix, revision),
      create: (key, value) => this.create(key, value),
      update: (key, value, expectedRevision) => this.update(key, value, expectedRevision),
      delete: (key, expectedRevision) => this.delete(key, expectedRevision),
    };
    this.commits = new GroupCommit(db, {
      walPath: opts.walPath,
      batch: opts.batch,
      maxBatch: MAX_BATCH,
      currentRevision: () => this.readCurrent(),
      onDurable: () => this.hub.notify(),
      onFail: (err) => this.hub.closeAll(err),
    });
    this.hub = new WatchHub(
      {
        readEvents: (after, upTo, limit, lo, hi) => this.readEvents(after, upTo, limit, lo, hi),
        // Watchers see a revision only once it is on disk.
        currentRevision: () => this.commits.durableRevision,
        compactRevision: () => this.readCompact(),
      },
      opts.pollIntervalMs,
      // Another process's commits are read only after our fdatasync of the shared WAL.
      () =>
        void this.commits.durable().then(
          () => this.hub.notify(),
          () => undefined,
        ),
    );
  }

  get currentRevision(): number {
    return this.guard('read revision', () => this.readCurrent());
  }

  get compactRevision(): number {
    return this.guard('read compact revision', () => this.readCompact());
  }

  get(key: string, atRevision?: number): StoredObject | undefined {
    checkKey(key);
    return this.guard(`get ${key}`, () =>
      this.read(() => {
        const row =
          atRevision === undefined
            ? (this.stmt.latest.get(key) as LogRow | undefined)
            : (this.stmt.at.get(key, this.checkRevision(atRevision)) as LogRow | undefined);
        return row === undefined || row.deleted ? undefined : toObject(row);
      }),
    );
  }

  list(prefix: string, opts: ListOptions = {}): ListResult {
    const { limit, startAfter } = opts;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
      throw new StorageError('InvalidArgument', 'list: limit must be an integer ≥ 1');
    }
    return this.guard(`list ${prefix}`, () =>
      this.read(() => {
        const revision =
          opts.revision === undefined ? this.readCurrent() : this.checkRevision(opts.revision);
        const hi = prefixEnd(prefix);
        // Start strictly after `startAfter` when it lies inside the range, else at the prefix.
        const after = startAfter !== undefined && compareKeys(startAfter, prefix) >= 0;
        const lo = after ? startAfter : prefix;
        const params = hi === undefined ? [lo, revision] : [lo, hi, revision];
        const rows = this.listStatement(after, hi !== undefined, false).all(
          ...params,
          limit ?? -1,
        ) as LogRow[];
        let remaining = 0;
        if (limit !== undefined && rows.length === limit) {
          const total = this.listStatement(after, hi !== undefined, true).get(...params) as number;
          remaining = total - rows.length;
        }
        return { items: rows.map(toObject), revision, remaining };
      }),
    );
  }

  count(prefix: string): number {
    return this.guard(`count ${prefix}`, () =>
      this.read(() => {
        const hi = prefixEnd(prefix);
        const revision = this.readCurrent();
        const params = hi === undefined ? [prefix, revision] : [prefix, hi, revision];
        return this.listStatement(false, hi !== undefined, true).get(...params) as number;
      }),
    );
  }

  changedSince(prefix: string, revision: number): boolean {
    return this.guard(`changes under ${prefix}`, () =>
      this.read(() => {
        if (revision < this.readCompact()) return true;
        const hi = prefixEnd(prefix) ?? null;
        return this.stmt.changedInRange.get(revision, prefix, hi, hi) !== undefined;
      }),
    );
  }

  create(key: string, value: string): StoredObject {
    checkKey(key);
    checkValue(value);
    return this.write(`create ${key}`, () => {
      const latest = this.stmt.latest.get(key) as LogRow | undefined;
      if (latest !== undefined && !latest.deleted) {
        throw new StorageError('KeyExists', `create ${key}: key exists at revision ${latest.id}`);
      }
      checkRequestSize(key, value);
      const revision = this.readCurrent() + 1;
      this.append(key, 1, 0, revision, latest?.id ?? 0, value, revision);
      return { key, revision, createRevision: revision, value };
    });
  }

  update(key: string, value: string, expectedRevision?: number): StoredObject | 'unchanged' {
    checkKey(key);
    checkValue(value);
    return this.write(`update ${key}`, () => {
      const latest = this.liveRow('update', key, expectedRevision);
      if (latest.value === value) return 'unchanged';
      checkRequestSize(key, value);
      const revision = this.readCurrent() + 1;
      this.append(key, 0, 0, latest.create_revision, latest.id, value, revision);
      return { key, revision, createRevision: latest.create_revision, value };
    });
  }

  delete(key: string, expectedRevision?: number): StoredObject {
    checkKey(key);
    return this.write(`delete ${key}`, () => {
      const latest = this.liveRow('delete', key, expectedRevision);
      const revision = this.readCurrent() + 1;
      this.append(key, 0, 1, latest.create_revision, latest.id, latest.value, revision);
      return { key, revision, createRevision: latest.create_revision, value: latest.value };
    });
  }

  txn<T>(fn: (tx: StoreReader & StoreWriter) => T): T {
    return this.write('txn', () => fn(this.tx));
  }

  durable(upTo?: number): Promise<void> {
    try {
      this.checkOpen();
      return this.commits.durable(upTo);
    } catch (err: unknown) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  watch(
    prefix: string,
    fromRevision: number,
    onEvent: (e: WatchEvent) => void | Promise<void>,
    options?: WatchOptions,
  ): WatchHandle {
    this.checkOpen();
    if (!Number.isInteger(fromRevision) || fromRevision < 0) {
      throw new StorageError(
        'InvalidArgument',
        `watch: revision ${fromRevision} is not an integer ≥ 0`,
      );
    }
    const compact = this.compactRevision;
    if (fromRevision < compact) {
      throw new StorageError(
        'Compacted',
        `watch ${prefix}: revision ${fromRevision} has been compacted (compact revision ${compact}); relist and watch from the list's revision`,
        { revisions: { requested: fromRevision, compact } },
      );
    }
    return this.hub.add(prefix, prefix, prefixEnd(prefix), fromRevision, onEvent, options);
  }

  compact(keepRevisions: number): number {
    if (!Number.isInteger(keepRevisions) || keepRevisions < 0) {
      throw new StorageError('InvalidArgument', 'compact: keepRevisions must be an integer ≥ 0');
    }
    this.checkOpen();
    // Make pending writes durable and hand them to live watchers first, so compaction never
    // opens a hole behind them.
    this.commits.flushSync();
    this.hub.flush();
    for (;;) {
      const done = this.guard('compact', () =>
        this.db
          .transaction(() => {
            const old = this.readCompact();
            const target = this.readCurrent() - keepRevisions;
            if (target <= old) return { revision: old, finished: true };
            const upTo = Math.min(target, old + COMPACT_BATCH);
            this.stmt.compactSuperseded.run(old, upTo);
            this.stmt.compactDeleted.run(old, upTo);
            this.stmt.setCompact.run(upTo, META_COMPACT_REVISION);
            return { revision: upTo, finished: upTo === target };
          })
          .immediate(),
      );
      if (done.finished) return done.revision;
    }
  }

  close(): void {
    if (this.closed) return;
    this.commits.close();
    this.hub.closeAll(
      new StorageError('WatchClosed', `watch: the store ${this.opts.path} was closed`),
    );
    this.closed = true;
    this.db.close();
  }

  // --- internals -------------------------------------------------------------------------------

  private readCurrent(): number {
    return (this.stmt.current.get() as number | undefined) ?? 0;
  }

  private readCompact(): number {
    return (this.stmt.compact.get(META_COMPACT_REVISION) as number | undefined) ?? 0;
  }

  /** Validates a requested read revision against the retained history. */
  private checkRevision(revision: number): number {
    if (!Number.isInteger(revision) || revision < 0) {
      throw new StorageError('InvalidArgument', `revision ${revision} is not an integer ≥ 0`);
    }
    const compact = this.readCompact();
    if (revision < compact) {
      throw new StorageError(
        'Compacted',
        `revision ${revision} has been compacted (compact revision ${compact})`,
        { revisions: { requested: revision, compact } },
      );
    }
    const current = this.readCurrent();
    if (revision > current) {
      throw new StorageError(
        'TooLargeResourceVersion',
        `Too large resource version: ${revision}, current: ${current}`,
        { revisions: { requested: revision, current } },
      );
    }
    return revision;
  }

  private liveRow(verb: string, key: string, expectedRevision: number | undefined): LogRow {
    const latest = this.stmt.latest.get(key) as LogRow | undefined;
    if (latest === undefined || latest.deleted) {
      throw new StorageError('NotFound', `${verb} ${key}: no live object`);
    }
    if (expectedRevision !== undefined && expectedRevision !== latest.id) {
      throw new StorageError(
        'Conflict',
        `${verb} ${key}: expected revision ${expectedRevision}, current revision is ${latest.id}`,
        { revisions: { requested: expectedRevision, current: latest.id } },
      );
    }
    return latest;
  }

  private append(
    key: string,
    created: number,
    deleted: number,
    createRevision: number,
    prevRevision: number,
    value: string,
    expected: number,
  ): void {
    const info = this.stmt.insert.run(
      key,
      created,
      deleted,
      createRevision,
      prevRevision,
      value,
      this.opts.clock(),
    );
    // Inside BEGIN IMMEDIATE nobody else can append, so AUTOINCREMENT must give current + 1.
    if (Number(info.lastInsertRowid) !== expected) {
      throw new Error(`storage invariant: revision ${String(info.lastInsertRowid)} ≠ ${expected}`);
    }
  }

  private listStatement(after: boolean, bounded: boolean, count: boolean): Database.Statement {
    const id = `${after}/${bounded}/${count}`;
    let stmt = this.listStmts.get(id);
    if (stmt === undefined) {
      // kine's list query: for each name in range, its newest row at or before the revision,
      // if that row is live. Walking the (name, id) index in name order lets LIMIT stop early.
      const where = `${after ? 'l.name > ?' : 'l.name >= ?'}${bounded ? ' AND l.name < ?' : ''}`;
      const select = count ? 'SELECT count(*)' : `SELECT ${COLUMNS}`;
      const newest = 'SELECT max(m.id) FROM log m WHERE m.name = l.name AND m.id <= ?';
      const order = count ? '' : ' ORDER BY l.name LIMIT ?';
      stmt = this.db.prepare(
        `${select} FROM log l WHERE ${where} AND l.deleted = 0 AND l.id = (${newest})${order}`,
      );
      if (count) stmt.pluck();
      this.listStmts.set(id, stmt);
    }
    return stmt;
  }

  private readEvents(
    after: number,
    upTo: number,
    limit: number,
    lo?: string,
    hi?: string,
  ): WatchEvent[] {
    const rows = (
      lo === undefined
        ? this.stmt.events.all(after, upTo, limit)
        : this.stmt.eventsInRange.all(after, upTo, lo, hi ?? null, hi ?? null, limit)
    ) as EventRow[];
    return rows.map(toEvent);
  }

  private checkOpen(): void {
    const failure = this.commits.failure;
    if (failure !== undefined) throw failure;
    if (this.closed) {
      throw new StorageError('InvalidArgument', `store ${this.opts.path} is closed`);
    }
  }

  /** Runs a read in one snapshot (a deferred transaction, or the caller's). */
  private read<T>(fn: () => T): T {
    return this.db.inTransaction ? fn() : this.db.transaction(fn).deferred();
  }

  /** Runs a write in the group commit (watchers hear of it once it is durable). */
  private write<T>(what: string, fn: () => T): T {
    return this.guard(what, () => this.commits.write(fn));
  }

  private guard<T>(what: string, fn: () => T): T {
    this.checkOpen();
    try {
      return fn();
    } catch (err: unknown) {
      throw toStorageError(err, what, this.opts.path);
    }
  }
}

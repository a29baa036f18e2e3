// Opening a store file safely. Everything that might be somebody else's file, a damaged file, or a
// file another process holds is examined first without writing a byte: the 100-byte header
// straight from disk, then a read-only SQLite connection. Only a file that is empty, absent or
// provably ours is opened for writing (issue 4: "never silently rewritten"; ADR 0005).
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { StorageError } from '../errors.ts';
import type { Store } from '../store.ts';
import {
  APPLICATION_ID,
  META_COMPACT_REVISION,
  META_SCHEMA_VERSION,
  SCHEMA_SQL,
  SCHEMA_VERSION,
  SQLITE_HEADER,
} from './schema.ts';
import { toStorageError } from './sqlite-errors.ts';
import { SqliteStore } from './sqlite-store.ts';

export interface OpenStoreOptions {
  /** Database file, created if absent (its directory must exist); `':memory:'` for tests. */
  path: string;
  /**
   * Wall clock in ms, recorded per write (`written_at`) for operators.
   * @default Date.now
   */
  clock?: () => number;
  /**
   * `exclusive`: this Store owns the file until `close()` (or process death, since the lock is an
   * OS file lock held by SQLite); any other opener gets `Locked`. One API server per data dir.
   * `shared`: several Stores (processes) may write the same file; watchers then also poll the
   * log every `pollIntervalMs` for other writers' changes.
   * @default 'exclusive'
   */
  lock?: 'exclusive' | 'shared';
  /**
   * How long a write waits for another connection's write lock before failing with `Locked`.
   * @default 5000
   */
  busyTimeoutMs?: number;
  /**
   * Durability. `full`: `durable()` settles only after an fdatasync of the WAL that followed the
   * write's commit (one fsync shared by every commit made meanwhile: group commit, ADR 0010), so
   * an acknowledged write survives power loss, as with etcd. `normal`: `durable()` settles at
   * commit and only checkpoints fsync: an acknowledged write survives a process crash (kill -9)
   * but the last ones may vanish on power loss or kernel panic (the database stays consistent
   * either way). See ADR 0005 and 0009 for the measured cost.
   * @default 'full'
   */
  synchronous?: 'full' | 'normal';
  /**
   * Run `PRAGMA quick_check` when opening an existing file, so damage is reported at startup
   * rather than mid-request. Linear in file size (about 10 ms per 10 MB).
   * @default true
   */
  verifyOnOpen?: boolean;
  /** Poll interval for other processes' writes (`lock: 'shared'` only). @default 1000 */
  pollIntervalMs?: number;
  /**
   * `false`: every write is its own transaction and SQLite fsyncs each commit itself
   * (synchronous=FULL), as before ADR 0010. Kept so the benchmark can measure the difference.
   * @default true
   */
  groupCommit?: boolean;
}

type ResolvedOptions = Required<OpenStoreOptions>;

const INSPECT_BUSY_TIMEOUT_MS = 500;

function withDefaults(opts: OpenStoreOptions): ResolvedOptions {
  if (typeof opts.path !== 'string' || opts.path === '') {
    throw new StorageError('InvalidArgument', 'openStore: path must be a file path or ":memory:"');
  }
  const resolved: ResolvedOptions = {
    path: opts.path,
    clock: opts.clock ?? Date.now,
    lock: opts.lock ?? 'exclusive',
    busyTimeoutMs: opts.busyTimeoutMs ?? 5000,
    synchronous: opts.synchronous ?? 'full',
    verifyOnOpen: opts.verifyOnOpen ?? true,
    pollIntervalMs: opts.pollIntervalMs ?? 1000,
    groupCommit: opts.groupCommit ?? true,
  };
  for (const [name, value] of [
    ['busyTimeoutMs', resolved.busyTimeoutMs],
    ['pollIntervalMs', resolved.pollIntervalMs],
  ] as const) {
    if (!Number.isInteger(value) || value < 0) {
      throw new StorageError('InvalidArgument', `openStore: ${name} must be an integer ≥ 0`);
    }
  }
  return resolved;
}

/**
 * Opens (or creates) a revision-log store.
 * @throws StorageError `NotSqlite`, `Foreign`, `Corrupt`, `Locked`, `NewerSchema`; the file is
 *   never modified when any of these is thrown
 */
export function openStore(options: OpenStoreOptions): Store {
  const opts = withDefaults(options);
  const memory = opts.path === ':memory:';
  const state = memory ? 'new' : inspect(opts);
  let db: Database.Database;
  try {
    db = new Database(opts.path, { timeout: opts.busyTimeoutMs });
  } catch (err: unknown) {
    throw toStorageError(err, 'open', opts.path);
  }
  try {
    if (!memory) configure(db, opts);
    if (state === 'new') initialise(db);
    return new SqliteStore(db, {
      clock: opts.clock,
      path: opts.path,
      pollIntervalMs: opts.lock === 'shared' ? opts.pollIntervalMs : 0,
      walPath:
        !memory && opts.groupCommit && opts.synchronous === 'full' ? `${opts.path}-wal` : undefined,
      batch: opts.groupCommit && opts.lock === 'exclusive',
    });
  } catch (err: unknown) {
    db.close();
    throw toStorageError(err, 'open', opts.path);
  }
}

function configure(db: Database.Database, opts: ResolvedOptions): void {
  if (opts.lock === 'exclusive') {
    // Set before WAL so the wal-index lives in heap memory (no -shm), then take the exclusive
    // file lock now rather than at the first write: SQLite keeps it until close, and the OS
    // drops it if the process dies, so a crash never leaves a stale lock behind.
    db.pragma('locking_mode = EXCLUSIVE');
  }
  db.pragma('journal_mode = WAL');
  // NORMAL: COMMIT writes the WAL without fsync (checkpoints still fsync). With `full`, the
  // group commit fdatasyncs the WAL itself, once for every commit made meanwhile (ADR 0010).
  db.pragma(
    `synchronous = ${opts.synchronous === 'full' && !opts.groupCommit ? 'FULL' : 'NORMAL'}`,
  );
  if (opts.lock === 'exclusive') db.exec('BEGIN EXCLUSIVE; COMMIT');
}

function initialise(db: Database.Database): void {
  db.transaction(() => {
    // Re-check inside the write lock: another `shared` opener may have won the race.
    const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'");
    if ((tables.get() as { n: number }).n > 0) return;
    db.exec(SCHEMA_SQL);
    db.pragma(`application_id = ${APPLICATION_ID}`);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
    const meta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    meta.run(META_SCHEMA_VERSION, SCHEMA_VERSION);
    meta.run(META_COMPACT_REVISION, 0);
  }).immediate();
  // Put the header (application_id) into the main file at once, so a crash right after
  // creation cannot leave a file whose header alone looks foreign or empty.
  if (db.pragma('journal_mode', { simple: true }) === 'wal') db.pragma('wal_checkpoint(TRUNCATE)');
}

/** Decides whether `path` is absent/empty (`new`) or ours (`existing`); throws otherwise. */
function inspect(opts: ResolvedOptions): 'new' | 'existing' {
  const { path } = opts;
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) {
      throw new StorageError('InvalidArgument', `open ${path}: not a regular file`);
    }
    size = st.size;
  } catch (err: unknown) {
    if (err instanceof Error && 'code' in err && err.code === 'ENOENT') {
      if (!existsSync(dirname(path))) {
        throw new StorageError(
          'InvalidArgument',
          `open ${path}: directory ${dirname(path)} does not exist; create it first`,
        );
      }
      return 'new';
    }
    throw err;
  }
  if (size === 0) return 'new';

  const header = Buffer.alloc(100);
  const fd = openSync(path, 'r');
  let read: number;
  try {
    read = readSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (header.subarray(0, 16).toString('latin1') !== SQLITE_HEADER) {
    throw new StorageError(
      'NotSqlite',
      `open ${path}: not a SQLite database (unexpected file header); the file was left untouched — point the data directory elsewhere or move the file away`,
    );
  }
  if (read < 100) {
    throw new StorageError(
      'Corrupt',
      `open ${path}: truncated SQLite header (${read} bytes); the file was left untouched — restore it from a backup or move it away`,
    );
  }
  const headerAppId = header.readUInt32BE(68);
  if (headerAppId !== 0 && headerAppId !== APPLICATION_ID) throw foreign(path, headerAppId);

  let ro: Database.Database | undefined;
  try {
    // In WAL mode readers never wait for writers; only an exclusive holder (which keeps its lock
    // until it exits) makes this read busy, so waiting long would not help.
    const timeout = Math.min(opts.busyTimeoutMs, INSPECT_BUSY_TIMEOUT_MS);
    ro = new Database(path, { readonly: true, fileMustExist: true, timeout });
    const appId = ro.pragma('application_id', { simple: true }) as number;
    const tables = (
      ro.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
    ).map((t) => t.name);
    if (appId === 0 && tables.length === 0) return 'new';
    if (appId !== APPLICATION_ID) throw foreign(path, appId);
    if (!tables.includes('log') || !tables.includes('meta')) {
      throw new StorageError(
        'Corrupt',
        `open ${path}: our application id but tables are missing (found ${tables.join(', ') || 'none'}); the file was left untouched — restore it from a backup or move it away`,
      );
    }
    const row = ro.prepare('SELECT value FROM meta WHERE key = ?').get(META_SCHEMA_VERSION) as
      { value: number } | undefined;
    const version = row?.value;
    if (version === undefined) {
      throw new StorageError(
        'Corrupt',
        `open ${path}: schema version missing from the meta table; the file was left untouched — restore it from a backup or move it away`,
      );
    }
    if (version > SCHEMA_VERSION) {
      throw new StorageError(
        'NewerSchema',
        `open ${path}: written with storage schema version ${version}, this program understands up to ${SCHEMA_VERSION}; the file was left untouched — run a newer agent-sandbox`,
      );
    }
    if (opts.verifyOnOpen) {
      const problems = (ro.pragma('quick_check(5)') as { quick_check: string }[]).map(
        (r) => r.quick_check,
      );
      if (problems.length !== 1 || problems[0] !== 'ok') {
        throw new StorageError(
          'Corrupt',
          `open ${path}: integrity check failed (${problems.join('; ')}); the file was left untouched — restore it from a backup or move it away`,
        );
      }
    }
    return 'existing';
  } catch (err: unknown) {
    throw toStorageError(err, 'open', path);
  } finally {
    ro?.close();
  }
}

function foreign(path: string, appId: number): StorageError {
  return new StorageError(
    'Foreign',
    `open ${path}: a SQLite database of another application (application_id 0x${appId.toString(16).padStart(8, '0')}, ours is 0x${APPLICATION_ID.toString(16)}); the file was left untouched — point the data directory elsewhere`,
  );
}

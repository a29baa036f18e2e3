// Maps better-sqlite3's SqliteError (a `code` such as `SQLITE_BUSY_SNAPSHOT`) to StorageError at
// the one boundary between SQLite and the rest of the server.
import { StorageError, type StorageErrorCode } from '../errors.ts';

/** The extended result code name of a SqliteError (`SQLITE_CORRUPT_INDEX`), else undefined. */
export function sqliteCode(err: unknown): string | undefined {
  if (err instanceof Error && 'code' in err && typeof err.code === 'string') {
    return err.code.startsWith('SQLITE_') ? err.code : undefined;
  }
  return undefined;
}

function storageCodeFor(code: string): StorageErrorCode | undefined {
  if (code.startsWith('SQLITE_CORRUPT')) return 'Corrupt';
  if (code === 'SQLITE_NOTADB') return 'NotSqlite';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'Locked';
  return undefined;
}

const ADVICE: Partial<Record<StorageErrorCode, string>> = {
  Corrupt:
    'the file was left untouched; restore it from a backup, or move it away to start with an empty store',
  NotSqlite:
    'the file was left untouched; point --data-dir at our own data directory, or move the file away',
  Locked:
    'another process is using this data directory; stop it (or wait for its write to finish) and retry',
};

/**
 * Rethrows `err` as a StorageError when it is a SQLite condition callers can act on (corrupt
 * file, not a database, lock held elsewhere); any other error is returned unchanged for the
 * caller to throw.
 */
export function toStorageError(err: unknown, what: string, path: string): unknown {
  const code = sqliteCode(err);
  const mapped = code === undefined ? undefined : storageCodeFor(code);
  if (mapped === undefined || code === undefined) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new StorageError(
    mapped,
    `${what} ${path}: ${detail} (${code}); ${ADVICE[mapped] ?? 'see the cause'}`,
    { cause: err },
  );
}

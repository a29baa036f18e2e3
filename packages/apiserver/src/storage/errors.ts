// Storage's error class, under the package's root ApiServerError (STYLE.md error rules): the
// request path's error boundary maps each `code` to a metav1.Status once (semantics doc §7); across processes, compare `code`, never the
// message.
import { ApiServerError } from '../errors.ts';

/** Stable codes for everything the storage layer throws. */
export type StorageErrorCode =
  /** The file is a SQLite database whose pages are damaged (SQLITE_CORRUPT, failed quick_check). */
  | 'Corrupt'
  /** The file exists but is not a SQLite database at all (wrong header, SQLITE_NOTADB). */
  | 'NotSqlite'
  /** The file is a SQLite database that belongs to some other application. */
  | 'Foreign'
  /** Another process holds the database (our exclusive lock, or a write lock past the busy timeout). */
  | 'Locked'
  /** The database was written by a newer version of this program (schema version too new). */
  | 'NewerSchema'
  /** create: the key already has a live object (kube `AlreadyExists`). */
  | 'KeyExists'
  /** update/delete: the key has no live object (kube `NotFound`). */
  | 'NotFound'
  /** update/delete: `expectedRevision` is not the key's current revision (kube `Conflict`). */
  | 'Conflict'
  /** The requested revision is older than the compact revision: history is gone (kube 410 `Expired`). */
  | 'Compacted'
  /** The requested revision is newer than the current revision (kube 504 `ResourceVersionTooLarge`). */
  | 'TooLargeResourceVersion'
  /** A watcher fell behind and its callback failed, or the store was closed under it. */
  | 'WatchClosed'
  /**
   * create/update: the write is larger than etcd takes in one request (its --max-request-bytes,
   * 1.5 MiB; kube-apiserver's client refuses to send more than 2 MiB). kube answers 500 with
   * etcd's message, which this error's message is.
   */
  | 'RequestTooLarge'
  /** The store was used after `close()`, or a caller broke a documented precondition. */
  | 'InvalidArgument'
  /**
   * A commit or fsync failed: the store stopped serving and acknowledged nothing past its last
   * durable revision. Restart the server; SQLite recovers the file from its WAL.
   */
  | 'WriteFailed';

/**
 * Revisions behind `Compacted`, `TooLargeResourceVersion` and `Conflict`, so the HTTP layer can
 * build kube's messages (`too old resource version: N (M)`, `Too large resource version: N,
 * current: M`) without parsing ours.
 */
export interface StorageErrorRevisions {
  /** The revision the caller asked for (or expected, for `Conflict`). */
  requested: number;
  /** The compact revision at the time of the error. */
  compact?: number;
  /** The current revision of the store (or of the key, for `Conflict`). */
  current?: number;
}

export class StorageError extends ApiServerError {
  declare readonly code: StorageErrorCode;
  readonly revisions: StorageErrorRevisions | undefined;

  constructor(
    code: StorageErrorCode,
    message: string,
    options?: { cause?: unknown; revisions?: StorageErrorRevisions },
  ) {
    super(code, message, options);
    this.revisions = options?.revisions;
  }
}

/** Narrowing helper: `isStorageError(err, 'Conflict')`. */
export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}

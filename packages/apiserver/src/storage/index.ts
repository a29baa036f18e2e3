// The storage layer of the embedded API server: an append-only SQLite revision log modelled on
// kine (ADR 0005). The HTTP layer imports from here only.
export { openStore, type OpenStoreOptions } from './sqlite/open.ts';
export { startCompactor, type CompactorHandle, type CompactorOptions } from './compactor.ts';
export {
  StorageError,
  isStorageError,
  type StorageErrorCode,
  type StorageErrorRevisions,
} from './errors.ts';
export { compareKeys } from './key-range.ts';
export type {
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

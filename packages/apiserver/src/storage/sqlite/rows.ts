// Rows of the `log` table and what they become: StoredObject and WatchEvent.
import { StorageError } from '../errors.ts';
import type { StoredObject, WatchEvent } from '../store.ts';

export interface LogRow {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: string;
}

export interface EventRow extends LogRow {
  prev_value: string | null;
}

export function toObject(row: LogRow): StoredObject {
  return { key: row.name, revision: row.id, createRevision: row.create_revision, value: row.value };
}

export function toEvent(row: EventRow): WatchEvent {
  if (row.deleted) {
    return {
      type: 'DELETED',
      key: row.name,
      revision: row.id,
      value: row.value,
      prevValue: row.value,
      createRevision: row.create_revision,
    };
  }
  if (row.created) {
    return {
      type: 'ADDED',
      key: row.name,
      revision: row.id,
      value: row.value,
      createRevision: row.create_revision,
    };
  }
  const event: WatchEvent = {
    type: 'MODIFIED',
    key: row.name,
    revision: row.id,
    value: row.value,
    createRevision: row.create_revision,
  };
  if (row.prev_value !== null) event.prevValue = row.prev_value;
  return event;
}

export function checkKey(key: string): void {
  if (typeof key !== 'string' || key === '') {
    throw new StorageError('InvalidArgument', 'key must be a non-empty string');
  }
}

export function checkValue(value: string): void {
  if (typeof value !== 'string') {
    throw new StorageError('InvalidArgument', 'value must be a string (JSON text)');
  }
}

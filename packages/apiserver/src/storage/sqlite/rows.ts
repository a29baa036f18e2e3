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

/** etcd's --max-request-bytes default: a larger put is refused as `request is too large`. */
export const MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;
/** kube-apiserver's etcd client sends at most this (MaxCallSendMsgSize); gRPC refuses more. */
export const MAX_SEND_BYTES = 2 * 1024 * 1024;

/**
 * Refuses a write etcd would, with the message kube-apiserver passes on: the put's key and value
 * measured as etcd measures its request (within the few bytes of framing we do not model).
 */
export function checkRequestSize(key: string, value: string): void {
  const size = Buffer.byteLength(key) + Buffer.byteLength(value);
  if (size > MAX_SEND_BYTES)
    throw new StorageError(
      'RequestTooLarge',
      `rpc error: code = ResourceExhausted desc = trying to send message larger than max (${size} vs. ${MAX_SEND_BYTES})`,
    );
  if (size > MAX_REQUEST_BYTES)
    throw new StorageError('RequestTooLarge', 'etcdserver: request is too large');
}

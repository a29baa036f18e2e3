// Option and result types of KubeClient's verbs (query parameters: semantics §3.2).
import type { KubeObject, ListMeta } from '@agent-sandbox/kube-types';

/** Options every non-watch verb accepts. */
export interface RequestOptions {
  /** Aborts the request (KubeError `Aborted`); the client's `timeoutMs` applies as well. */
  signal?: AbortSignal;
}

export interface GetOptions extends RequestOptions {
  resourceVersion?: string;
}

export interface ListOptions extends RequestOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
}

export interface ListResult<T extends KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

export interface WriteOptions extends RequestOptions {
  fieldManager?: string;
  dryRun?: boolean;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}

/** The four patch types kube-apiserver accepts (JSON merge, JSON, strategic merge, apply; semantics §5), each with its content type. */
export type Patch =
  | { type: 'merge'; body: Record<string, unknown> }
  | { type: 'json'; ops: JsonPatchOperation[] }
  | { type: 'strategic'; body: Record<string, unknown> }
  /** Server-side apply; needs `fieldManager`. `body` must carry apiVersion, kind and name. */
  | { type: 'apply'; body: Record<string, unknown> };

export interface PatchOptions extends WriteOptions {
  /** Apply only: take ownership of conflicting fields. */
  force?: boolean;
  /** e.g. 'status' */
  subresource?: string;
}

export interface DeleteOptions extends RequestOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export interface WatchOptions {
  /** Start after this revision; unset or '0' first sends ADDED for every current object. */
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
  allowWatchBookmarks?: boolean;
  /** Server ends the stream cleanly after this long. */
  timeoutSeconds?: number;
  sendInitialEvents?: boolean;
  resourceVersionMatch?: 'NotOlderThan';
  /** Aborting ends the iteration without an error. */
  signal?: AbortSignal;
}

export interface BookmarkObject {
  kind?: string;
  apiVersion?: string;
  metadata: { resourceVersion: string; annotations?: Record<string, string> };
}

/**
 * A watch event. In-stream `ERROR` events are not yielded: the iterator throws an ApiError
 * carrying their Status (a 410 `Expired` satisfies `isGone`) and stops reading the stream.
 */
export type WatchEvent<T extends KubeObject> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T }
  | { type: 'BOOKMARK'; object: BookmarkObject };

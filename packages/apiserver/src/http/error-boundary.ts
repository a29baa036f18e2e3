// The request path's one error boundary: whatever a handler throws becomes the metav1.Status
// kube-apiserver would answer with, here and nowhere else. Handlers throw the package's errors as
// they are (ApiServerError and its subclasses); only call sites that add context the error lacks
// (the resource and name of a storage conflict, the kind of an undecodable body) translate.
import type { Status } from '@agent-sandbox/kube-types';
import {
  ApiError,
  ApiServerError,
  badRequest,
  expired,
  internalError,
  statusError,
  tooLargeResourceVersion,
} from '../errors.ts';
import { patchErrorToStatus, PatchError } from '../patch/errors.ts';
import { ProtobufError } from '../protobuf/errors.ts';
import { SelectorError } from '../selectors/errors.ts';
import { StorageError } from '../storage/errors.ts';
import { TableError } from '../table/errors.ts';

/** One request that failed with a server-side error (5xx), as the log line reports it. */
export interface RequestFailure {
  method: string;
  /** The URL path without the query (it may carry tokens in parameters). */
  path: string;
  status: number;
  /** The error's class and stable code, e.g. `StorageError/WriteFailed` or `TypeError`. */
  error: string;
  message: string;
  stack?: string;
}

/** Told about every 5xx a request ends in; never told about client errors (4xx). */
export type RequestFailureLog = (failure: RequestFailure) => void;

function storageStatus(err: StorageError): Status {
  const rev = err.revisions;
  switch (err.code) {
    case 'Compacted':
      return expired(`too old resource version: ${rev?.requested ?? 0} (${rev?.compact ?? 0})`)
        .status;
    case 'TooLargeResourceVersion':
      return tooLargeResourceVersion(String(rev?.requested ?? 0), rev?.current ?? 0).status;
    case 'RequestTooLarge':
      // kube passes etcd's error on as it is: 500 with etcd's message and no reason.
      return statusError(500, '', err.message).status;
    default:
      return internalError(err).status;
  }
}

/** The Status an error answers a request with. */
export function statusFor(err: unknown): Status {
  if (err instanceof ApiError) return err.status;
  if (err instanceof PatchError) return patchErrorToStatus(err);
  if (err instanceof SelectorError || err instanceof TableError || err instanceof ProtobufError)
    return badRequest(err.message).status;
  if (err instanceof StorageError) return storageStatus(err);
  return internalError(err).status;
}

/** `ClassName/code` for the log: the class alone for errors outside the package's root. */
function errorName(err: unknown): string {
  if (err instanceof ApiServerError) return `${err.name}/${err.code}`;
  if (err instanceof Error) return err.name;
  return typeof err;
}

/** The log entry for a request that failed with `status`. */
export function requestFailure(
  method: string,
  url: string,
  status: number,
  err: unknown,
): RequestFailure {
  let path: string;
  try {
    path = new URL(url, 'http://request.invalid').pathname;
  } catch {
    path = url.split('?')[0] ?? ''; // an unparsable target still gets logged
  }
  const failure: RequestFailure = {
    method,
    path,
    status,
    error: errorName(err),
    message: err instanceof Error ? err.message : String(err),
  };
  if (err instanceof Error && err.stack !== undefined) failure.stack = err.stack;
  return failure;
}

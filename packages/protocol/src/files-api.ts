// The sandboxd filesystem and runtime REST API (dataplane §4.3): routes, JSON shapes, error codes
// and the exact messages the SDKs may show to users. Status codes and texts are the wire contract.

/** Every REST route lives under this prefix; the file path is the decoded remainder. */
export const FILES_PREFIX = '/v1/files/';
export const HEALTH_PATH = '/v1/health';
export const METADATA_PATH = '/v1/metadata';

/** Default ports of the daemon (dataplane §4.1). */
export const SANDBOXD_REST_PORT = 8080;
export const SANDBOXD_GRPC_PORT = 9090;
export const SANDBOXD_ROOT_DIR = '/workspace';
export const SANDBOXD_METADATA_ENV_PREFIX = 'SANDBOX_';

/** The `code` of a REST error body; each maps to one HTTP status. */
export type FilesErrorCode =
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'INVALID_ARGUMENT'
  | 'CONFLICT'
  | 'INTERNAL'
  | 'UNAVAILABLE'
  | 'RESOURCE_EXHAUSTED';

export const FILES_ERROR_STATUS: Readonly<Record<FilesErrorCode, number>> = {
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  INVALID_ARGUMENT: 400,
  CONFLICT: 409,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  // Ours: upstream has no size limit; 413 is what HTTP names for it.
  RESOURCE_EXHAUSTED: 413,
};

/** `{"code": ..., "message": ...}` followed by a newline, as `application/json`. */
export interface FilesErrorBody {
  code: FilesErrorCode;
  message: string;
}

export const FilesMessage = {
  pathEscapes: 'path traversal outside sandbox root is forbidden',
  notFound: 'path does not exist within the sandbox',
  permissionDenied: 'permission denied',
  targetIsDirectory: 'target path is a directory',
  missingFilePart: 'multipart body is missing the required "file" part',
  notEmpty: 'directory is not empty; pass recursive=true to remove it',
  deleteRoot: 'cannot delete the sandbox root; pass recursive=true to clear its contents',
  shuttingDown: 'sandboxd is shutting down',
  badMode: (value: string) => `mode "${value}" must match ^0[0-7]{3}$`,
  badRecursive: (value: string) => `recursive "${value}" must be a boolean`,
  badMultipart: (detail: string) => `invalid multipart body: ${detail}`,
} as const;

export const MODE_PATTERN = /^0[0-7]{3}$/;

/** One entry of a directory listing; `modified_at` is RFC 3339 UTC, second precision. */
export interface FileEntry {
  name: string;
  size: number;
  type: 'file' | 'directory';
  modified_at: string;
  /** Four octal digits, e.g. `0644`. */
  mode: string;
}

export interface DirectoryListing {
  /** `/` + the request's path value. */
  path: string;
  entries: FileEntry[];
}

export interface HealthBody {
  status: 'ok';
  uptime_seconds: number;
}

export interface MetadataBody {
  env: Record<string, string>;
}

/** Names containing one of these (case-insensitively) never appear in /v1/metadata. */
export const SENSITIVE_ENV_MARKERS = [
  'TOKEN',
  'SECRET',
  'PASSWORD',
  'PASSWD',
  'CRED',
  'KEY',
  'AUTH',
  'BEARER',
  'PRIVATE',
  'CERT',
] as const;

/** Go's strconv.ParseBool syntax, used by `DELETE ?recursive=`. */
export function parseGoBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

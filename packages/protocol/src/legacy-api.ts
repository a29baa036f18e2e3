// The legacy in-sandbox runtime API on :8888 (python-runtime, dataplane §5, §13.4, §13.9), which
// every released SDK speaks through the router. Shapes and messages are the wire contract.

export const LEGACY_PORT = 8888;
export const LEGACY_DEFAULT_EXEC_TIMEOUT_SECONDS = 300;

export const LegacyRoute = {
  root: '/',
  execute: '/execute',
  upload: '/upload',
  download: '/download/',
  list: '/list/',
  exists: '/exists/',
} as const;

/** `POST /execute` body; `timeout_seconds` only from SDKs newer than 0.5 (§13.4). */
export interface LegacyExecuteRequest {
  command: string;
  timeout_seconds?: number;
}

/** `POST /execute` answer; always 200, failures included (exit_code 1, stderr says why). */
export interface ExecutionResult {
  stdout: string;
  stderr: string;
  exit_code: number;
  /** True when the runtime killed the command for exceeding its time limit. */
  timed_out: boolean;
}

/** One element of the bare array `GET /list/...` returns, in directory order. */
export interface LegacyFileEntry {
  name: string;
  size: number;
  type: 'file' | 'directory';
  /** POSIX seconds as a float. */
  mod_time: number;
}

export interface LegacyExistsResponse {
  path: string;
  exists: boolean;
}

export interface LegacyMessageBody {
  message: string;
}

export const LegacyMessage = {
  active: 'Sandbox Runtime is active.',
  accessDenied: 'Access denied',
  fileNotFound: 'File not found',
  notDirectory: 'Path is not a directory',
  uploaded: (filename: string) => `File '${filename}' uploaded successfully.`,
  uploadFailed: (err: string) => `File upload failed: ${err}`,
  listFailed: (err: string) => `List files failed: ${err}`,
  executeFailed: (err: string) => `Failed to execute command: ${err}`,
} as const;

/** A FastAPI validation error entry (`422 {"detail": [...]}`). */
export interface ValidationDetail {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
}

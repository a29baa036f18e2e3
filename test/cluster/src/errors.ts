/** What went wrong, stable across versions so callers (CI, the test helper) can branch on it. */
export type ClusterErrorCode =
  | 'INVALID_ARGUMENT'
  | 'TOOLCHAIN_MISSING'
  | 'BUILD_FAILED'
  | 'PORT_IN_USE'
  | 'START_FAILED'
  | 'NOT_RUNNING'
  | 'LOCKED';

/** The one error class of the harness; messages name the fix (STYLE.md error rules). */
export class ClusterError extends Error {
  readonly code: ClusterErrorCode;

  constructor(code: ClusterErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ClusterError';
    this.code = code;
  }
}

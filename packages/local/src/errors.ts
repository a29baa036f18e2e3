// The one error root of @agent-sandbox/local (STYLE error rule 1). Every message names what is
// wrong and the fix, so an entry point prints it as it is.

export type LocalErrorCode =
  /** The data dir cannot be created or written. */
  | 'DataDirUnusable'
  /** Another server holds the data dir's database. */
  | 'DataDirInUse'
  /** The database in the data dir cannot be opened (not ours, corrupt, newer schema). */
  | 'DataDirStorage'
  /** The CA, certificate, token or service-account key in the data dir is unusable. */
  | 'Credentials'
  /** The asked-for port is taken. */
  | 'PortInUse'
  /** A component of the embedded mode failed while running. */
  | 'ComponentFailed';

export class LocalError extends Error {
  readonly code: LocalErrorCode;

  constructor(code: LocalErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LocalError';
    this.code = code;
  }
}

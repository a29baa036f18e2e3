// Errors for the files an API server keeps in its data dir (certificates, keys, token). Each one
// names the file and the fix; the file is never rewritten behind the operator's back (ADR 0007).
import { ApiServerError } from '../errors.ts';

export type CredentialErrorCode =
  /** The file exists but cannot be parsed (not PEM, truncated, wrong type of object). */
  | 'Corrupt'
  /** The files parse but do not belong together (key ≠ certificate, leaf not issued by the CA). */
  | 'Mismatch'
  /** One file of a pair is missing while the other exists. */
  | 'Incomplete'
  /** The CA certificate is outside its validity period. */
  | 'Expired'
  /** The data dir or a file in it cannot be created or written. */
  | 'Unwritable';

export class CredentialError extends ApiServerError {
  declare readonly code: CredentialErrorCode;
  /** The file (or directory) the error is about. */
  readonly path: string;

  constructor(code: CredentialErrorCode, path: string, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.path = path;
  }
}

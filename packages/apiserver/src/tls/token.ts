// The bearer token of a single-user API server (semantics doc §11): random, created once and
// kept in the data dir with mode 0600, so kubeconfigs written earlier stay valid across restarts.
import { randomBytes } from 'node:crypto';
import { CredentialError } from './errors.ts';
import { PRIVATE_FILE_MODE, readIfExists, writeFileAtomic } from './files.ts';

/** RFC 6750 `b64token`, at least 128 bits' worth of characters. */
const TOKEN_PATTERN = /^[A-Za-z0-9\-._~+/]{22,}=*$/;

export interface EnsureTokenOptions {
  /** File holding the token (one line). */
  path: string;
  /** @default 32 random bytes from node:crypto */
  random?: () => Buffer;
}

/**
 * Returns the token stored at `path`, creating it (256 random bits, base64url) when absent.
 * @throws CredentialError `Corrupt` when the file holds something that is not a bearer token,
 * `Unwritable` when it cannot be created
 */
export function ensureToken(options: EnsureTokenOptions): string {
  const existing = readIfExists(options.path);
  if (existing !== undefined) {
    const token = existing.trim();
    if (!TOKEN_PATTERN.test(token))
      throw new CredentialError(
        'Corrupt',
        options.path,
        `${options.path} does not hold a bearer token (expected one line of at least 22 base64url characters); delete it to generate a new token (clients must then use the new kubeconfig)`,
      );
    return token;
  }
  const token = (options.random ?? (() => randomBytes(32)))().toString('base64url');
  writeFileAtomic(options.path, `${token}\n`, PRIVATE_FILE_MODE);
  return token;
}

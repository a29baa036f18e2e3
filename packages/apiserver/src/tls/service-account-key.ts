// The key that signs service account tokens (TokenRequest; kube's --service-account-signing-key-file),
// created once and kept in the data dir with mode 0600 so tokens issued before a restart still
// verify after it. An existing file is validated, never replaced (ADR 0007).
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { dirname } from 'node:path';
import { CredentialError } from './errors.ts';
import { ensureDir, PRIVATE_FILE_MODE, readIfExists, writeFileAtomic } from './files.ts';

export interface EnsureServiceAccountKeyOptions {
  /** PEM (PKCS #8) file holding the signing key; its directory is created with mode 0700. */
  path: string;
}

/**
 * Returns the ECDSA P-256 signing key stored at `path`, creating it when absent.
 * @throws CredentialError `Corrupt` when the file is not a P-256 private key, `Unwritable` when
 * it cannot be created
 */
export function ensureServiceAccountKey(options: EnsureServiceAccountKeyOptions): KeyObject {
  const { path } = options;
  const fix = `delete ${path} to generate a new key (service account tokens issued with the old key then stop working)`;
  const existing = readIfExists(path);
  if (existing !== undefined) {
    let key: KeyObject;
    try {
      key = createPrivateKey(existing);
    } catch (err: unknown) {
      throw new CredentialError('Corrupt', path, `${path} is not a PEM private key; ${fix}`, {
        cause: err,
      });
    }
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
      throw new CredentialError(
        'Corrupt',
        path,
        `${path} holds a ${key.asymmetricKeyType ?? 'unknown'} key, expected an ECDSA P-256 key; ${fix}`,
      );
    return key;
  }
  ensureDir(dirname(path));
  const { privateKey } = generateServiceAccountKey();
  writeFileAtomic(
    path,
    privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    PRIVATE_FILE_MODE,
  );
  return privateKey;
}

/** A fresh in-memory signing key (servers without a data dir: tests). */
export function generateServiceAccountKey(): { privateKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' });
}

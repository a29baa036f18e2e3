import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CredentialError } from './errors.ts';
import { ensureServiceAccountKey } from './service-account-key.ts';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'apiserver-sa-key-'));
}

const der = (k: ReturnType<typeof ensureServiceAccountKey>) =>
  k.export({ type: 'pkcs8', format: 'der' }).toString('base64');

describe('ensureServiceAccountKey', () => {
  it('creates a P-256 key once (mode 0600, directory created) and reuses it', () => {
    const path = join(tempDir(), 'pki', 'sa.key');
    const key = ensureServiceAccountKey({ path });
    expect(key.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(der(ensureServiceAccountKey({ path }))).toBe(der(key));
    expect(der(ensureServiceAccountKey({ path: join(tempDir(), 'sa.key') }))).not.toBe(der(key));
  });

  it('refuses a file that is not a private key and leaves it untouched', () => {
    const path = join(tempDir(), 'sa.key');
    writeFileSync(path, 'garbage\n');
    expect(() => ensureServiceAccountKey({ path })).toThrow(CredentialError);
    expect(() => ensureServiceAccountKey({ path })).toThrow(
      `${path} is not a PEM private key; delete ${path}`,
    );
    expect(readFileSync(path, 'utf8')).toBe('garbage\n');
  });

  it('refuses a key of another type, naming what it found', () => {
    const path = join(tempDir(), 'sa.key');
    const { privateKey } = generateKeyPairSync('ed25519');
    writeFileSync(path, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    expect(() => ensureServiceAccountKey({ path })).toThrow(
      `${path} holds a ed25519 key, expected an ECDSA P-256 key`,
    );
  });
});

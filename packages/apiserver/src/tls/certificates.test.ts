import { KeyObject, webcrypto, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  certificatePaths,
  ensureCertificates,
  SERVING_DNS_NAMES,
  SERVING_IP_ADDRESSES,
} from './certificates.ts';
import { CredentialError } from './errors.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

function tempDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'apiserver-tls-')), 'pki');
}

function snapshot(dir: string): Record<string, string> {
  const paths = certificatePaths(dir);
  return Object.fromEntries(Object.values(paths).map((p) => [p, readFileSync(p, 'utf8')] as const));
}

async function expectCredentialError(
  promise: Promise<unknown>,
  code: CredentialError['code'],
  path: string,
): Promise<CredentialError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CredentialError);
  const error = err as CredentialError;
  expect(error.code).toBe(code);
  expect(error.path).toBe(path);
  expect(error.message).toContain(path);
  expect(error.message).toMatch(/delete/);
  return error;
}

describe('ensureCertificates', () => {
  it('creates a CA and a loopback serving certificate with restrictive modes', async () => {
    const dir = tempDir();
    const result = await ensureCertificates({ dir });
    const paths = certificatePaths(dir);
    expect(result.written.sort()).toEqual(Object.values(paths).sort());
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(paths.caKey).mode & 0o777).toBe(0o600);
    expect(statSync(paths.key).mode & 0o777).toBe(0o600);
    expect(statSync(paths.caCert).mode & 0o777).toBe(0o644);

    const ca = new X509Certificate(result.caCert);
    const leaf = new X509Certificate(result.cert);
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    for (const name of SERVING_DNS_NAMES) expect(leaf.checkHost(name)).toBe(name);
    for (const ip of SERVING_IP_ADDRESSES) expect(leaf.checkIP(ip)).toBe(ip);
    expect(leaf.checkHost('example.com')).toBeUndefined();
    expect(leaf.keyUsage).toContain('1.3.6.1.5.5.7.3.1'); // serverAuth
    expect(result.cert).toBe(readFileSync(paths.cert, 'utf8'));
    expect(result.key).toBe(readFileSync(paths.key, 'utf8'));
  });

  it('reuses the files on later starts', async () => {
    const dir = tempDir();
    const first = await ensureCertificates({ dir });
    const before = snapshot(dir);
    const second = await ensureCertificates({ dir });
    expect(second.written).toEqual([]);
    expect(second).toEqual({ ...first, written: [] });
    expect(snapshot(dir)).toEqual(before);
  });

  it('issues a serving certificate from an existing CA when the pair is absent', async () => {
    const dir = tempDir();
    const first = await ensureCertificates({ dir });
    const paths = certificatePaths(dir);
    unlinkSync(paths.cert);
    unlinkSync(paths.key);
    const second = await ensureCertificates({ dir });
    expect(second.written.sort()).toEqual([paths.cert, paths.key].sort());
    expect(second.caCert).toBe(first.caCert);
    expect(second.cert).not.toBe(first.cert);
  });

  it('reissues an expired serving certificate from the same CA', async () => {
    const dir = tempDir();
    const t0 = Date.now();
    const first = await ensureCertificates({ dir, now: () => new Date(t0) });
    const later = await ensureCertificates({ dir, now: () => new Date(t0 + 400 * DAY_MS) });
    const paths = certificatePaths(dir);
    expect(later.written.sort()).toEqual([paths.cert, paths.key].sort());
    expect(later.caCert).toBe(first.caCert);
    const leaf = new X509Certificate(later.cert);
    expect(Date.parse(leaf.validTo)).toBeGreaterThan(t0 + 700 * DAY_MS);
  });

  it('refuses an expired CA', async () => {
    const dir = tempDir();
    const t0 = Date.now();
    await ensureCertificates({ dir, now: () => new Date(t0), caValidityDays: 1 });
    const before = snapshot(dir);
    await expectCredentialError(
      ensureCertificates({ dir, now: () => new Date(t0 + 2 * DAY_MS) }),
      'Expired',
      certificatePaths(dir).caCert,
    );
    expect(snapshot(dir)).toEqual(before);
  });

  it('refuses a corrupt certificate or key and leaves it untouched', async () => {
    const dir = tempDir();
    await ensureCertificates({ dir });
    const paths = certificatePaths(dir);
    for (const path of [paths.caCert, paths.caKey, paths.cert, paths.key]) {
      const original = readFileSync(path, 'utf8');
      writeFileSync(path, original.slice(0, 60));
      await expectCredentialError(ensureCertificates({ dir }), 'Corrupt', path);
      expect(readFileSync(path, 'utf8')).toBe(original.slice(0, 60));
      writeFileSync(path, original);
    }
  });

  it('refuses a key that does not belong to its certificate', async () => {
    const dir = tempDir();
    const other = tempDir();
    await ensureCertificates({ dir });
    await ensureCertificates({ dir: other });
    const paths = certificatePaths(dir);
    const foreignKey = readFileSync(certificatePaths(other).key, 'utf8');
    writeFileSync(paths.key, foreignKey);
    const err = await expectCredentialError(ensureCertificates({ dir }), 'Mismatch', paths.key);
    expect(err.message).toContain(`is not the private key of ${paths.cert}`);
    expect(readFileSync(paths.key, 'utf8')).toBe(foreignKey);
  });

  it('refuses a serving certificate issued by another CA', async () => {
    const dir = tempDir();
    const other = tempDir();
    await ensureCertificates({ dir });
    await ensureCertificates({ dir: other });
    const paths = certificatePaths(dir);
    const otherPaths = certificatePaths(other);
    writeFileSync(paths.cert, readFileSync(otherPaths.cert));
    writeFileSync(paths.key, readFileSync(otherPaths.key));
    const err = await expectCredentialError(ensureCertificates({ dir }), 'Mismatch', paths.cert);
    expect(err.message).toContain(`was not issued by ${paths.caCert}`);
  });

  it('refuses to issue a leaf from a CA key that is not ECDSA P-256', async () => {
    const dir = tempDir();
    const paths = certificatePaths(dir);
    await import('reflect-metadata');
    const x509 = await import('@peculiar/x509');
    const algorithm = {
      name: 'RSASSA-PKCS1-v1_5',
      hash: 'SHA-256',
      publicExponent: new Uint8Array([1, 0, 1]),
      modulusLength: 1024,
    };
    const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
    const ca = await x509.X509CertificateGenerator.createSelfSigned(
      {
        name: 'CN=someone-else-ca',
        keys,
        signingAlgorithm: algorithm,
        extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
      },
      webcrypto,
    );
    mkdirSync(dir, { recursive: true });
    writeFileSync(paths.caCert, ca.toString('pem'));
    writeFileSync(
      paths.caKey,
      KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }),
    );
    const err = await expectCredentialError(ensureCertificates({ dir }), 'Mismatch', paths.caKey);
    expect(err.message).toContain(`${paths.caKey} is a rsa key; issuing ${paths.cert} needs`);
  });

  it('refuses half a pair and a leaf without its CA', async () => {
    const dir = tempDir();
    await ensureCertificates({ dir });
    const paths = certificatePaths(dir);
    const key = readFileSync(paths.key, 'utf8');
    unlinkSync(paths.key);
    await expectCredentialError(ensureCertificates({ dir }), 'Incomplete', paths.key);
    writeFileSync(paths.key, key);
    unlinkSync(paths.caCert);
    unlinkSync(paths.caKey);
    await expectCredentialError(ensureCertificates({ dir }), 'Incomplete', paths.caCert);
  });
});

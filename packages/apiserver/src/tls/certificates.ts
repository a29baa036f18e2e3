// The API server's serving certificates: a private CA and a leaf for the loopback names, created
// on first start and reused afterwards (ADR 0007). Existing files are validated, never replaced:
// a corrupt or mismatched pair is an error naming the file and the fix.
import { createPrivateKey, X509Certificate, type KeyObject as KeyObjectType } from 'node:crypto';
import { join } from 'node:path';
import { CredentialError } from './errors.ts';
import {
  ensureDir,
  PRIVATE_FILE_MODE,
  PUBLIC_FILE_MODE,
  readIfExists,
  writeFileAtomic,
} from './files.ts';
import { createCa, issueServingCertificate } from './issue.ts';

/** DNS names in the serving certificate: loopback plus the in-cluster service names clients use. */
export const SERVING_DNS_NAMES: readonly string[] = [
  'localhost',
  'kubernetes',
  'kubernetes.default',
  'kubernetes.default.svc',
  'kubernetes.default.svc.cluster.local',
];
/** IP addresses in the serving certificate. */
export const SERVING_IP_ADDRESSES: readonly string[] = ['127.0.0.1', '::1'];

export interface CertificatePaths {
  caCert: string;
  caKey: string;
  cert: string;
  key: string;
}

/** Where the certificates live inside `dir` (kubeadm's file names). */
export function certificatePaths(dir: string): CertificatePaths {
  return {
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    cert: join(dir, 'apiserver.crt'),
    key: join(dir, 'apiserver.key'),
  };
}

export interface EnsureCertificatesOptions {
  /** Directory holding ca.crt, ca.key, apiserver.crt and apiserver.key; created with mode 0700. */
  dir: string;
  /** @default () => new Date() */
  now?: () => Date;
  /** Validity of a new CA. @default 3650 */
  caValidityDays?: number;
  /** Validity of a new serving certificate; an expired one is reissued from the CA. @default 365 */
  servingValidityDays?: number;
}

export interface ServingCertificates {
  /** PEM CA certificate: what clients trust (kubeconfig `certificate-authority-data`). */
  caCert: string;
  /** PEM serving certificate for `tls.createServer`. */
  cert: string;
  /** PEM (PKCS #8) private key of the serving certificate. */
  key: string;
  /** Files this call wrote: all four on first start, the leaf pair when it was reissued. */
  written: string[];
}

/**
 * Loads the CA and serving certificate from `dir`, creating whatever is absent. An existing
 * file is never overwritten, except a serving certificate that has expired (reissued from the
 * same CA, so kubeconfigs keep working).
 * @throws CredentialError `Corrupt`, `Mismatch`, `Incomplete`, `Expired`, `Unwritable`; every
 * message names the file and says to delete the directory's files to regenerate them.
 */
export async function ensureCertificates(
  options: EnsureCertificatesOptions,
): Promise<ServingCertificates> {
  const now = (options.now ?? (() => new Date()))();
  const paths = certificatePaths(options.dir);
  ensureDir(options.dir);
  const text = {
    caCert: readIfExists(paths.caCert),
    caKey: readIfExists(paths.caKey),
    cert: readIfExists(paths.cert),
    key: readIfExists(paths.key),
  };
  const written: string[] = [];
  const fix = `delete the files in ${options.dir} to generate a new CA (clients must then use the new kubeconfig)`;

  let ca: LoadedPair;
  if (text.caCert === undefined && text.caKey === undefined) {
    if (text.cert !== undefined || text.key !== undefined) {
      const present = text.cert !== undefined ? paths.cert : paths.key;
      throw new CredentialError(
        'Incomplete',
        paths.caCert,
        `${paths.caCert} and ${paths.caKey} are missing but ${present} exists, so the CA that issued it is gone; ${fix}`,
      );
    }
    const created = await createCa({
      commonName: `agent-sandbox-ca@${Math.floor(now.getTime() / 1000)}`,
      now,
      validityDays: options.caValidityDays ?? 3650,
    });
    writeFileAtomic(paths.caKey, created.keyPem, PRIVATE_FILE_MODE);
    writeFileAtomic(paths.caCert, created.certPem, PUBLIC_FILE_MODE);
    written.push(paths.caCert, paths.caKey);
    ca = loadPair(created.certPem, created.keyPem, paths.caCert, paths.caKey, fix);
  } else {
    ca = loadPair(text.caCert, text.caKey, paths.caCert, paths.caKey, fix);
    if (!ca.cert.ca)
      throw new CredentialError(
        'Mismatch',
        paths.caCert,
        `${paths.caCert} is not a CA certificate; ${fix}`,
      );
    if (!isValidAt(ca.cert, now))
      throw new CredentialError(
        'Expired',
        paths.caCert,
        `${paths.caCert} is valid only from ${ca.cert.validFrom} to ${ca.cert.validTo}; ${fix}`,
      );
  }

  let leaf: { certPem: string; keyPem: string } | undefined;
  if (text.cert === undefined && text.key === undefined) {
    leaf = undefined;
  } else {
    const loaded = loadPair(text.cert, text.key, paths.cert, paths.key, fix);
    checkIssuedBy(loaded.cert, ca.cert, paths.cert, paths.caCert, fix);
    checkNames(loaded.cert, paths.cert, fix);
    if (isValidAt(loaded.cert, now)) leaf = { certPem: loaded.certPem, keyPem: loaded.keyPem };
  }
  if (leaf === undefined) {
    // We issue with ECDSA P-256 only; a CA brought from elsewhere can still serve a leaf it made.
    const { asymmetricKeyType, asymmetricKeyDetails } = ca.key;
    if (asymmetricKeyType !== 'ec' || asymmetricKeyDetails?.namedCurve !== 'prime256v1')
      throw new CredentialError(
        'Mismatch',
        paths.caKey,
        `${paths.caKey} is a ${asymmetricKeyType ?? 'unknown'} key; issuing ${paths.cert} needs an ECDSA P-256 CA key; provide ${paths.cert} and ${paths.key} too, or ${fix}`,
      );
    leaf = await issueServingCertificate({
      ca: { certPem: ca.certPem, key: ca.key },
      commonName: 'agent-sandbox-apiserver',
      hosts: [...SERVING_DNS_NAMES, ...SERVING_IP_ADDRESSES],
      now,
      validityDays: options.servingValidityDays ?? 365,
    });
    writeFileAtomic(paths.key, leaf.keyPem, PRIVATE_FILE_MODE);
    writeFileAtomic(paths.cert, leaf.certPem, PUBLIC_FILE_MODE);
    written.push(paths.cert, paths.key);
  }
  return { caCert: ca.certPem, cert: leaf.certPem, key: leaf.keyPem, written };
}

interface LoadedPair {
  cert: X509Certificate;
  key: KeyObjectType;
  certPem: string;
  keyPem: string;
}

function loadPair(
  certPem: string | undefined,
  keyPem: string | undefined,
  certPath: string,
  keyPath: string,
  fix: string,
): LoadedPair {
  if (certPem === undefined)
    throw new CredentialError(
      'Incomplete',
      certPath,
      `${certPath} is missing but ${keyPath} exists; ${fix}`,
    );
  if (keyPem === undefined)
    throw new CredentialError(
      'Incomplete',
      keyPath,
      `${keyPath} is missing but ${certPath} exists; ${fix}`,
    );
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (err: unknown) {
    throw new CredentialError('Corrupt', certPath, `${certPath} is not a PEM certificate; ${fix}`, {
      cause: err,
    });
  }
  let key: KeyObjectType;
  try {
    key = createPrivateKey(keyPem);
  } catch (err: unknown) {
    throw new CredentialError('Corrupt', keyPath, `${keyPath} is not a PEM private key; ${fix}`, {
      cause: err,
    });
  }
  if (!cert.checkPrivateKey(key))
    throw new CredentialError(
      'Mismatch',
      keyPath,
      `${keyPath} is not the private key of ${certPath}; ${fix}`,
    );
  return { cert, key, certPem, keyPem };
}

function checkIssuedBy(
  leaf: X509Certificate,
  ca: X509Certificate,
  leafPath: string,
  caPath: string,
  fix: string,
): void {
  if (!leaf.checkIssued(ca) || !leaf.verify(ca.publicKey))
    throw new CredentialError(
      'Mismatch',
      leafPath,
      `${leafPath} was not issued by ${caPath}; ${fix}`,
    );
}

function checkNames(leaf: X509Certificate, path: string, fix: string): void {
  const missing = [
    ...SERVING_DNS_NAMES.filter((n) => leaf.checkHost(n, { wildcards: false }) === undefined),
    ...SERVING_IP_ADDRESSES.filter((ip) => leaf.checkIP(ip) === undefined),
  ];
  if (missing.length > 0)
    throw new CredentialError(
      'Mismatch',
      path,
      `${path} does not cover ${missing.join(', ')}; ${fix}`,
    );
}

function isValidAt(cert: X509Certificate, now: Date): boolean {
  return Date.parse(cert.validFrom) <= now.getTime() && now.getTime() < Date.parse(cert.validTo);
}

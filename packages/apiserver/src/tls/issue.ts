// The one place that issues certificates: a private ECDSA P-256 CA and serving certificates
// signed by it. The API server's pki/ (certificates.ts) and the controller's conversion webhook
// (packages/cli, Secret agent-sandbox-webhook-certs) both issue through here, with the profile
// client-go's self-signed certificates have: backdated an hour for clock skew; the CA signs
// certificates and CRLs; a leaf is for serverAuth with digitalSignature and keyEncipherment.
import { KeyObject, webcrypto, type KeyObject as KeyObjectType } from 'node:crypto';
import { isIP } from 'node:net';

type X509 = typeof import('@peculiar/x509');

/**
 * Loads @peculiar/x509 only when a certificate must be made, so a restart that reuses its files
 * does not pay for it (startup time, issue 4). Its 2.x line resolves algorithms through tsyringe,
 * which needs the Reflect metadata polyfill loaded first (the library's README; ADR 0007).
 */
async function loadX509(): Promise<X509> {
  await import('reflect-metadata');
  return import('@peculiar/x509');
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** ECDSA P-256 with SHA-256: small, fast to generate, accepted by Go's crypto/tls and Node's. */
const KEY_ALGORITHM: webcrypto.EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
const SIGNING_ALGORITHM: webcrypto.EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };

/** A PEM certificate and its PEM (PKCS #8) private key. */
export interface PemPair {
  certPem: string;
  keyPem: string;
}

export interface CaRequest {
  commonName: string;
  now: Date;
  validityDays: number;
}

/** A new self-signed CA. */
export async function createCa(request: CaRequest): Promise<PemPair> {
  const x509 = await loadX509();
  const keys = await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      name: `CN=${request.commonName}`,
      keys,
      signingAlgorithm: SIGNING_ALGORITHM,
      ...validity(request.now, request.validityDays),
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign |
            x509.KeyUsageFlags.cRLSign |
            x509.KeyUsageFlags.digitalSignature,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, webcrypto),
      ],
    },
    webcrypto,
  );
  return { certPem: cert.toString('pem') + '\n', keyPem: pkcs8Pem(keys.privateKey) };
}

export interface ServingCertificateRequest {
  /** The issuing CA; its key must be ECDSA P-256. */
  ca: { certPem: string; key: KeyObjectType };
  commonName: string;
  /** Subject alternative names: DNS names and IP addresses (told apart by form). */
  hosts: readonly string[];
  now: Date;
  validityDays: number;
}

/** A new serving certificate signed by `ca`. */
export async function issueServingCertificate(
  request: ServingCertificateRequest,
): Promise<PemPair> {
  const x509 = await loadX509();
  const keys = await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
  const caCert = new x509.X509Certificate(request.ca.certPem);
  const signingKey = await webcrypto.subtle.importKey(
    'pkcs8',
    request.ca.key.export({ type: 'pkcs8', format: 'der' }),
    KEY_ALGORITHM,
    false,
    ['sign'],
  );
  const cert = await x509.X509CertificateGenerator.create(
    {
      subject: `CN=${request.commonName}`,
      issuer: caCert.subject,
      publicKey: keys.publicKey,
      signingKey,
      signingAlgorithm: SIGNING_ALGORITHM,
      ...validity(request.now, request.validityDays),
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
          true,
        ),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension([
          ...request.hosts.filter((h) => !isIP(h)).map((value) => ({ type: x509.DNS, value })),
          ...request.hosts.filter((h) => isIP(h)).map((value) => ({ type: x509.IP, value })),
        ]),
        await x509.AuthorityKeyIdentifierExtension.create(caCert, false, webcrypto),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, webcrypto),
      ],
    },
    webcrypto,
  );
  return { certPem: cert.toString('pem') + '\n', keyPem: pkcs8Pem(keys.privateKey) };
}

/** Backdated an hour for clock skew, as client-go's self-signed certificates are. */
function validity(now: Date, days: number): { notBefore: Date; notAfter: Date } {
  return {
    notBefore: new Date(now.getTime() - 60 * 60 * 1000),
    notAfter: new Date(now.getTime() + days * DAY_MS),
  };
}

function pkcs8Pem(key: webcrypto.CryptoKey): string {
  return KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }).toString();
}

// The conversion webhook's serving certificates (spec §17, --manage-webhook-certs): reuse the
// Secret agent-sandbox-webhook-certs, else generate an ECDSA P-256 CA and a serving certificate
// for the webhook Service's names and store them in that Secret (the first replica to create it
// wins; the others load the winner's); write tls.crt/tls.key (0600) for the HTTPS server.
// Unmanaged certificates are read from --webhook-cert-dir. @peculiar/x509 as in the API server
// (ADR 0007, ADR 0015).
import { createCa, issueServingCertificate } from '@agent-sandbox/apiserver';
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { KubeClient, SECRETS, isAlreadyExists, isNotFound } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';

/** Upstream's Secret name (spec §17). */
export const WEBHOOK_CERTS_SECRET = 'agent-sandbox-webhook-certs';
const CA_COMMON_NAME = 'agent-sandbox-conversion-webhook-ca';

export type WebhookErrorCode =
  'InvalidSecret' | 'MissingFile' | 'NamespaceNotFound' | 'ListenFailed';

/** A webhook problem the operator must fix; the message names the Secret key, file or port. */
export class WebhookError extends Error {
  readonly code: WebhookErrorCode;
  constructor(code: WebhookErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WebhookError';
    this.code = code;
  }
}

export interface WebhookCertificates {
  /** PEM CA that kube-apiserver trusts (the CRDs' caBundle); absent for unmanaged certificates. */
  caCert?: string;
  cert: string;
  key: string;
}

export interface WebhookNames {
  serviceName: string;
  namespace: string;
  clusterDomain: string;
  /** Extra SANs (agent-sandbox extension --webhook-url-host): IPs or DNS names. */
  extraHosts?: readonly string[];
}

/** The serving certificate's DNS names (spec §17), the first being the subject CN. */
export function webhookDnsNames(n: WebhookNames): string[] {
  const svc = `${n.serviceName}.${n.namespace}.svc`;
  return [svc, n.serviceName, `${n.serviceName}.${n.namespace}`, `${svc}.${n.clusterDomain}`];
}

/**
 * A new CA (CN agent-sandbox-conversion-webhook-ca) and a serving certificate for the webhook
 * Service's names, both ECDSA P-256, valid a year and backdated an hour for clock skew (issued
 * by @agent-sandbox/apiserver's createCa / issueServingCertificate, the one copy).
 */
export async function generateWebhookCertificates(
  names: WebhookNames,
  now: Date = new Date(),
): Promise<Required<WebhookCertificates>> {
  const ca = await createCa({ commonName: CA_COMMON_NAME, now, validityDays: 365 });
  const dns = webhookDnsNames(names);
  const leaf = await issueServingCertificate({
    ca: { certPem: ca.certPem, key: createPrivateKey(ca.keyPem) },
    commonName: dns[0] ?? names.serviceName,
    hosts: [...dns, ...(names.extraHosts ?? [])],
    now,
    validityDays: 365,
  });
  return { caCert: ca.certPem, cert: leaf.certPem, key: leaf.keyPem };
}

/**
 * Checks a certificate set: PEM that parses, a key that matches, issued by the CA, valid now and
 * covering `hosts`. `where(field)` names the Secret key or file in messages.
 */
export function checkWebhookCertificates(
  certs: WebhookCertificates,
  hosts: readonly string[],
  where: (field: 'ca.crt' | 'tls.crt' | 'tls.key') => string,
  fix: string,
  now: Date = new Date(),
): void {
  const bad = (field: 'ca.crt' | 'tls.crt' | 'tls.key', why: string, cause?: unknown): never => {
    throw new WebhookError('InvalidSecret', `${where(field)} ${why}; ${fix}`, { cause });
  };
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(certs.cert);
  } catch (err: unknown) {
    return bad('tls.crt', 'is not a PEM certificate', err);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(certs.key);
  } catch (err: unknown) {
    return bad('tls.key', 'is not a PEM private key', err);
  }
  if (!leaf.checkPrivateKey(key)) bad('tls.key', 'is not the private key of tls.crt');
  if (certs.caCert !== undefined) {
    let ca: X509Certificate;
    try {
      ca = new X509Certificate(certs.caCert);
    } catch (err: unknown) {
      return bad('ca.crt', 'is not a PEM certificate', err);
    }
    if (!leaf.checkIssued(ca) || !leaf.verify(ca.publicKey))
      bad('tls.crt', 'was not issued by ca.crt');
  }
  const t = now.getTime();
  if (t < Date.parse(leaf.validFrom) || t >= Date.parse(leaf.validTo))
    bad('tls.crt', `is valid only from ${leaf.validFrom} to ${leaf.validTo}`);
  const missing = hosts.filter((h) =>
    isIP(h) ? leaf.checkIP(h) === undefined : leaf.checkHost(h, { wildcards: false }) === undefined,
  );
  if (missing.length) bad('tls.crt', `does not cover ${missing.join(', ')}`);
}

interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string | undefined): string =>
  s === undefined ? '' : Buffer.from(s, 'base64').toString('utf8');

function fromSecret(secret: Secret): Required<WebhookCertificates> {
  return {
    caCert: unb64(secret.data?.['ca.crt']),
    cert: unb64(secret.data?.['tls.crt']),
    key: unb64(secret.data?.['tls.key']),
  };
}

export interface EnsureWebhookCertificatesOptions extends WebhookNames {
  client: KubeClient;
  /** Directory the serving pair is written to (created; files 0600). */
  certDir: string;
  certName: string;
  keyName: string;
  now?: Date;
}

/**
 * Reuses or creates the webhook Secret and writes the serving pair into `certDir`.
 * @returns the certificates and whether this call created the Secret
 * @throws WebhookError when the Secret holds unusable certificates (the message names the
 *   key and says to delete the Secret) or its namespace does not exist
 */
export async function ensureWebhookCertificates(
  options: EnsureWebhookCertificatesOptions,
): Promise<{ certs: Required<WebhookCertificates>; created: boolean }> {
  const { client, namespace } = options;
  const hosts = [...webhookDnsNames(options), ...(options.extraHosts ?? [])];
  const fix = `delete Secret ${namespace}/${WEBHOOK_CERTS_SECRET} to have new certificates generated`;
  const check = (certs: Required<WebhookCertificates>): void =>
    checkWebhookCertificates(
      certs,
      hosts,
      (k) => `Secret ${namespace}/${WEBHOOK_CERTS_SECRET} key ${k}`,
      fix,
      options.now,
    );
  let certs: Required<WebhookCertificates>;
  let created = false;
  const existing = await client
    .get<Secret>(SECRETS, namespace, WEBHOOK_CERTS_SECRET)
    .catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
  if (existing) {
    certs = fromSecret(existing);
    check(certs);
  } else {
    certs = await generateWebhookCertificates(options, options.now);
    const secret: Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: WEBHOOK_CERTS_SECRET, namespace },
      type: 'kubernetes.io/tls',
      data: { 'ca.crt': b64(certs.caCert), 'tls.crt': b64(certs.cert), 'tls.key': b64(certs.key) },
    };
    try {
      await client.create(SECRETS, secret);
      created = true;
    } catch (err: unknown) {
      if (isNotFound(err))
        throw new WebhookError(
          'NamespaceNotFound',
          `cannot create Secret ${namespace}/${WEBHOOK_CERTS_SECRET}: namespace ${namespace} does not exist; create it, pass --webhook-namespace, or run without the webhook (--enable-webhook=false)`,
          { cause: err },
        );
      if (!isAlreadyExists(err)) throw err;
      // Another replica won the race: serve its certificates so the CRDs' caBundle matches.
      certs = fromSecret(await client.get<Secret>(SECRETS, namespace, WEBHOOK_CERTS_SECRET));
      check(certs);
    }
  }
  mkdirSync(options.certDir, { recursive: true, mode: 0o700 });
  for (const [name, text] of [
    [options.certName, certs.cert],
    [options.keyName, certs.key],
  ] as const) {
    const path = join(options.certDir, name);
    writeFileSync(path, text, { mode: 0o600 });
    chmodSync(path, 0o600); // an existing file keeps its mode on write
  }
  return { certs, created };
}

/**
 * Unmanaged certificates (--manage-webhook-certs=false): `certName`/`keyName` in `certDir`; with
 * the default names a single combined `cert.pem` (certificate and key) is accepted as both.
 * @throws WebhookError naming the missing or unusable file
 */
export function loadWebhookCertificateFiles(options: {
  certDir: string;
  certName: string;
  keyName: string;
}): WebhookCertificates {
  const read = (name: string): string | undefined => {
    try {
      return readFileSync(join(options.certDir, name), 'utf8');
    } catch (err: unknown) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  };
  const defaults = options.certName === 'tls.crt' && options.keyName === 'tls.key';
  let cert = read(options.certName);
  let key = read(options.keyName);
  let files = { cert: options.certName, key: options.keyName };
  if (cert === undefined && key === undefined && defaults) {
    const combined = read('cert.pem');
    if (combined !== undefined) {
      cert = combined;
      key = combined;
      files = { cert: 'cert.pem', key: 'cert.pem' };
    }
  }
  for (const [name, text] of [
    [options.certName, cert],
    [options.keyName, key],
  ] as const)
    if (text === undefined)
      throw new WebhookError(
        'MissingFile',
        `${join(options.certDir, name)} does not exist: put the webhook's serving ${name === options.keyName ? 'key' : 'certificate'} there, pass --webhook-cert-dir/--webhook-cert-name/--webhook-key-name, or use --manage-webhook-certs=true`,
      );
  const certs = { cert: cert as string, key: key as string };
  checkWebhookCertificates(
    certs,
    [],
    (f) => join(options.certDir, f === 'tls.key' ? files.key : files.cert),
    'replace the file with a valid PEM certificate and key, or use --manage-webhook-certs=true',
  );
  return certs;
}

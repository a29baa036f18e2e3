// Webhook certificates (spec §17): what we generate, and the checks that name the bad Secret key
// or file and the fix.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  WebhookError,
  checkWebhookCertificates,
  generateWebhookCertificates,
  loadWebhookCertificateFiles,
  webhookDnsNames,
} from './controller-webhook-certs.ts';

const NAMES = {
  serviceName: 'agent-sandbox-webhook-service',
  namespace: 'agent-sandbox-system',
  clusterDomain: 'cluster.local',
  extraHosts: ['127.0.0.1'],
};
const NOW = new Date('2026-11-30T12:00:00Z');
let certs: Awaited<ReturnType<typeof generateWebhookCertificates>>;
let other: Awaited<ReturnType<typeof generateWebhookCertificates>>;

beforeAll(async () => {
  certs = await generateWebhookCertificates(NAMES, NOW);
  other = await generateWebhookCertificates({ ...NAMES, extraHosts: [] }, NOW);
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'webhook-certs-'));
  dirs.push(d);
  return d;
}

describe('generateWebhookCertificates', () => {
  it('issues an ECDSA P-256 serving certificate for the Service names from a one-year CA', () => {
    const ca = new X509Certificate(certs.caCert);
    const leaf = new X509Certificate(certs.cert);
    expect(ca.subject).toBe('CN=agent-sandbox-conversion-webhook-ca');
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.subject).toBe('CN=agent-sandbox-webhook-service.agent-sandbox-system.svc');
    expect(leaf.checkIssued(ca) && leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkPrivateKey(createPrivateKey(certs.key))).toBe(true);
    expect(createPrivateKey(certs.key).asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(Date.parse(leaf.validFrom)).toBe(NOW.getTime() - 60 * 60 * 1000);
    expect(Date.parse(leaf.validTo) - NOW.getTime()).toBe(365 * 24 * 60 * 60 * 1000);
    expect(leaf.keyUsage).toContain('1.3.6.1.5.5.7.3.1'); // serverAuth
    for (const host of webhookDnsNames(NAMES))
      expect(leaf.checkHost(host, { wildcards: false })).toBe(host);
    expect(webhookDnsNames(NAMES)).toEqual([
      'agent-sandbox-webhook-service.agent-sandbox-system.svc',
      'agent-sandbox-webhook-service',
      'agent-sandbox-webhook-service.agent-sandbox-system',
      'agent-sandbox-webhook-service.agent-sandbox-system.svc.cluster.local',
    ]);
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(new X509Certificate(other.cert).checkIP('127.0.0.1')).toBeUndefined();
  });
});

describe('checkWebhookCertificates', () => {
  const where = (k: string): string => `Secret ns/s key ${k}`;
  const fix = 'delete the Secret';
  const hosts = webhookDnsNames(NAMES);

  it('accepts a generated set', () => {
    expect(() =>
      checkWebhookCertificates(certs, [...hosts, '127.0.0.1'], where, fix, NOW),
    ).not.toThrow();
  });

  it.each([
    [
      'garbage tls.crt',
      () => ({ ...certs, cert: 'nope' }),
      /^Secret ns\/s key tls\.crt is not a PEM certificate; delete the Secret$/,
    ],
    ['garbage tls.key', () => ({ ...certs, key: 'nope' }), /key tls\.key is not a PEM private key/],
    [
      'garbage ca.crt',
      () => ({ ...certs, caCert: 'nope' }),
      /key ca\.crt is not a PEM certificate/,
    ],
    [
      'a key of another certificate',
      () => ({ ...certs, key: other.key }),
      /key tls\.key is not the private key of tls\.crt/,
    ],
    [
      'a leaf from another CA',
      () => ({ ...certs, caCert: other.caCert }),
      /key tls\.crt was not issued by ca\.crt/,
    ],
  ])('rejects %s', (_title, make, message) => {
    expect(() => checkWebhookCertificates(make(), hosts, where, fix, NOW)).toThrow(message);
  });

  it('rejects a certificate that does not cover the URL host', () => {
    expect(() => checkWebhookCertificates(other, ['127.0.0.1'], where, fix, NOW)).toThrow(
      'Secret ns/s key tls.crt does not cover 127.0.0.1; delete the Secret',
    );
  });

  it('rejects an expired certificate', () => {
    const later = new Date(NOW.getTime() + 400 * 24 * 60 * 60 * 1000);
    expect(() => checkWebhookCertificates(certs, hosts, where, fix, later)).toThrow(
      /tls\.crt is valid only from/,
    );
  });
});

describe('loadWebhookCertificateFiles', () => {
  const names = { certName: 'tls.crt', keyName: 'tls.key' };

  it('reads the named files', () => {
    const certDir = tempDir();
    writeFileSync(join(certDir, 'c.pem'), certs.cert);
    writeFileSync(join(certDir, 'k.pem'), certs.key);
    expect(loadWebhookCertificateFiles({ certDir, certName: 'c.pem', keyName: 'k.pem' })).toEqual({
      cert: certs.cert,
      key: certs.key,
    });
  });

  it('accepts a combined cert.pem with the default names', () => {
    const certDir = tempDir();
    writeFileSync(join(certDir, 'cert.pem'), certs.cert + certs.key);
    const loaded = loadWebhookCertificateFiles({ certDir, ...names });
    expect(loaded.cert).toBe(certs.cert + certs.key);
    expect(new X509Certificate(loaded.cert).subject).toBe(new X509Certificate(certs.cert).subject);
  });

  it('does not fall back to cert.pem with other names', () => {
    const certDir = tempDir();
    writeFileSync(join(certDir, 'cert.pem'), certs.cert + certs.key);
    expect(() =>
      loadWebhookCertificateFiles({ certDir, certName: 'c.pem', keyName: 'tls.key' }),
    ).toThrow(`${join(certDir, 'c.pem')} does not exist`);
  });

  it('names the missing key file and the flags that fix it', () => {
    const certDir = tempDir();
    writeFileSync(join(certDir, 'tls.crt'), certs.cert);
    let err: unknown;
    try {
      loadWebhookCertificateFiles({ certDir, ...names });
    } catch (e: unknown) {
      err = e;
    }
    expect(err).toBeInstanceOf(WebhookError);
    expect((err as WebhookError).code).toBe('MissingFile');
    expect((err as WebhookError).message).toBe(
      `${join(certDir, 'tls.key')} does not exist: put the webhook's serving key there, pass --webhook-cert-dir/--webhook-cert-name/--webhook-key-name, or use --manage-webhook-certs=true`,
    );
  });

  it('names the file holding a corrupt certificate', () => {
    const certDir = tempDir();
    writeFileSync(join(certDir, 'tls.crt'), 'not pem');
    writeFileSync(join(certDir, 'tls.key'), certs.key);
    expect(() => loadWebhookCertificateFiles({ certDir, ...names })).toThrow(
      `${join(certDir, 'tls.crt')} is not a PEM certificate; replace the file`,
    );
  });
});

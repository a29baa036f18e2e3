import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClusterError } from './errors.ts';

/** Files written by createPki: ca, apiserver, admin certificate and key, the SA key pair (recipe §3.5). */
export interface PkiFiles {
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
  saKey: string;
  saPub: string;
}

export function pkiFiles(dir: string): PkiFiles {
  const f = (name: string) => join(dir, name);
  return {
    caCert: f('ca.crt'),
    caKey: f('ca.key'),
    servingCert: f('apiserver.crt'),
    servingKey: f('apiserver.key'),
    adminCert: f('admin.crt'),
    adminKey: f('admin.key'),
    saKey: f('sa.key'),
    saPub: f('sa.pub'),
  };
}

// node:crypto can verify X.509 but not issue it, so the openssl CLI does the signing.
function openssl(args: string[]): void {
  try {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err: unknown) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ClusterError(
        'TOOLCHAIN_MISSING',
        'openssl is not on PATH; install it (apt-get install -y openssl) and retry',
        { cause: err },
      );
    }
    throw new ClusterError('START_FAILED', `openssl ${args[0]} failed: ${String(err)}`, {
      cause: err,
    });
  }
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
// Ten years: certificates are regenerated on every `up`, so expiry only matters for a cluster
// left running. No back-dating: every component runs on this one clock (recipe §7).
const DAYS = '3650';

/** Issues a leaf signed by the CA, with the extensions given as openssl config lines. */
function issue(files: PkiFiles, dir: string, name: string, subject: string, ext: string[]): void {
  const csr = join(dir, `${name}.csr`);
  const extFile = join(dir, `${name}.ext`);
  writeFileSync(extFile, ext.join('\n') + '\n');
  openssl([
    'req',
    '-new',
    ...EC_KEY,
    '-keyout',
    join(dir, `${name}.key`),
    '-subj',
    subject,
    '-out',
    csr,
  ]);
  openssl([
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    files.caCert,
    '-CAkey',
    files.caKey,
    '-set_serial',
    `0x${randomBytes(16).toString('hex')}`,
    '-days',
    DAYS,
    '-extfile',
    extFile,
    '-out',
    join(dir, `${name}.crt`),
  ]);
  rmSync(csr);
  rmSync(extFile);
}

/** A fresh CA, apiserver serving pair, admin client pair and service-account key pair. */
export function createPki(dir: string): PkiFiles {
  const files = pkiFiles(dir);
  if (existsSync(files.saPub)) return files; // complete from an earlier, interrupted `up`
  mkdirSync(dir, { recursive: true });
  openssl(
    ['req', '-x509', ...EC_KEY, '-keyout', files.caKey, '-out', files.caCert].concat([
      '-days',
      DAYS,
      '-subj',
      '/CN=agent-sandbox-harness-ca',
    ]),
  );
  issue(files, dir, 'apiserver', '/CN=kube-apiserver', [
    'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage=serverAuth',
    'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:10.96.0.1',
  ]);
  // O=system:masters is bound to cluster-admin by bootstrap RBAC (and is APF-exempt: recipe §3.4).
  issue(files, dir, 'admin', '/O=system:masters/CN=harness-admin', [
    'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage=clientAuth',
  ]);
  openssl(['genrsa', '-out', files.saKey, '2048']);
  openssl(['rsa', '-in', files.saKey, '-pubout', '-out', files.saPub]);
  return files;
}

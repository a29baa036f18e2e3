// A real registry on loopback for tests: Debian's docker-registry (distribution 2.8) on a free
// port with temp storage, optionally behind token auth served by a small issuer here (JWTs
// signed ES256 with a self-signed certificate the registry trusts), plus a push helper.
import { spawn, type ChildProcess } from 'node:child_process';
import { createPrivateKey, sign, webcrypto, KeyObject, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestImage } from './test-image.ts';

export const REGISTRY_BINARY = '/usr/bin/docker-registry';

export interface TestRegistry {
  /** `127.0.0.1:<port>`, the host part of references. */
  host: string;
  /** Token requests served so far (token mode). */
  tokenRequests: { scope: string | null; service: string | null }[];
  push(repository: string, tag: string, image: TestImage): Promise<void>;
  close(): Promise<void>;
}

export function hasRegistry(): boolean {
  return existsSync(REGISTRY_BINARY);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer().listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

async function tokenIssuer(dir: string): Promise<{
  server: Server;
  realm: string;
  certPath: string;
  requests: TestRegistry['tokenRequests'];
}> {
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      name: 'CN=asb-test-token-issuer',
      keys,
      signingAlgorithm: alg,
      notBefore: new Date(Date.now() - 3600_000),
      notAfter: new Date(Date.now() + 86400_000),
    },
    webcrypto,
  );
  const certPath = join(dir, 'token-ca.pem');
  await writeFile(certPath, cert.toString('pem'));
  const key = createPrivateKey(
    KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }),
  );
  const requests: TestRegistry['tokenRequests'] = [];
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const scope = u.searchParams.get('scope');
    requests.push({ scope, service: u.searchParams.get('service') });
    const access = (scope ? [scope] : []).map((s) => {
      const [type, name, actions] = s.split(':');
      return { type, name, actions: (actions ?? '').split(',') };
    });
    const now = Math.floor(Date.now() / 1000);
    const header = {
      alg: 'ES256',
      typ: 'JWT',
      x5c: [Buffer.from(cert.rawData).toString('base64')],
    };
    const claims = {
      iss: 'asb-test',
      sub: 'anonymous',
      aud: 'asb-test-registry',
      exp: now + 300,
      nbf: now - 10,
      iat: now,
      jti: randomUUID(),
      access,
    };
    const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
    const sig = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ token: `${input}.${b64url(sig)}`, expires_in: 300 }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  const port = typeof a === 'object' && a ? a.port : 0;
  return { server, realm: `http://127.0.0.1:${port}/token`, certPath, requests };
}

/** Starts docker-registry; `auth: 'token'` puts it behind bearer tokens (anonymous pull and push). */
export async function startTestRegistry(
  options: { auth?: 'none' | 'token' } = {},
): Promise<TestRegistry> {
  if (!hasRegistry())
    throw new Error(`${REGISTRY_BINARY} is missing: apt-get install docker-registry`);
  const dir = await mkdtemp(join(tmpdir(), 'asb-registry-'));
  const issuer = options.auth === 'token' ? await tokenIssuer(dir) : undefined;
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const config = [
    'version: 0.1',
    'log: {level: warn}',
    `storage: {filesystem: {rootdirectory: ${join(dir, 'data')}}, delete: {enabled: true}}`,
    `http: {addr: "${host}"}`,
    ...(issuer
      ? [
          `auth: {token: {realm: "${issuer.realm}", service: asb-test-registry, issuer: asb-test, rootcertbundle: ${issuer.certPath}}}`,
        ]
      : []),
  ].join('\n');
  await writeFile(join(dir, 'config.yml'), config);
  const child: ChildProcess = spawn(REGISTRY_BINARY, ['serve', join(dir, 'config.yml')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  for (let i = 0; ; i++) {
    const ok = await fetch(`http://${host}/v2/`).then(
      (r) => r.status === 200 || r.status === 401,
      () => false,
    );
    if (ok) break;
    if (i > 100 || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`docker-registry did not start on ${host}: ${stderr.slice(-500)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const authHeader = async (repository: string): Promise<Record<string, string>> => {
    if (!issuer) return {};
    const r = await fetch(
      `${issuer.realm}?service=asb-test-registry&scope=repository:${repository}:pull,push`,
    );
    return { authorization: `Bearer ${((await r.json()) as { token: string }).token}` };
  };
  return {
    host,
    tokenRequests: issuer?.requests ?? [],
    async push(repository, tag, image) {
      const auth = await authHeader(repository);
      for (const [digest, bytes] of image.blobs) {
        const start = await fetch(`http://${host}/v2/${repository}/blobs/uploads/`, {
          method: 'POST',
          headers: auth,
        });
        if (start.status !== 202)
          throw new Error(`upload start: ${start.status} ${await start.text()}`);
        const loc = new URL(start.headers.get('location') ?? '', `http://${host}`);
        loc.searchParams.set('digest', digest);
        const put = await fetch(loc, {
          method: 'PUT',
          headers: { ...auth, 'content-type': 'application/octet-stream' },
          body: bytes,
        });
        if (put.status !== 201)
          throw new Error(`upload ${digest}: ${put.status} ${await put.text()}`);
      }
      const m = await fetch(`http://${host}/v2/${repository}/manifests/${tag}`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/vnd.oci.image.manifest.v1+json' },
        body: image.manifest,
      });
      if (m.status !== 201) throw new Error(`manifest put: ${m.status} ${await m.text()}`);
    },
    async close() {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      if (issuer) await new Promise((r) => issuer.server.close(r));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

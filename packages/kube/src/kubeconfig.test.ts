import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KubeConfigError } from './errors.ts';
import { inClusterKubeConfig, kubeConfigFromString, loadKubeConfig } from './kubeconfig.ts';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

const doc = `apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster: {server: 'https://127.0.0.1:6443/', certificate-authority-data: ${b64('CA')}}
- name: c2
  cluster: {server: 'http://127.0.0.1:8080', insecure-skip-tls-verify: true}
users:
- name: cert
  user: {client-certificate-data: ${b64('CERT')}, client-key: key.pem}
- name: tok
  user: {token: abc}
contexts:
- name: a
  context: {cluster: c1, user: cert, namespace: ns1}
- name: b
  context: {cluster: c2, user: tok}
current-context: a
`;

describe('kubeconfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-test-'));
  writeFileSync(join(dir, 'key.pem'), 'KEY');

  it('resolves the current context with inline data and relative files', () => {
    expect(kubeConfigFromString(doc, { baseDir: dir })).toEqual({
      server: 'https://127.0.0.1:6443',
      namespace: 'ns1',
      insecureSkipTlsVerify: false,
      caPem: 'CA',
      clientCertPem: 'CERT',
      clientKeyPem: 'KEY',
    });
  });
  it('selects another context', () => {
    expect(kubeConfigFromString(doc, { context: 'b' })).toEqual({
      server: 'http://127.0.0.1:8080',
      namespace: 'default',
      insecureSkipTlsVerify: true,
      token: 'abc',
    });
  });
  it('rejects exec credentials and missing contexts with the fix', () => {
    const exec = doc.replace('{token: abc}', '{exec: {command: aws}}');
    expect(() => kubeConfigFromString(exec, { context: 'b' })).toThrow(/exec or auth-provider/);
    expect(() => kubeConfigFromString(doc, { context: 'zz' })).toThrow(KubeConfigError);
  });
  it('prefers --kubeconfig, then KUBECONFIG, then in-cluster', () => {
    const path = join(dir, 'config');
    writeFileSync(path, doc);
    expect(loadKubeConfig({ kubeconfig: path }).server).toBe('https://127.0.0.1:6443');
    expect(loadKubeConfig({ env: { KUBECONFIG: `/nope:${path}` }, context: 'b' }).token).toBe(
      'abc',
    );
    const sa = mkdtempSync(join(tmpdir(), 'sa-'));
    writeFileSync(join(sa, 'ca.crt'), 'SACA');
    writeFileSync(join(sa, 'token'), 'T');
    writeFileSync(join(sa, 'namespace'), 'kube-system\n');
    const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    expect(loadKubeConfig({ env, serviceAccountDir: sa })).toEqual(
      inClusterKubeConfig({ env, serviceAccountDir: sa }),
    );
    expect(inClusterKubeConfig({ env, serviceAccountDir: sa })).toEqual({
      server: 'https://10.0.0.1:443',
      namespace: 'kube-system',
      caPem: 'SACA',
      insecureSkipTlsVerify: false,
      tokenFile: join(sa, 'token'),
    });
    expect(() => loadKubeConfig({ env: { HOME: dir } })).toThrow(/no kubeconfig/);
  });
});

// The embedded API server as `agent-sandbox apiserver` serves it (ADR 0007): HTTPS with a
// generated CA and a bearer token, through the kubeconfig it writes.
/* eslint-disable no-restricted-imports -- tests run on the embedded apiserver (our envtest) */
import {
  ApiServer,
  ensureCertificates,
  ensureToken,
  listen,
  openStore,
  renderKubeconfig,
  type ListeningServer,
  type Store,
} from '@agent-sandbox/apiserver';
/* eslint-enable no-restricted-imports */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KubeClient } from './client.ts';
import { isNotFound, KubeError } from './errors.ts';
import { kubeConfigFromString } from './kubeconfig.ts';
import { CONFIG_MAPS } from './resources.ts';
import { configMap } from './testing/builders.ts';

const dir = mkdtempSync(join(tmpdir(), 'kube-tls-'));
let store: Store;
let server: ApiServer;
let listening: ListeningServer;
let kubeconfig: string;

beforeAll(async () => {
  const certs = await ensureCertificates({ dir: join(dir, 'pki') });
  const token = ensureToken({ path: join(dir, 'token') });
  store = openStore({ path: ':memory:' });
  server = new ApiServer({ store, token });
  server.start();
  listening = await listen(server, { tls: { cert: certs.cert, key: certs.key } });
  kubeconfig = renderKubeconfig({ server: listening.url, caCert: certs.caCert, token });
});
afterAll(async () => {
  await listening?.close();
  server?.stop();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('verifies the server against the CA data and authenticates with the token', async () => {
  const config = kubeConfigFromString(kubeconfig);
  expect(config.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  expect(config.insecureSkipTlsVerify).toBe(false);
  const client = new KubeClient({ config });
  try {
    await client.create(CONFIG_MAPS, configMap('default', 'tls'));
    expect((await client.get(CONFIG_MAPS, 'default', 'tls')).metadata.name).toBe('tls');
    await expect(client.get(CONFIG_MAPS, 'default', 'nope')).rejects.toSatisfy(isNotFound);
  } finally {
    await client.close();
  }
});

it('rejects an untrusted server and a wrong token with the reasons', async () => {
  const config = kubeConfigFromString(kubeconfig);
  const untrusting = new KubeClient({ config: { ...config, caPem: undefined } });
  await expect(untrusting.get(CONFIG_MAPS, 'default', 'tls')).rejects.toMatchObject({
    code: 'Network',
  });
  await expect(untrusting.get(CONFIG_MAPS, 'default', 'tls')).rejects.toBeInstanceOf(KubeError);
  await untrusting.close();
  const wrongToken = new KubeClient({ config: { ...config, token: 'wrong' } });
  await expect(wrongToken.get(CONFIG_MAPS, 'default', 'tls')).rejects.toMatchObject({
    status: { code: 401, reason: 'Unauthorized' },
  });
  await wrongToken.close();
});

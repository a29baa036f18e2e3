// KubeClient against the real kube-apiserver of test/cluster: HTTPS with the CA and a client
// certificate from the admin kubeconfig, exact error Statuses, and an informer.
import type { ConfigMap, KubeObject } from '@agent-sandbox/kube-types';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterKubeconfig } from './testing/cluster.ts';
import { KubeClient } from './client.ts';
import { isAlreadyExists, isConflict, isNotFound } from './errors.ts';
import { Informer } from './informer.ts';
import { kubeConfigFromFile } from './kubeconfig.ts';
import { CONFIG_MAPS, NAMESPACES } from './resources.ts';
import { configMap } from './testing/builders.ts';
import { startTcpProxy } from './testing/tcp-proxy.ts';
import type { TransportFailure } from './retry.ts';

type CM = ConfigMap & KubeObject;
let client: KubeClient;
const ns = `kube-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  const kubeconfig = clusterKubeconfig();
  const config = kubeConfigFromFile(kubeconfig);
  expect(config.server).toMatch(/^https:/);
  client = new KubeClient({ config, qps: 50, burst: 100 });
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});
afterAll(async () => {
  await client?.delete(NAMESPACES, undefined, ns).catch(() => undefined);
  await client?.close();
});

describe('KubeClient on kube-apiserver', () => {
  it('round-trips verbs with the reference errors', async () => {
    const cm = await client.create(CONFIG_MAPS, configMap(ns, 'a', { data: { k: 'v' } }));
    await expect(client.create(CONFIG_MAPS, configMap(ns, 'a'))).rejects.toSatisfy(isAlreadyExists);
    await expect(
      client.update(CONFIG_MAPS, { ...cm, metadata: { ...cm.metadata, resourceVersion: '1' } }),
    ).rejects.toSatisfy(isConflict);
    const applied = await client.patch<CM>(
      CONFIG_MAPS,
      ns,
      'a',
      {
        type: 'apply',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { s: 'sa' } },
      },
      { fieldManager: 'kube-test', force: true },
    );
    expect(applied.data).toEqual({ k: 'v', s: 'sa' });
    await client.delete(CONFIG_MAPS, ns, 'a');
    await expect(client.get(CONFIG_MAPS, ns, 'a')).rejects.toThrow(
      `get configmaps ${ns}/a: configmaps "a" not found`,
    );
    await expect(client.get(CONFIG_MAPS, ns, 'a')).rejects.toSatisfy(isNotFound);
  });

  // A watch from a compacted resourceVersion is tested against the embedded server, which can
  // compact on demand (informer.int.test.ts). The harness cluster compacts etcd every 5 minutes,
  // so on a fresh cluster resourceVersion 1 is still in history and the watch replays instead.

  it('an informer syncs and follows changes', async () => {
    await client.create(CONFIG_MAPS, configMap(ns, 'pre'));
    const informer = new Informer<CM>({ client, resource: CONFIG_MAPS, namespace: ns });
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await informer.waitForSync(ac.signal);
    expect(informer.cache.get(`${ns}/pre`)).toBeDefined();
    await client.create(CONFIG_MAPS, configMap(ns, 'post'));
    const start = Date.now();
    while (!informer.cache.get(`${ns}/post`) && Date.now() - start < 10_000)
      await new Promise((r) => setTimeout(r, 20));
    expect(informer.cache.get(`${ns}/post`)).toBeDefined();
    ac.abort();
    await run;
  });
});

describe('KubeClient connections to kube-apiserver (through a counting TCP proxy)', () => {
  it('keeps one TLS connection alive across requests and 6 s idle, bounds concurrent ones, and retries a GET whose connection was reset', async () => {
    const proxy = await startTcpProxy(client.config.server);
    const retries: TransportFailure[] = [];
    const metrics = {
      rateLimiterWait: () => undefined,
      request: () => undefined,
      requestRetry: (_m: string, _h: string, failure: TransportFailure) => retries.push(failure),
    };
    const config = { ...client.config, server: proxy.url };
    const one = new KubeClient({ config, maxConnections: 1, metrics });
    const four = new KubeClient({ config, maxConnections: 4, metrics });
    try {
      for (let i = 0; i < 20; i++) await one.list(CONFIG_MAPS, ns);
      // kube-apiserver sends no Keep-Alive hint and keeps idle connections for 90 s.
      await delay(6_000);
      await Promise.all(Array.from({ length: 20 }, () => one.list(CONFIG_MAPS, ns)));
      expect(proxy.accepted).toBe(1);

      await Promise.all(Array.from({ length: 40 }, () => four.list(CONFIG_MAPS, ns)));
      expect(proxy.accepted - 1).toBeGreaterThan(1);
      expect(proxy.accepted - 1).toBeLessThanOrEqual(4);

      const accepted = proxy.accepted;
      proxy.breakOpenConnections();
      await one.list(CONFIG_MAPS, ns);
      expect(retries).toEqual(['broken']);
      expect(proxy.accepted).toBe(accepted + 1);
    } finally {
      await one.close();
      await four.close();
      await proxy.close();
    }
  }, 30_000);
});

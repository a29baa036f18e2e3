// KubeClient's connections against the real embedded API server, through a counting TCP proxy:
// keep-alive reuse on a bounded pool, watches apart, the idle close of a Node server, and the
// retries after a transport failure (retry.ts).
import type { ConfigMap, KubeObject } from '@agent-sandbox/kube-types';
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded apiserver (our envtest)
import { startTestApiServer, type TestApiServer } from '@agent-sandbox/apiserver/testing';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient, type KubeClientOptions } from './client.ts';
import { isNotFound, type KubeError } from './errors.ts';
import { kubeConfigFromFile, type KubeConfig } from './kubeconfig.ts';
import { CONFIG_MAPS } from './resources.ts';
import type { TransportFailure } from './retry.ts';
import { configMap } from './testing/builders.ts';
import { startTcpProxy, type TcpProxy } from './testing/tcp-proxy.ts';

type CM = ConfigMap & KubeObject;
let server: TestApiServer;
let config: KubeConfig;
const open: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  server = await startTestApiServer();
  config = kubeConfigFromFile(server.kubeconfigPath);
});
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});
afterAll(async () => {
  await server?.close();
});

async function proxied(
  options: Omit<KubeClientOptions, 'config'> = {},
  proxyOptions: { listen?: boolean } = {},
): Promise<{ proxy: TcpProxy; client: KubeClient; retries: TransportFailure[] }> {
  const proxy = await startTcpProxy(config.server, proxyOptions);
  open.push(proxy);
  const retries: TransportFailure[] = [];
  const client = new KubeClient({
    config: { ...config, server: proxy.url },
    metrics: {
      rateLimiterWait: () => undefined,
      request: () => undefined,
      requestRetry: (_method, _host, failure) => retries.push(failure),
    },
    ...options,
  });
  open.push(client);
  return { proxy, client, retries };
}

describe('KubeClient connections', () => {
  it('reuses one keep-alive connection for sequential and queued requests', async () => {
    const { proxy, client } = await proxied({ maxConnections: 1 });
    for (let i = 0; i < 20; i++) await client.list(CONFIG_MAPS, 'default');
    await Promise.all(Array.from({ length: 20 }, () => client.list(CONFIG_MAPS, 'default')));
    expect(proxy.accepted).toBe(1);
  });

  it('opens concurrent connections up to maxConnections, never more', async () => {
    const { proxy, client } = await proxied({ maxConnections: 3 });
    await Promise.all(Array.from({ length: 40 }, () => client.list(CONFIG_MAPS, 'default')));
    expect(proxy.accepted).toBeGreaterThan(1);
    expect(proxy.accepted).toBeLessThanOrEqual(3);
  });

  it('serves watches on their own connections, so open watches never block requests', async () => {
    const { proxy, client } = await proxied({ maxConnections: 2 });
    const ac = new AbortController();
    let events = 0;
    const watches = Array.from({ length: 4 }, async () => {
      for await (const event of client.watch(CONFIG_MAPS, 'default', { signal: ac.signal }))
        if (event.type === 'ADDED' && event.object.metadata.name === 'watched') events++;
    });
    await expect.poll(() => proxy.open, { timeout: 10_000 }).toBe(4);
    await Promise.all(Array.from({ length: 10 }, () => client.list(CONFIG_MAPS, 'default')));
    await client.create(CONFIG_MAPS, configMap('default', 'watched'));
    await expect.poll(() => events, { timeout: 10_000 }).toBe(4);
    expect(proxy.accepted).toBeLessThanOrEqual(4 + 2);
    ac.abort();
    await Promise.all(watches);
  });

  it('outlives the server closing an idle connection (Keep-Alive: timeout=5) after 6 s idle', async () => {
    const { proxy, client, retries } = await proxied({ maxConnections: 1 });
    await client.create(CONFIG_MAPS, configMap('default', 'idle-a'));
    await delay(6_000);
    await client.create(CONFIG_MAPS, configMap('default', 'idle-b'));
    expect((await client.get<CM>(CONFIG_MAPS, 'default', 'idle-b')).metadata.name).toBe('idle-b');
    // The client closed the idle connection before the server would, so nothing was retried.
    expect(retries).toEqual([]);
    expect(proxy.accepted).toBe(2);
  }, 20_000);
});

describe('KubeClient retries after a transport failure', () => {
  it('sends a GET again when its reused connection is reset before any response', async () => {
    // One connection, so the request surely goes over the one the proxy breaks.
    const { proxy, client, retries } = await proxied({ maxConnections: 1 });
    await client.create(CONFIG_MAPS, configMap('default', 'reset-get'));
    proxy.breakOpenConnections();
    const got = await client.get<CM>(CONFIG_MAPS, 'default', 'reset-get');
    expect(got.metadata.name).toBe('reset-get');
    expect(retries).toEqual(['broken']);
    expect(proxy.accepted).toBe(2);
  });

  it('sends idempotent writes again (update, delete, named create, merge and apply patches)', async () => {
    const { proxy, client, retries } = await proxied({ maxConnections: 1 });
    proxy.breakOpenConnections(); // nothing open yet: the create opens a fresh connection
    const cm = await client.create<CM>(CONFIG_MAPS, configMap('default', 'reset-w', { data: {} }));
    proxy.breakOpenConnections();
    const updated = await client.update<CM>(CONFIG_MAPS, { ...cm, data: { k: 'v' } });
    expect(updated.data).toEqual({ k: 'v' });
    proxy.breakOpenConnections();
    const merged = await client.patch<CM>(CONFIG_MAPS, 'default', 'reset-w', {
      type: 'merge',
      body: { data: { m: 'n' } },
    });
    expect(merged.data).toEqual({ k: 'v', m: 'n' });
    proxy.breakOpenConnections();
    const apply = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'reset-w' } };
    const applied = await client.patch<CM>(
      CONFIG_MAPS,
      'default',
      'reset-w',
      { type: 'apply', body: { ...apply, data: { a: 'b' } } },
      { fieldManager: 'retry-test', force: true },
    );
    expect(applied.data).toEqual({ k: 'v', m: 'n', a: 'b' });
    proxy.breakOpenConnections();
    await client.create(CONFIG_MAPS, configMap('default', 'reset-named'));
    proxy.breakOpenConnections();
    await client.delete(CONFIG_MAPS, 'default', 'reset-named');
    expect(retries).toEqual(['broken', 'broken', 'broken', 'broken', 'broken']);
    await expect(client.get(CONFIG_MAPS, 'default', 'reset-named')).rejects.toSatisfy(isNotFound);
  });

  it('does not send a create by generateName or a JSON patch again', async () => {
    const { proxy, client, retries } = await proxied({ maxConnections: 1 });
    await client.create(CONFIG_MAPS, configMap('default', 'reset-j', { data: {} }));
    proxy.breakOpenConnections();
    const generated = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'default', generateName: 'gen-' },
    };
    const create = client.create(CONFIG_MAPS, generated);
    await expect(create).rejects.toSatisfy((e: KubeError) => e.code === 'Network');
    await expect(create).rejects.toThrow(/^create configmaps default\/gen-: fetch failed/);
    await client.get(CONFIG_MAPS, 'default', 'reset-j'); // a connection for the proxy to break
    proxy.breakOpenConnections();
    const jsonPatch = client.patch(CONFIG_MAPS, 'default', 'reset-j', {
      type: 'json',
      ops: [{ op: 'add', path: '/data/x', value: 'y' }],
    });
    await expect(jsonPatch).rejects.toSatisfy((e: KubeError) => e.code === 'Network');
    expect(retries).toEqual([]);
    // The proxy dropped the requests' bytes: neither happened.
    const list = await client.list<CM>(CONFIG_MAPS, 'default');
    expect(list.items.filter((i) => i.metadata.name?.startsWith('gen-'))).toEqual([]);
    expect((await client.get<CM>(CONFIG_MAPS, 'default', 'reset-j')).data).toEqual({});
  });

  it('sends any request again, a create too, when the connection was refused', async () => {
    const { proxy, client, retries } = await proxied(
      {
        metrics: {
          rateLimiterWait: () => undefined,
          request: () => undefined,
          // The server comes up after the first refusal.
          requestRetry: (_m, _h, failure) => {
            retries.push(failure);
            if (retries.length === 1) void proxy.listen();
          },
        },
      },
      { listen: false },
    );
    const created = await client.create(CONFIG_MAPS, configMap('default', 'refused-c'));
    expect(created.metadata.name).toBe('refused-c');
    expect(retries[0]).toBe('not-connected');
  });

  it('gives up after maxRetries and says why', async () => {
    const { client, retries } = await proxied({ retry: { maxRetries: 2 } }, { listen: false });
    const get = client.get(CONFIG_MAPS, 'default', 'x');
    await expect(get).rejects.toSatisfy((e: KubeError) => e.code === 'Network');
    await expect(get).rejects.toThrow(/^get configmaps default\/x: fetch failed: .*ECONNREFUSED/);
    expect(retries.length).toBeGreaterThanOrEqual(2);
  });

  it('refuses retry and pool options that cannot work, naming the field', async () => {
    expect(() => new KubeClient({ config, retry: { maxRetries: -1 } })).toThrow(
      'retry.maxRetries must be a whole number >= 0, got -1',
    );
    expect(() => new KubeClient({ config, maxConnections: 0 })).toThrow(
      'maxConnections must be a whole number >= 1, got 0',
    );
  });
});

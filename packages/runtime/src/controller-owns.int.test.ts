// Owned and mapped secondaries: events on a Secret owned by a ConfigMap (controller
// ownerReference) or mapped by a function enqueue the primary.
import type { ConfigMap, KubeObject, Secret } from '@agent-sandbox/kube-types';
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded apiserver (our envtest)
import { startTestApiServer, type TestApiServer } from '@agent-sandbox/apiserver/testing';
import {
  CONFIG_MAPS,
  ignoreNotFound,
  isAlreadyExists,
  KubeClient,
  kubeConfigFromFile,
  NAMESPACES,
  SECRETS,
  SERVICES,
} from '@agent-sandbox/kube';
import { configMap } from '@agent-sandbox/kube/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Controller } from './controller.ts';
import { Manager } from './manager.ts';
import type { Request } from './reconciler.ts';

type CM = ConfigMap & KubeObject;
let server: TestApiServer;
let client: KubeClient;
beforeAll(async () => {
  server = await startTestApiServer();
  client = new KubeClient({ config: kubeConfigFromFile(server.kubeconfigPath) });
  await client.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'own' },
  });
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

async function until(cond: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!(await cond())) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

it('re-creates a deleted owned child and reacts to a mapped kind', async () => {
  const seen: Request[] = [];
  const reconciler = {
    async reconcile(req: Request): Promise<void> {
      seen.push(req);
      const parent = await client
        .get<CM>(CONFIG_MAPS, req.namespace, req.name)
        .catch(ignoreNotFound);
      if (!parent) return;
      const child: Secret & KubeObject = {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: `${req.name}-child`,
          namespace: req.namespace,
          ownerReferences: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: req.name,
              uid: parent.metadata.uid ?? '',
              controller: true,
            },
          ],
        },
        stringData: { from: req.name },
      };
      await client.create(SECRETS, child).catch((err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
      });
    },
  };
  const manager = new Manager({ client, logger: pino({ level: 'silent' }), namespace: 'own' });
  manager.add(
    new Controller({
      name: 'parent',
      for: CONFIG_MAPS,
      owns: [SECRETS],
      // A Service named after a ConfigMap maps to it.
      watches: [
        {
          resource: SERVICES,
          map: (o) => [{ namespace: o.metadata.namespace ?? '', name: o.metadata.name ?? '' }],
        },
      ],
      reconciler,
    }),
  );
  const ac = new AbortController();
  const running = manager.start(ac.signal);
  try {
    await client.create(CONFIG_MAPS, configMap('own', 'p'));
    const childExists = async (): Promise<boolean> =>
      (await client.get(SECRETS, 'own', 'p-child').catch(ignoreNotFound)) !== undefined;
    await until(childExists);
    await client.delete(SECRETS, 'own', 'p-child');
    await until(childExists); // the owned Secret's DELETED event enqueued own/p
    const before = seen.length;
    await client.create(SERVICES, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'p', namespace: 'own' },
      spec: { ports: [{ port: 80 }] },
    });
    await until(() => seen.length > before);
    expect(seen.at(-1)).toEqual({ namespace: 'own', name: 'p' });
  } finally {
    ac.abort();
    await running;
  }
});

it('filters: an owned kind passes only the updates its filter accepts; a mapped kind only creates', async () => {
  const seen: Request[] = [];
  const reconciler = {
    reconcile(req: Request): Promise<void> {
      seen.push(req);
      return Promise.resolve();
    },
  };
  await client.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'filtered' },
  });
  const parent = await client.create(CONFIG_MAPS, configMap('filtered', 'f'));
  const manager = new Manager({ client, logger: pino({ level: 'silent' }), namespace: 'filtered' });
  manager.add(
    new Controller({
      name: 'filtered',
      for: CONFIG_MAPS,
      // Only a change of the Secret's `data.k` reaches the owner.
      owns: [
        {
          resource: SECRETS,
          filter: {
            update: (o, n) =>
              (o as Secret & KubeObject).data?.['k'] !== (n as Secret & KubeObject).data?.['k'],
          },
        },
      ],
      watches: [
        {
          resource: SERVICES,
          map: (o) => [{ namespace: o.metadata.namespace ?? '', name: o.metadata.name ?? '' }],
          filter: { update: () => false, delete: () => false },
        },
      ],
      reconciler,
    }),
  );
  const ac = new AbortController();
  const running = manager.start(ac.signal);
  const count = (): number => seen.filter((r) => r.name === 'f').length;
  /** Gives a filtered-out event time to (wrongly) run a reconcile, then counts. */
  const settled = async (n: number): Promise<void> => {
    await new Promise((r) => setTimeout(r, 300));
    expect(count()).toBe(n);
  };
  try {
    await until(() => count() >= 1); // the initial list
    const secret = await client.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'f-child',
        namespace: 'filtered',
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'f',
            uid: parent.metadata.uid ?? '',
            controller: true,
          },
        ],
      },
      stringData: { k: '1' },
    } as Secret & KubeObject);
    await until(() => count() >= 2); // create passes
    const cache = manager.getInformer(SECRETS).cache;
    const labelled = await client.patch(SECRETS, 'filtered', 'f-child', {
      type: 'merge',
      body: { metadata: { labels: { x: 'y' } } },
    });
    await until(
      () =>
        cache.get('filtered/f-child')?.metadata.resourceVersion ===
        labelled.metadata.resourceVersion,
    );
    await settled(2); // a label change is filtered out
    await client.patch(SECRETS, 'filtered', 'f-child', {
      type: 'merge',
      body: { stringData: { k: '2' } },
    });
    await until(() => count() >= 3); // a data change passes
    await client.create(SERVICES, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'f', namespace: 'filtered' },
      spec: { ports: [{ port: 80 }] },
    });
    await until(() => count() >= 4); // a mapped create passes
    const services = manager.getInformer(SERVICES).cache;
    const relabelled = await client.patch(SERVICES, 'filtered', 'f', {
      type: 'merge',
      body: { metadata: { labels: { x: 'y' } } },
    });
    await until(
      () =>
        services.get('filtered/f')?.metadata.resourceVersion ===
        relabelled.metadata.resourceVersion,
    );
    await client.delete(SERVICES, 'filtered', 'f');
    await until(() => services.get('filtered/f') === undefined);
    await settled(4); // neither the mapped update nor the delete passes
    expect(secret.metadata.name).toBe('f-child');
  } finally {
    ac.abort();
    await running;
  }
});

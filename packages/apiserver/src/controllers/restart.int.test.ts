// The controllers keep no state outside the revision log: work left pending by a stopped server
// (here one that ran without controllers, the extreme case) is finished by the next server on the
// same database file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../node-server.ts';
import { ApiServer } from '../server.ts';
import { openStore } from '../storage/index.ts';
import { startTestApiServer } from '../testing/test-server.ts';
import { eventually, ownerRef, settle, TestClient, type TestObject } from './test-client.ts';

describe('controllers across a restart', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'controllers-restart-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('converges on work left by a server that stopped mid-way', async () => {
    const dbPath = join(dir, 'state.db');
    const store = openStore({ path: dbPath });
    const first = new ApiServer({ store, controllers: false });
    first.start();
    const listening = await listen(first);
    const kube = new TestClient(listening.url);
    const cms = '/api/v1/namespaces/default/configmaps';
    const cm = (
      name: string,
      owners: TestObject[] = [],
      finalizers?: string[],
    ): Promise<TestObject> =>
      kube.create(cms, {
        metadata: {
          name,
          ownerReferences: owners.map((o) => ownerRef(o, { blockOwnerDeletion: true })),
          ...(finalizers ? { finalizers } : {}),
        },
      });

    const background = await cm('background');
    await cm('background-dep', [background]);
    const foreground = await cm('foreground');
    await cm('foreground-dep', [foreground]);
    await cm('foreground-held', [foreground], ['example.com/hold']);
    const orphaning = await cm('orphaning');
    await cm('orphan-dep', [orphaning]);
    await kube.createNamespace('restart-ns');
    await kube.create('/api/v1/namespaces/restart-ns/configmaps', {
      metadata: { name: 'content' },
    });

    await kube.delete(`${cms}/background`);
    await kube.delete(`${cms}/foreground`, { propagationPolicy: 'Foreground' });
    await kube.delete(`${cms}/orphaning`, { propagationPolicy: 'Orphan' });
    await kube.delete('/api/v1/namespaces/restart-ns');
    await settle(100);
    // Nothing converged without controllers.
    expect(await kube.exists(`${cms}/background-dep`)).toBe(true);
    expect(await kube.exists(`${cms}/foreground`)).toBe(true);
    expect(await kube.exists(`${cms}/orphaning`)).toBe(true);
    expect(await kube.exists('/api/v1/namespaces/restart-ns')).toBe(true);
    await listening.close();
    first.stop();
    store.close();

    const second = await startTestApiServer({ dbPath });
    try {
      const kube2 = new TestClient(second.url);
      await eventually('the pending deletions finish', async () => {
        const gone = await Promise.all(
          [
            `${cms}/background-dep`,
            `${cms}/foreground-dep`,
            `${cms}/orphaning`,
            '/api/v1/namespaces/restart-ns/configmaps/content',
            '/api/v1/namespaces/restart-ns',
          ].map(async (p) => !(await kube2.exists(p))),
        );
        return gone.every((g) => g);
      });
      const orphan = await kube2.get(`${cms}/orphan-dep`);
      expect(orphan.status).toBe(200);
      expect(orphan.body.metadata.ownerReferences).toBeUndefined();
      // The held dependent still holds its owner; releasing it finishes the owner.
      expect(await kube2.exists(`${cms}/foreground`)).toBe(true);
      await kube2.update(`${cms}/foreground-held`, (o) => {
        o.metadata.finalizers = [];
      });
      await eventually(
        'the foreground owner is gone',
        async () => !(await kube2.exists(`${cms}/foreground`)),
      );
    } finally {
      await second.close();
    }
  });
  it('finishes work that running controllers had started when the server stopped', async () => {
    const dbPath = join(dir, 'running.db');
    const first = await startTestApiServer({ dbPath });
    const kube = new TestClient(first.url);
    await kube.createNamespace('held-ns');
    const cms = '/api/v1/namespaces/held-ns/configmaps';
    const owner = await kube.create(cms, { metadata: { name: 'owner' } });
    await kube.create(cms, {
      metadata: {
        name: 'held',
        finalizers: ['example.com/hold'],
        ownerReferences: [ownerRef(owner, { blockOwnerDeletion: true })],
      },
    });
    await kube.create(cms, { metadata: { name: 'free', ownerReferences: [ownerRef(owner)] } });
    await kube.delete(`${cms}/owner`, { propagationPolicy: 'Foreground' });
    await kube.delete('/api/v1/namespaces/held-ns');
    await eventually('the free dependent is gone', async () => !(await kube.exists(`${cms}/free`)));
    await first.close();

    const second = await startTestApiServer({ dbPath });
    try {
      const kube2 = new TestClient(second.url);
      await settle();
      expect(await kube2.exists(`${cms}/owner`)).toBe(true);
      expect(await kube2.exists('/api/v1/namespaces/held-ns')).toBe(true);
      await kube2.update(`${cms}/held`, (o) => {
        o.metadata.finalizers = [];
      });
      await eventually('the owner and the namespace are gone', async () => {
        const left = await Promise.all([
          kube2.exists(`${cms}/owner`),
          kube2.exists('/api/v1/namespaces/held-ns'),
        ]);
        return left.every((e) => !e);
      });
    } finally {
      await second.close();
    }
  });
});

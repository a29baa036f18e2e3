// The garbage collector through the real server (semantics doc §9.1): background cascades,
// foreground deletion with blockOwnerDeletion, orphaning, dangling owners, and the namespace
// rules of ownership.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApiServer, type TestApiServer } from '../testing/test-server.ts';
import { eventually, ownerRef, settle, TestClient, type TestObject } from './test-client.ts';

describe('garbage collector', () => {
  let s: TestApiServer;
  let kube: TestClient;
  beforeAll(async () => {
    s = await startTestApiServer();
    kube = new TestClient(s.url);
  });
  afterAll(async () => {
    await s.close();
  });

  const cms = (ns: string): string => `/api/v1/namespaces/${ns}/configmaps`;
  /** The test's ConfigMaps: without kube-root-ca.crt, which the server publishes everywhere. */
  const ours = (items: unknown): unknown[] =>
    (items as { metadata: { name: string } }[]).filter(
      (i) => i.metadata.name !== 'kube-root-ca.crt',
    );
  const secrets = (ns: string): string => `/api/v1/namespaces/${ns}/secrets`;

  async function configMap(
    ns: string,
    name: string,
    owners: TestObject[] = [],
    extra: { finalizers?: string[]; block?: boolean } = {},
  ): Promise<TestObject> {
    const metadata: Record<string, unknown> = { name };
    if (owners.length > 0)
      metadata['ownerReferences'] = owners.map((o) =>
        ownerRef(o, extra.block === undefined ? {} : { blockOwnerDeletion: extra.block }),
      );
    if (extra.finalizers) metadata['finalizers'] = extra.finalizers;
    return kube.create(cms(ns), { metadata });
  }

  it('deletes the dependents of a deleted owner in the background', async () => {
    await kube.createNamespace('gc-bg');
    const owner = await configMap('gc-bg', 'owner');
    const other = await configMap('gc-bg', 'other-owner');
    await configMap('gc-bg', 'dep-cm', [owner]);
    await kube.create(secrets('gc-bg'), {
      metadata: { name: 'dep-secret', ownerReferences: [ownerRef(owner)] },
    });
    await configMap('gc-bg', 'two-owners', [owner, other]);

    const res = await kube.delete(`${cms('gc-bg')}/owner`);
    expect(res.status).toBe(200);
    await eventually('dependents are gone', async () => {
      const left = await Promise.all([
        kube.exists(`${cms('gc-bg')}/dep-cm`),
        kube.exists(`${secrets('gc-bg')}/dep-secret`),
      ]);
      return left.every((e) => !e);
    });
    // A dependent with another live owner stays and loses only the dangling reference.
    await eventually('the dangling reference is removed', async () => {
      const got = await kube.get(`${cms('gc-bg')}/two-owners`);
      return got.body.metadata.ownerReferences?.length === 1;
    });
    const kept = await kube.get(`${cms('gc-bg')}/two-owners`);
    expect(kept.body.metadata.ownerReferences).toEqual([ownerRef(other)]);
  });

  it('holds a foreground-deleted owner until blocking dependents are gone', async () => {
    await kube.createNamespace('gc-fg');
    const owner = await configMap('gc-fg', 'owner');
    const child = await configMap('gc-fg', 'child', [owner], { block: true });
    await configMap('gc-fg', 'grandchild', [child], { block: true });
    await configMap('gc-fg', 'held', [owner], { block: true, finalizers: ['example.com/hold'] });
    await configMap('gc-fg', 'non-blocking', [owner], { block: false });

    const res = await kube.delete(`${cms('gc-fg')}/owner`, { propagationPolicy: 'Foreground' });
    expect(res.status).toBe(200);
    expect(res.body.metadata.deletionTimestamp).toBeDefined();
    expect(res.body.metadata.finalizers).toEqual(['foregroundDeletion']);

    await eventually('unheld dependents are gone', async () => {
      const left = await Promise.all(
        ['child', 'grandchild', 'non-blocking'].map((n) => kube.exists(`${cms('gc-fg')}/${n}`)),
      );
      return left.every((e) => !e);
    });
    // The dependent with its own finalizer is being deleted, and holds the owner.
    await settle();
    const held = await kube.get(`${cms('gc-fg')}/held`);
    expect(held.body.metadata.deletionTimestamp).toBeDefined();
    const waiting = await kube.get(`${cms('gc-fg')}/owner`);
    expect(waiting.status).toBe(200);
    expect(waiting.body.metadata.finalizers).toEqual(['foregroundDeletion']);

    const released = await kube.update(`${cms('gc-fg')}/held`, (o) => {
      o.metadata.finalizers = [];
    });
    expect(released.status).toBe(200);
    await eventually(
      'the owner is gone',
      async () => !(await kube.exists(`${cms('gc-fg')}/owner`)),
    );
    expect(await kube.exists(`${cms('gc-fg')}/held`)).toBe(false);
  });

  it('orphans dependents: they keep living without the reference', async () => {
    await kube.createNamespace('gc-orphan');
    const owner = await configMap('gc-orphan', 'owner');
    const other = await configMap('gc-orphan', 'other');
    await configMap('gc-orphan', 'dep-1', [owner], { block: true });
    await configMap('gc-orphan', 'dep-2', [owner, other]);

    const res = await kube.delete(`${cms('gc-orphan')}/owner`, { propagationPolicy: 'Orphan' });
    expect(res.status).toBe(200);
    expect(res.body.metadata.finalizers).toEqual(['orphan']);
    await eventually(
      'the owner is gone',
      async () => !(await kube.exists(`${cms('gc-orphan')}/owner`)),
    );
    await settle();
    const dep1 = await kube.get(`${cms('gc-orphan')}/dep-1`);
    expect(dep1.status).toBe(200);
    expect(dep1.body.metadata.ownerReferences).toBeUndefined();
    const dep2 = await kube.get(`${cms('gc-orphan')}/dep-2`);
    expect(dep2.body.metadata.ownerReferences).toEqual([ownerRef(other)]);
  });

  it('deletes dependents whose owner is missing at create time', async () => {
    await kube.createNamespace('gc-dangling');
    const owner = await configMap('gc-dangling', 'owner');
    const ghost = {
      ...owner,
      metadata: { name: 'ghost', uid: '00000000-0000-4000-8000-000000000000' },
    };
    await configMap('gc-dangling', 'of-ghost', [ghost]);
    // Same name, other uid: a predecessor of the live owner, gone.
    const stale = {
      ...owner,
      metadata: { ...owner.metadata, uid: '00000000-0000-4000-8000-000000000001' },
    };
    await configMap('gc-dangling', 'of-stale', [stale]);
    const live = await configMap('gc-dangling', 'of-live', [owner]);

    await eventually('dangling dependents are gone', async () => {
      const left = await Promise.all(
        ['of-ghost', 'of-stale'].map((n) => kube.exists(`${cms('gc-dangling')}/${n}`)),
      );
      return left.every((e) => !e);
    });
    const kept = await kube.get(`${cms('gc-dangling')}/of-live`);
    expect(kept.body.metadata.uid).toBe(live.metadata.uid);
  });

  it('lets cluster-scoped owners own namespaced dependents, and namespaced owners only their namespace', async () => {
    await kube.createNamespace('gc-scope-a');
    await kube.createNamespace('gc-scope-b');
    const clusterOwner = await kube.createNamespace('gc-scope-owner');
    const ownerInB = await configMap('gc-scope-b', 'owner');
    await configMap('gc-scope-a', 'of-namespace', [clusterOwner]);
    await configMap('gc-scope-a', 'cross-namespace', [ownerInB]);

    await eventually(
      'the cross-namespace dependent is gone',
      async () => !(await kube.exists(`${cms('gc-scope-a')}/cross-namespace`)),
    );
    await settle();
    expect(await kube.exists(`${cms('gc-scope-a')}/of-namespace`)).toBe(true);

    // Deleting the owning namespace (content first, then itself) releases the dependent.
    await kube.delete('/api/v1/namespaces/gc-scope-owner');
    await eventually(
      'the namespace-owned dependent is gone',
      async () => !(await kube.exists(`${cms('gc-scope-a')}/of-namespace`)),
    );
  });

  it('breaks a blocking ownership cycle under foreground deletion', async () => {
    await kube.createNamespace('gc-cycle');
    const a = await configMap('gc-cycle', 'a');
    const b = await configMap('gc-cycle', 'b', [a], { block: true });
    const linked = await kube.update(`${cms('gc-cycle')}/a`, (o) => {
      o.metadata.ownerReferences = [ownerRef(b, { blockOwnerDeletion: true })];
    });
    expect(linked.status).toBe(200);
    await kube.delete(`${cms('gc-cycle')}/a`, { propagationPolicy: 'Foreground' });
    await eventually('both are gone', async () => {
      const left = await Promise.all(['a', 'b'].map((n) => kube.exists(`${cms('gc-cycle')}/${n}`)));
      return left.every((e) => !e);
    });
  });

  it('collects an owner with many dependents in foreground', async () => {
    await kube.createNamespace('gc-many');
    const owner = await configMap('gc-many', 'owner');
    for (let i = 0; i < 200; i++) await configMap('gc-many', `dep-${i}`, [owner], { block: true });
    const started = Date.now();
    await kube.delete(`${cms('gc-many')}/owner`, { propagationPolicy: 'Foreground' });
    await eventually(
      'the owner is gone',
      async () => !(await kube.exists(`${cms('gc-many')}/owner`)),
    );
    const res = await kube.get(cms('gc-many'));
    expect(ours(res.body['items'])).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('deletes a whole ownership chain in foreground, deepest first', async () => {
    await kube.createNamespace('gc-chain');
    let parent = await configMap('gc-chain', 'level-0');
    for (let i = 1; i <= 4; i++)
      parent = await configMap('gc-chain', `level-${i}`, [parent], { block: true });
    await kube.delete(`${cms('gc-chain')}/level-0`, { propagationPolicy: 'Foreground' });
    await eventually('the chain is gone', async () => {
      const res = await kube.get(cms('gc-chain'));
      return ours(res.body['items']).length === 0;
    });
  });
});

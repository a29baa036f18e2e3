// Namespace deletion through the real server (semantics doc §9.2): Terminating, content removal
// across built-in and custom resources, finalizers holding the namespace with kube's
// conditions, 403 for new content, /finalize, and the namespaces nobody may delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApiServer, type TestApiServer } from '../testing/test-server.ts';
import { eventually, settle, TestClient } from './test-client.ts';

const WIDGETS_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        },
      },
    ],
  },
};

interface NamespaceCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

describe('namespace controller', () => {
  let s: TestApiServer;
  let kube: TestClient;
  beforeAll(async () => {
    s = await startTestApiServer();
    kube = new TestClient(s.url);
    await kube.create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', WIDGETS_CRD);
  });
  afterAll(async () => {
    await s.close();
  });

  const ns = (name: string): string => `/api/v1/namespaces/${name}`;

  it('marks the namespace Terminating, removes all content, then the namespace', async () => {
    await kube.createNamespace('ns-delete');
    await kube.create(`${ns('ns-delete')}/configmaps`, { metadata: { name: 'cm' } });
    await kube.create(`${ns('ns-delete')}/secrets`, { metadata: { name: 'secret' } });
    await kube.create('/apis/example.com/v1/namespaces/ns-delete/widgets', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: {},
    });
    await kube.create(`${ns('default')}/configmaps`, { metadata: { name: 'outside' } });

    const res = await kube.delete(ns('ns-delete'));
    expect(res.status).toBe(200);
    expect(res.body.metadata.deletionTimestamp).toBeDefined();
    expect(res.body['status']).toMatchObject({ phase: 'Terminating' });
    expect(res.body['spec']).toEqual({ finalizers: ['kubernetes'] });

    await eventually('the namespace is gone', async () => !(await kube.exists(ns('ns-delete'))));
    for (const path of [
      `${ns('ns-delete')}/configmaps/cm`,
      `${ns('ns-delete')}/secrets/secret`,
      '/apis/example.com/v1/namespaces/ns-delete/widgets/w',
    ])
      expect(await kube.exists(path)).toBe(false);
    expect(await kube.exists(`${ns('default')}/configmaps/outside`)).toBe(true);
  });

  it('waits for finalizers in the namespace, reporting kube conditions, and refuses new content', async () => {
    await kube.createNamespace('ns-held');
    await kube.create(`${ns('ns-held')}/configmaps`, {
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
    });
    await kube.create(`${ns('ns-held')}/configmaps`, { metadata: { name: 'free' } });
    await kube.delete(ns('ns-held'));

    await eventually('the content conditions are reported', async () => {
      const got = await kube.get(ns('ns-held'));
      const conditions = (got.body['status'] as { conditions?: NamespaceCondition[] }).conditions;
      return conditions?.some((c) => c.type === 'NamespaceContentRemaining') === true;
    });
    const got = await kube.get(ns('ns-held'));
    const status = got.body['status'] as { phase: string; conditions: NamespaceCondition[] };
    expect(status.phase).toBe('Terminating');
    const byType = new Map(status.conditions.map((c) => [c.type, c]));
    expect(byType.get('NamespaceContentRemaining')).toMatchObject({
      status: 'True',
      reason: 'SomeResourcesRemain',
      message: 'Some resources are remaining: configmaps. has 1 resource instances',
    });
    expect(byType.get('NamespaceFinalizersRemaining')).toMatchObject({
      status: 'True',
      reason: 'SomeFinalizersRemain',
      message:
        'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
    });
    expect(byType.get('NamespaceDeletionContentFailure')).toMatchObject({
      status: 'False',
      reason: 'ContentDeleted',
    });
    expect(await kube.exists(`${ns('ns-held')}/configmaps/free`)).toBe(false);

    // New content is refused; a repeated DELETE conflicts; updates still work.
    const created = await kube.request('POST', `${ns('ns-held')}/configmaps`, {
      metadata: { name: 'late' },
    });
    expect(created.status).toBe(403);
    expect(created.body).toMatchObject({
      reason: 'Forbidden',
      message:
        'configmaps "late" is forbidden: unable to create new content in namespace ns-held because it is being terminated',
      details: {
        name: 'late',
        kind: 'configmaps',
        causes: [
          {
            reason: 'NamespaceTerminating',
            message: 'namespace ns-held is being terminated',
            field: 'metadata.namespace',
          },
        ],
      },
    });
    const again = await kube.delete(ns('ns-held'));
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(
      'Operation cannot be fulfilled on namespaces "ns-held": The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.',
    );
    const labelled = await kube.update(ns('ns-held'), (o) => {
      o.metadata.labels = { ...o.metadata.labels, touched: 'yes' };
    });
    expect(labelled.status).toBe(200);
    await settle();
    expect(await kube.exists(ns('ns-held'))).toBe(true);

    const released = await kube.update(`${ns('ns-held')}/configmaps/held`, (o) => {
      o.metadata.finalizers = [];
    });
    expect(released.status).toBe(200);
    await eventually('the namespace is gone', async () => !(await kube.exists(ns('ns-held'))));
  });

  it('finalizes through PUT .../finalize and validates finalizer names', async () => {
    const created = await kube.createNamespace('ns-finalize');
    const bad = await kube.request('PUT', `${ns('ns-finalize')}/finalize`, {
      ...created,
      spec: { finalizers: ['nope'] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toContain(
      'spec.finalizers[0]: Invalid value: "nope": name is neither a standard finalizer name nor is it fully qualified',
    );

    const finalized = await kube.request('PUT', `${ns('ns-finalize')}/finalize`, {
      ...created,
      spec: { finalizers: ['example.com/mine'] },
    });
    expect(finalized.status).toBe(200);
    expect(finalized.body['spec']).toEqual({ finalizers: ['example.com/mine'] });

    // The controller only removes its own finalizer; ours holds the namespace.
    await kube.delete(ns('ns-finalize'));
    await settle();
    const held = await kube.get(ns('ns-finalize'));
    expect(held.status).toBe(200);
    const done = await kube.request('PUT', `${ns('ns-finalize')}/finalize`, {
      ...held.body,
      spec: { finalizers: [] },
    });
    expect(done.status).toBe(200);
    expect(await kube.exists(ns('ns-finalize'))).toBe(false);
  });

  it('refuses to delete the namespaces the system needs', async () => {
    for (const name of ['default', 'kube-system', 'kube-public']) {
      const res = await kube.delete(ns(name));
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(
        `namespaces "${name}" is forbidden: this namespace may not be deleted`,
      );
    }
  });
});

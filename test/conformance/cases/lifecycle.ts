// Garbage collection and namespace deletion (semantics doc §9): behaviour of the whole control
// plane (kube-controller-manager's garbage collector and namespace controller on the real
// cluster; the embedded server's in-process controllers), observed through the API.
import { nsPath, observe, type ConformanceCase } from '../case.ts';
import type { Target } from '../target.ts';

type Obj = Record<string, unknown> & { metadata: Record<string, unknown> };

const CM = '/api/v1';

async function configMap(
  t: Target,
  ns: string,
  name: string,
  meta: Record<string, unknown> = {},
): Promise<Obj> {
  const res = await t.request('POST', nsPath(CM, ns, 'configmaps'), {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...meta } },
  });
  if (res.status !== 201)
    throw new Error(
      `${t.name}: create configmap ${name}: ${res.status} ${JSON.stringify(res.body)}`,
    );
  return res.body as Obj;
}

function ownedBy(owner: Obj, block = false): Record<string, unknown> {
  return {
    ownerReferences: [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: owner.metadata['name'],
        uid: owner.metadata['uid'],
        ...(block ? { blockOwnerDeletion: true } : {}),
      },
    ],
  };
}

/** Polls `read` until `done` holds or 30 s pass; returns whether it held. */
async function eventually(read: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 300; i++) {
    if (await read()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

const get = (t: Target, ns: string, name: string) =>
  t.request('GET', nsPath(CM, ns, 'configmaps', name));

export const LIFECYCLE_CASES: ConformanceCase[] = [
  {
    name: 'gc: background deletion removes dependents',
    run: async (t, ns, rec) => {
      const owner = await configMap(t, ns, 'owner');
      await configMap(t, ns, 'dep', ownedBy(owner));
      rec(
        'delete',
        (
          await t.request(
            'DELETE',
            `${nsPath(CM, ns, 'configmaps', 'owner')}?propagationPolicy=Background`,
          )
        ).status,
      );
      rec('dependent-gone', await eventually(async () => (await get(t, ns, 'dep')).status === 404));
    },
  },
  {
    name: 'gc: orphan deletion keeps dependents and drops their owner references',
    run: async (t, ns, rec) => {
      const owner = await configMap(t, ns, 'owner');
      await configMap(t, ns, 'dep', ownedBy(owner));
      const del = await t.request(
        'DELETE',
        `${nsPath(CM, ns, 'configmaps', 'owner')}?propagationPolicy=Orphan`,
      );
      rec('delete', observe(del));
      rec('owner-gone', await eventually(async () => (await get(t, ns, 'owner')).status === 404));
      rec('dependent', observe(await get(t, ns, 'dep')));
    },
  },
  {
    name: 'gc: foreground deletion waits for blocking dependents',
    run: async (t, ns, rec) => {
      const owner = await configMap(t, ns, 'owner');
      await configMap(t, ns, 'dep', { ...ownedBy(owner, true), finalizers: ['example.com/hold'] });
      const del = await t.request(
        'DELETE',
        `${nsPath(CM, ns, 'configmaps', 'owner')}?propagationPolicy=Foreground`,
      );
      rec('delete', observe(del));
      rec(
        'dependent-deleting',
        await eventually(
          async () =>
            typeof ((await get(t, ns, 'dep')).body as Obj).metadata?.['deletionTimestamp'] ===
            'string',
        ),
      );
      rec('owner-held', (await get(t, ns, 'owner')).status);
      await t.request('PATCH', nsPath(CM, ns, 'configmaps', 'dep'), {
        body: { metadata: { finalizers: null } },
        contentType: 'application/merge-patch+json',
      });
      rec('owner-gone', await eventually(async () => (await get(t, ns, 'owner')).status === 404));
    },
  },
  {
    name: 'gc: a dependent whose owner never existed is collected',
    run: async (t, ns, rec) => {
      await configMap(t, ns, 'dep', {
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'ghost',
            uid: '11111111-2222-3333-4444-555555555555',
          },
        ],
      });
      rec('dependent-gone', await eventually(async () => (await get(t, ns, 'dep')).status === 404));
    },
  },
  {
    name: 'namespaces: deletion goes through Terminating and removes the contents',
    run: async (t, ns, rec) => {
      await configMap(t, ns, 'inside');
      // A finalizer holds one object, so the namespace stays Terminating until it is released.
      await configMap(t, ns, 'held', { finalizers: ['example.com/hold'] });
      const del = await t.request('DELETE', `/api/v1/namespaces/${ns}`);
      const body = del.body as Obj;
      rec('delete-status', del.status);
      rec('phase', (body['status'] as Record<string, unknown> | undefined)?.['phase']);
      rec(
        'create-refused',
        observe(
          await t.request('POST', nsPath(CM, ns, 'configmaps'), {
            body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } },
          }),
        ),
      );
      rec(
        'contents-gone',
        await eventually(async () => (await get(t, ns, 'inside')).status === 404),
      );
      rec(
        'held',
        await eventually(
          async () =>
            typeof ((await get(t, ns, 'held')).body as Obj).metadata?.['deletionTimestamp'] ===
            'string',
        ),
      );
      await t.request('PATCH', nsPath(CM, ns, 'configmaps', 'held'), {
        body: { metadata: { finalizers: null } },
        contentType: 'application/merge-patch+json',
      });
      rec(
        'namespace-gone',
        await eventually(
          async () => (await t.request('GET', `/api/v1/namespaces/${ns}`)).status === 404,
        ),
      );
    },
  },
  {
    name: 'namespaces: deleting default is forbidden',
    run: async (t, _ns, rec) => {
      rec('delete', observe(await t.request('DELETE', '/api/v1/namespaces/default?dryRun=All')));
    },
  },
];

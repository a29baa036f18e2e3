// Cases run on every kind in kinds.ts: the verbs and their error paths (semantics doc §2–§5, §7).
import { nsPath, observe, type ConformanceCase } from '../case.ts';
import type { Target } from '../target.ts';
import { KINDS, objectOf, type KindUnderTest } from './kinds.ts';

type Obj = Record<string, unknown> & { metadata: Record<string, unknown> };

async function createOne(
  t: Target,
  k: KindUnderTest,
  ns: string,
  name: string,
  meta: Record<string, unknown> = {},
): Promise<Obj> {
  const res = await t.request('POST', nsPath(k.prefix, ns, k.plural), {
    body: objectOf(k, name, meta),
  });
  if (res.status !== 201)
    throw new Error(
      `${t.name}: create ${k.plural}/${name}: ${res.status} ${JSON.stringify(res.body)}`,
    );
  return res.body as Obj;
}

function kindCases(k: KindUnderTest): ConformanceCase[] {
  const path = (ns: string, name?: string) => nsPath(k.prefix, ns, k.plural, name);
  const c = (name: string, run: ConformanceCase['run']): ConformanceCase => ({
    name: `${k.plural}: ${name}`,
    run,
  });
  return [
    c('create returns 201 and the stored object', async (t, ns, rec) => {
      rec(
        'create',
        observe(
          await t.request('POST', path(ns), { body: objectOf(k, 'a', { labels: { x: 'y' } }) }),
        ),
      );
    }),
    c('get returns the object', async (t, ns, rec) => {
      await createOne(t, k, ns, 'a');
      rec('get', observe(await t.request('GET', path(ns, 'a'))));
    }),
    c('get of a missing object is 404 NotFound', async (t, ns, rec) => {
      rec('get', observe(await t.request('GET', path(ns, 'missing'))));
    }),
    c('create of an existing name is 409 AlreadyExists', async (t, ns, rec) => {
      await createOne(t, k, ns, 'a');
      rec('dup', observe(await t.request('POST', path(ns), { body: objectOf(k, 'a') })));
    }),
    c('create with generateName', async (t, ns, rec) => {
      const res = await t.request('POST', path(ns), {
        body: { ...objectOf(k, ''), metadata: { generateName: 'gen-' } },
      });
      const name = String(((res.body as Obj).metadata ?? {})['name'] ?? '');
      rec('status', res.status);
      rec('name', name.startsWith('gen-') && name.length === 9);
    }),
    c('create without name or generateName is 422', async (t, ns, rec) => {
      rec(
        'create',
        observe(await t.request('POST', path(ns), { body: { ...objectOf(k, ''), metadata: {} } })),
      );
    }),
    c('create with an invalid name is 422', async (t, ns, rec) => {
      rec('create', observe(await t.request('POST', path(ns), { body: objectOf(k, 'Bad_Name') })));
    }),
    c('create with resourceVersion set is refused', async (t, ns, rec) => {
      rec(
        'create',
        observe(
          await t.request('POST', path(ns), { body: objectOf(k, 'rv', { resourceVersion: '5' }) }),
        ),
      );
    }),
    c('create with a mismatched namespace is 400', async (t, ns, rec) => {
      rec(
        'create',
        observe(
          await t.request('POST', path(ns), { body: objectOf(k, 'a', { namespace: 'elsewhere' }) }),
        ),
      );
    }),
    c('create in a missing namespace is 404', async (t, _ns, rec) => {
      rec(
        'create',
        observe(await t.request('POST', path('no-such-namespace'), { body: objectOf(k, 'a') })),
      );
    }),
    c('dryRun create answers 201 and stores nothing', async (t, ns, rec) => {
      const res = await t.request('POST', `${path(ns)}?dryRun=All`, { body: objectOf(k, 'dry') });
      rec('status', res.status);
      rec('get', observe(await t.request('GET', path(ns, 'dry'))));
    }),
    c('list returns items in name order with list metadata', async (t, ns, rec) => {
      await createOne(t, k, ns, 'b');
      await createOne(t, k, ns, 'a');
      rec('list', observe(await t.request('GET', path(ns))));
    }),
    c('list with a label selector', async (t, ns, rec) => {
      await createOne(t, k, ns, 'a', { labels: { tier: 'x' } });
      await createOne(t, k, ns, 'b', { labels: { tier: 'y' } });
      await createOne(t, k, ns, 'c');
      rec('eq', observe(await t.request('GET', `${path(ns)}?labelSelector=tier%3Dx`)));
      rec('in', observe(await t.request('GET', `${path(ns)}?labelSelector=tier%20in%20(x,y)`)));
      rec('notexists', observe(await t.request('GET', `${path(ns)}?labelSelector=!tier`)));
    }),
    c('list with a bad label selector is 400', async (t, ns, rec) => {
      rec('bad', observe(await t.request('GET', `${path(ns)}?labelSelector=a%20in%20b`)));
    }),
    c('list with a field selector on metadata.name', async (t, ns, rec) => {
      await createOne(t, k, ns, 'a');
      await createOne(t, k, ns, 'b');
      rec('eq', observe(await t.request('GET', `${path(ns)}?fieldSelector=metadata.name%3Db`)));
      rec('neq', observe(await t.request('GET', `${path(ns)}?fieldSelector=metadata.name!%3Db`)));
    }),
    c('list with an unknown field selector is 400', async (t, ns, rec) => {
      rec('bad', observe(await t.request('GET', `${path(ns)}?fieldSelector=spec.nothing%3Dx`)));
    }),
    c('list pages with limit and continue', async (t, ns, rec) => {
      for (const n of ['a', 'b', 'c']) await createOne(t, k, ns, n);
      const first = await t.request('GET', `${path(ns)}?limit=2`);
      rec('first', observe(first));
      const token = String(((first.body as Obj).metadata ?? {})['continue'] ?? '');
      rec(
        'second',
        observe(
          await t.request('GET', `${path(ns)}?limit=2&continue=${encodeURIComponent(token)}`),
        ),
      );
    }),
    c('list with a malformed continue token is 400', async (t, ns, rec) => {
      rec('bad', observe(await t.request('GET', `${path(ns)}?limit=2&continue=notatoken`)));
    }),
    c('update with the current resourceVersion', async (t, ns, rec) => {
      const obj = await createOne(t, k, ns, 'a');
      k.mutate(obj);
      rec('update', observe(await t.request('PUT', path(ns, 'a'), { body: obj })));
    }),
    c('update with a stale resourceVersion is 409 Conflict', async (t, ns, rec) => {
      const obj = await createOne(t, k, ns, 'a');
      const fresh = structuredClone(obj);
      k.mutate(fresh);
      await t.request('PUT', path(ns, 'a'), { body: fresh });
      (obj.metadata as Record<string, unknown>)['labels'] = { stale: 'yes' };
      rec('stale', observe(await t.request('PUT', path(ns, 'a'), { body: obj })));
    }),
    c('update without resourceVersion', async (t, ns, rec) => {
      const obj = await createOne(t, k, ns, 'a');
      delete obj.metadata['resourceVersion'];
      k.mutate(obj);
      rec('update', observe(await t.request('PUT', path(ns, 'a'), { body: obj })));
    }),
    c('update with a different name in the body is 400', async (t, ns, rec) => {
      const obj = await createOne(t, k, ns, 'a');
      obj.metadata['name'] = 'b';
      rec('update', observe(await t.request('PUT', path(ns, 'a'), { body: obj })));
    }),
    c('update of a missing object is 404', async (t, ns, rec) => {
      const obj = objectOf(k, 'missing', { resourceVersion: '1' });
      rec('update', observe(await t.request('PUT', path(ns, 'missing'), { body: obj })));
    }),
    c('update that changes nothing keeps the resourceVersion', async (t, ns, rec) => {
      const obj = await createOne(t, k, ns, 'a');
      const res = await t.request('PUT', path(ns, 'a'), { body: obj });
      rec(
        'same-rv',
        ((res.body as Obj).metadata ?? {})['resourceVersion'] === obj.metadata['resourceVersion'],
      );
    }),
    c('merge patch of labels', async (t, ns, rec) => {
      await createOne(t, k, ns, 'a', { labels: { keep: '1', drop: '2' } });
      rec(
        'patch',
        observe(
          await t.request('PATCH', path(ns, 'a'), {
            body: { metadata: { labels: { add: '3', drop: null } } },
            contentType: 'application/merge-patch+json',
          }),
        ),
      );
    }),
    c('JSON patch adding an annotation', async (t, ns, rec) => {
      await createOne(t, k, ns, 'a');
      rec(
        'patch',
        observe(
          await t.request('PATCH', path(ns, 'a'), {
            body: [{ op: 'add', path: '/metadata/annotations', value: { n: 'v' } }],
            contentType: 'application/json-patch+json',
          }),
        ),
      );
    }),
    c('JSON patch with a failing test op is 422', async (t, ns, rec) => {
      await createOne(t, k, ns, 'a');
      rec(
        'patch',
        observe(
          await t.request('PATCH', path(ns, 'a'), {
            body: [{ op: 'test', path: '/metadata/name', value: 'zzz' }],
            contentType: 'application/json-patch+json',
          }),
        ),
      );
    }),
    c('strategic merge patch', async (t, ns, rec) => {
      await createOne(t, k, ns, 'a');
      rec(
        'patch',
        observe(
          await t.request('PATCH', path(ns, 'a'), {
            body: { metadata: { labels: { s: 'm' } } },
            contentType: 'application/strategic-merge-patch+json',
          }),
        ),
      );
    }),
    c('patch with an unsupported content type is 415', async (t, ns, rec) => {
      await createOne(t, k, ns, 'a');
      rec(
        'patch',
        observe(await t.request('PATCH', path(ns, 'a'), { body: {}, contentType: 'text/plain' })),
      );
    }),
    c('patch of a missing object is 404', async (t, ns, rec) => {
      rec(
        'patch',
        observe(
          await t.request('PATCH', path(ns, 'missing'), {
            body: {},
            contentType: 'application/merge-patch+json',
          }),
        ),
      );
    }),
    c('server-side apply creates, then re-applies without change', async (t, ns, rec) => {
      const body = objectOf(k, 'applied');
      rec(
        'create',
        observe(
          await t.request('PATCH', `${path(ns, 'applied')}?fieldManager=conf`, {
            body,
            contentType: 'application/apply-patch+yaml',
          }),
        ),
      );
      rec(
        'again',
        observe(
          await t.request('PATCH', `${path(ns, 'applied')}?fieldManager=conf`, {
            body,
            contentType: 'application/apply-patch+yaml',
          }),
        ),
      );
    }),
    c('server-side apply without fieldManager is 422', async (t, ns, rec) => {
      rec(
        'apply',
        observe(
          await t.request('PATCH', path(ns, 'x'), {
            body: objectOf(k, 'x'),
            contentType: 'application/apply-patch+yaml',
          }),
        ),
      );
    }),
    c('server-side apply conflict between managers is 409', async (t, ns, rec) => {
      await t.request('PATCH', `${path(ns, 'c')}?fieldManager=one`, {
        body: objectOf(k, 'c', { labels: { owner: 'one' } }),
        contentType: 'application/apply-patch+yaml',
      });
      rec(
        'conflict',
        observe(
          await t.request('PATCH', `${path(ns, 'c')}?fieldManager=two`, {
            body: objectOf(k, 'c', { labels: { owner: 'two' } }),
            contentType: 'application/apply-patch+yaml',
          }),
        ),
      );
      rec(
        'forced',
        observe(
          await t.request('PATCH', `${path(ns, 'c')}?fieldManager=two&force=true`, {
            body: objectOf(k, 'c', { labels: { owner: 'two' } }),
            contentType: 'application/apply-patch+yaml',
          }),
        ),
      );
    }),
    c('force on a non-apply patch is 422', async (t, ns, rec) => {
      await createOne(t, k, ns, 'a');
      rec(
        'patch',
        observe(
          await t.request('PATCH', `${path(ns, 'a')}?force=true`, {
            body: {},
            contentType: 'application/merge-patch+json',
          }),
        ),
      );
    }),
    c('delete returns what kube returns', async (t, ns, rec) => {
      await createOne(t, k, ns, 'a');
      rec('delete', observe(await t.request('DELETE', path(ns, 'a'))));
      rec('get', observe(await t.request('GET', path(ns, 'a'))));
    }),
    c('delete of a missing object is 404', async (t, ns, rec) => {
      rec('delete', observe(await t.request('DELETE', path(ns, 'missing'))));
    }),
    c('delete with a failing uid precondition is 409', async (t, ns, rec) => {
      await createOne(t, k, ns, 'a');
      rec(
        'delete',
        observe(
          await t.request('DELETE', path(ns, 'a'), {
            body: { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } },
          }),
        ),
      );
    }),
    c('delete with a finalizer waits for it', async (t, ns, rec) => {
      await createOne(t, k, ns, 'a', { finalizers: ['example.com/hold'] });
      const del = await t.request('DELETE', path(ns, 'a'));
      const meta = ((del.body as Obj).metadata ?? {}) as Record<string, unknown>;
      rec('delete-status', del.status);
      rec('marked', typeof meta['deletionTimestamp'] === 'string');
      rec(
        'add-finalizer',
        observe(
          await t.request('PATCH', path(ns, 'a'), {
            body: { metadata: { finalizers: ['example.com/hold', 'example.com/new'] } },
            contentType: 'application/merge-patch+json',
          }),
        ),
      );
      rec(
        'release',
        (
          await t.request('PATCH', path(ns, 'a'), {
            body: { metadata: { finalizers: null } },
            contentType: 'application/merge-patch+json',
          })
        ).status,
      );
      rec('gone', observe(await t.request('GET', path(ns, 'a'))));
    }),
    c('delete with an unknown propagation policy is 422', async (t, ns, rec) => {
      await createOne(t, k, ns, 'a');
      rec(
        'delete',
        observe(await t.request('DELETE', `${path(ns, 'a')}?propagationPolicy=Sometimes`)),
      );
    }),
    c('deletecollection with a label selector', async (t, ns, rec) => {
      await createOne(t, k, ns, 'a', { labels: { del: 'yes' } });
      await createOne(t, k, ns, 'b');
      rec('deleted', (await t.request('DELETE', `${path(ns)}?labelSelector=del%3Dyes`)).status);
      rec('left', observe(await t.request('GET', path(ns))));
    }),
    c('watch from a resourceVersion sees ADDED, MODIFIED, DELETED', async (t, ns, rec) => {
      const list = await t.request('GET', path(ns));
      const rv = String(((list.body as Obj).metadata ?? {})['resourceVersion'] ?? '');
      const events = await t.watch(
        `${path(ns)}?watch=true&resourceVersion=${rv}`,
        3,
        10_000,
        async () => {
          const obj = await createOne(t, k, ns, 'w');
          k.mutate(obj);
          await t.request('PUT', path(ns, 'w'), { body: obj });
          await t.request('DELETE', path(ns, 'w'));
        },
      );
      rec('events', events);
    }),
    c('watch without resourceVersion starts with the current objects', async (t, ns, rec) => {
      await createOne(t, k, ns, 'a');
      await createOne(t, k, ns, 'b');
      // The real cluster also has kube-root-ca.crt in every namespace (see normalize.ts).
      const expected = t.name === 'cluster' && k.plural === 'configmaps' ? 3 : 2;
      rec('events', await t.watch(`${path(ns)}?watch=true`, expected, 10_000));
    }),
    c('watch with a label selector reports membership changes', async (t, ns, rec) => {
      const list = await t.request('GET', path(ns));
      const rv = String(((list.body as Obj).metadata ?? {})['resourceVersion'] ?? '');
      const events = await t.watch(
        `${path(ns)}?watch=true&resourceVersion=${rv}&labelSelector=sel%3Don`,
        2,
        10_000,
        async () => {
          await createOne(t, k, ns, 'm');
          await t.request('PATCH', path(ns, 'm'), {
            body: { metadata: { labels: { sel: 'on' } } },
            contentType: 'application/merge-patch+json',
          });
          await t.request('PATCH', path(ns, 'm'), {
            body: { metadata: { labels: { sel: 'off' } } },
            contentType: 'application/merge-patch+json',
          });
        },
      );
      rec(
        'events',
        events.map((e) => (e as { type: string }).type),
      );
    }),
  ];
}

export const PER_KIND_CASES: ConformanceCase[] = KINDS.flatMap(kindCases);

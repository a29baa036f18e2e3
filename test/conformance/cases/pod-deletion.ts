// Graceful Pod deletion (kubelet-and-oci §2.1): a DELETE of a bound, non-terminal Pod only marks
// it (deletionTimestamp = now + grace, deletionGracePeriodSeconds = grace) and the object stays
// for its kubelet; a later DELETE may shorten the grace, never lengthen it; grace 0, an unbound
// Pod and a terminal Pod go at once. The Pods are bound to a node that does not exist, so no
// kubelet (nor kwok, on the cluster) acts on them while the case runs.
import { nsPath, observe, type ConformanceCase } from '../case.ts';
import type { HttpResult, Target } from '../target.ts';
import { V1, createPod, pod, waitForDefaultServiceAccount } from './pods.ts';

type Json = Record<string, unknown>;

const NOWHERE = 'conformance-no-such-node';

function meta(res: HttpResult): Json {
  const body = res.body as Json | undefined;
  return ((body?.['metadata'] as Json | undefined) ?? {}) as Json;
}

/**
 * What a DELETE answered: code, kind, grace, generation, and whether the deletionTimestamp is
 * `since` + grace (within the two seconds that whole-second timestamps and a loaded machine
 * allow; `since` is when the deletion that set it was sent).
 */
function deletion(res: HttpResult, since: number): unknown {
  const body = res.body as Json | undefined;
  if (body?.['kind'] === 'Status') return observe(res);
  const m = meta(res);
  const ts = m['deletionTimestamp'];
  const grace = m['deletionGracePeriodSeconds'];
  return {
    code: res.status,
    kind: body?.['kind'],
    grace: grace ?? null,
    generation: m['generation'],
    onTime:
      typeof ts === 'string' && typeof grace === 'number'
        ? Math.abs(Date.parse(ts) - since - grace * 1000) <= 2000
        : null,
  };
}

async function del(
  t: Target,
  path: string,
  query = '',
  body?: Json,
  since?: number,
): Promise<unknown> {
  const at = Date.now();
  const res = await t.request('DELETE', `${path}${query}`, body ? { body } : {});
  return deletion(res, since ?? at);
}

export const POD_DELETION_CASES: ConformanceCase[] = [
  {
    name: 'pods: graceful deletion marks a bound Pod; a later DELETE only shortens; grace 0 removes',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      await createPod(t, ns, pod('a', { nodeName: NOWHERE, terminationGracePeriodSeconds: 40 }));
      const path = nsPath(V1, ns, 'pods', 'a');
      const since = Date.now();
      rec('first', await del(t, path));
      const first = meta(await t.request('GET', path));
      rec('still there', first['deletionGracePeriodSeconds']);
      // The kubelet's status writes while it stops the containers keep the object.
      const status = await t.request('PATCH', `${path}/status`, {
        contentType: 'application/merge-patch+json',
        body: { status: { phase: 'Failed' } },
      });
      rec('status write', { code: status.status, kept: (await t.request('GET', path)).status });
      rec('longer', await del(t, path, '?gracePeriodSeconds=100', undefined, since));
      rec('same', await del(t, path, '', { apiVersion: 'v1', kind: 'DeleteOptions' }, since));
      const shorter = await t.request('DELETE', path, {
        body: { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 25 },
      });
      const moved =
        (Date.parse(String(first['deletionTimestamp'])) -
          Date.parse(String(meta(shorter)['deletionTimestamp']))) /
        1000;
      rec('shorter', { grace: meta(shorter)['deletionGracePeriodSeconds'], moved });
      rec(
        'uid mismatch',
        observe(
          await t.request('DELETE', `${path}?gracePeriodSeconds=0`, {
            body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: 'nope' } },
          }),
        ),
      );
      rec(
        'force',
        await del(t, path, '', {
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          gracePeriodSeconds: 0,
          preconditions: { uid: first['uid'] },
        }),
      );
      rec('gone', (await t.request('GET', path)).status);
    },
  },
  {
    name: 'pods: an unbound Pod, a terminal Pod and a negative grace',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      await createPod(t, ns, pod('unbound'));
      rec('unbound', await del(t, nsPath(V1, ns, 'pods', 'unbound')));
      rec('unbound gone', (await t.request('GET', nsPath(V1, ns, 'pods', 'unbound'))).status);
      await createPod(t, ns, pod('done', { nodeName: NOWHERE }));
      const done = nsPath(V1, ns, 'pods', 'done');
      await t.request('PATCH', `${done}/status`, {
        contentType: 'application/merge-patch+json',
        body: { status: { phase: 'Succeeded' } },
      });
      rec('terminal', await del(t, done, '?gracePeriodSeconds=30'));
      rec('terminal gone', (await t.request('GET', done)).status);
      await createPod(t, ns, pod('neg', { nodeName: NOWHERE }));
      const neg = nsPath(V1, ns, 'pods', 'neg');
      rec('negative', await del(t, neg, '?gracePeriodSeconds=-5'));
      await t.request('DELETE', `${neg}?gracePeriodSeconds=0`);
      await createPod(
        t,
        ns,
        pod('held', { nodeName: NOWHERE }, { finalizers: ['example.com/hold'] }),
      );
      const held = nsPath(V1, ns, 'pods', 'held');
      rec('finalizer, grace 0', await del(t, held, '?gracePeriodSeconds=0'));
      rec('held', (await t.request('GET', held)).status);
      await t.request('PATCH', held, {
        contentType: 'application/json-patch+json',
        body: [{ op: 'remove', path: '/metadata/finalizers' }],
      });
      rec('released', (await t.request('GET', held)).status);
    },
  },
  {
    name: 'pods: watchers of a graceful deletion see MODIFIED with the grace, then DELETED',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      const created = await createPod(t, ns, pod('w', { nodeName: NOWHERE }));
      const rv = String(meta(created)['resourceVersion']);
      const path = nsPath(V1, ns, 'pods', 'w');
      const events = await t.watch(
        `${nsPath(V1, ns, 'pods')}?watch=true&resourceVersion=${rv}`,
        6,
        10_000,
        async () => {
          await t.request('DELETE', `${path}?gracePeriodSeconds=20`);
          await t.request('DELETE', `${path}?gracePeriodSeconds=0`);
          await createPod(t, ns, pod('unbound'));
          await t.request('DELETE', nsPath(V1, ns, 'pods', 'unbound'));
        },
      );
      rec(
        'events',
        events.map((e) => {
          const ev = e as { type: string; object: Json };
          const m = ev.object['metadata'] as Json;
          return {
            type: ev.type,
            name: m['name'],
            grace: m['deletionGracePeriodSeconds'] ?? null,
            marked: m['deletionTimestamp'] !== undefined,
          };
        }),
      );
    },
  },
];

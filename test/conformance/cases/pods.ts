// Pod strategy cases (kube's pkg/registry/core/pod): status on create replaced by Pending and
// the QoS class, status kept by the main resource and spec kept by pods/status, generation on
// spec changes only, pods/binding and the legacy bindings collection, and their discovery
// entries. Pods name a scheduler that does not exist so the real cluster's kube-scheduler leaves
// them alone; only server-owned parts are recorded here (defaulting and the admission plugins'
// additions are compared whole in pod-defaults.ts).
import { nsPath, observe, type ConformanceCase } from '../case.ts';
import type { HttpResult, Target } from '../target.ts';

type Json = Record<string, unknown>;

export const V1 = '/api/v1';
/** No scheduler serves this name, so Pods stay unbound until a case binds them. */
export const NO_SCHEDULER = 'conformance-unscheduled';

export function pod(name: string, spec: Json = {}, meta: Json = {}): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...meta },
    spec: {
      schedulerName: NO_SCHEDULER,
      containers: [{ name: 'c', image: 'busybox:1.36' }],
      ...spec,
    },
  };
}

/**
 * The real cluster's ServiceAccount admission refuses Pods until the namespace's `default`
 * ServiceAccount exists (kube-controller-manager creates it shortly after the namespace).
 */
export async function waitForDefaultServiceAccount(t: Target, ns: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const res = await t.request('GET', nsPath(V1, ns, 'serviceaccounts', 'default'));
    if (res.status === 200) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function createPod(t: Target, ns: string, body: Json): Promise<HttpResult> {
  return t.request('POST', nsPath(V1, ns, 'pods'), { body });
}

function bodyOf(res: HttpResult): Json {
  return typeof res.body === 'object' && res.body !== null ? (res.body as Json) : {};
}

/**
 * The server-owned parts of a Pod answer: code, generation, nodeName, labels, annotations, the
 * first image, status.
 */
function podState(res: HttpResult): unknown {
  const body = bodyOf(res);
  if (body['kind'] === 'Status') return observe(res);
  const meta = (body['metadata'] ?? {}) as Json;
  const spec = (body['spec'] ?? {}) as Json;
  return {
    code: res.status,
    generation: meta['generation'],
    labels: meta['labels'] ?? null,
    annotations: meta['annotations'] ?? null,
    nodeName: spec['nodeName'] ?? null,
    image: ((spec['containers'] as Json[] | undefined)?.[0] ?? {})['image'],
    status: body['status'],
  };
}

async function getPod(t: Target, ns: string, name: string): Promise<unknown> {
  return podState(await t.request('GET', nsPath(V1, ns, 'pods', name)));
}

/**
 * Bound Pods on nodes that do not exist would hold the real cluster's namespace deletion until
 * the Pod garbage collector removes them; cases delete them at once instead.
 */
async function forceDelete(t: Target, ns: string, ...names: string[]): Promise<void> {
  for (const name of names)
    await t.request('DELETE', `${nsPath(V1, ns, 'pods', name)}?gracePeriodSeconds=0`);
}

function binding(name: string, target: Json, meta: Json = {}): Json {
  return { apiVersion: 'v1', kind: 'Binding', metadata: { name, ...meta }, target };
}

async function bind(t: Target, ns: string, name: string, body: Json, query = ''): Promise<unknown> {
  const path = `${nsPath(V1, ns, 'pods', name)}/binding${query}`;
  return observe(await t.request('POST', path, { body }));
}

const resources = (requests?: Json, limits?: Json): Json => ({
  ...(requests ? { requests } : {}),
  ...(limits ? { limits } : {}),
});

/** [what, Pod spec] pairs covering each QoS rule. */
const QOS_SPECS: [string, Json][] = [
  ['no resources', {}],
  [
    'only ephemeral-storage',
    {
      containers: [{ name: 'c', image: 'x', resources: resources({ 'ephemeral-storage': '1Gi' }) }],
    },
  ],
  [
    'cpu request only',
    { containers: [{ name: 'c', image: 'x', resources: resources({ cpu: '100m' }) }] },
  ],
  [
    'limits only (requests default to them)',
    {
      containers: [
        { name: 'c', image: 'x', resources: resources(undefined, { cpu: '1', memory: '1Gi' }) },
      ],
    },
  ],
  [
    'equal requests and limits written differently',
    {
      containers: [
        {
          name: 'c',
          image: 'x',
          resources: resources({ cpu: '500m', memory: '1Gi' }, { cpu: '0.5', memory: '1024Mi' }),
        },
      ],
    },
  ],
  [
    'requests below limits',
    {
      containers: [
        {
          name: 'c',
          image: 'x',
          resources: resources({ cpu: '250m', memory: '1Gi' }, { cpu: '500m', memory: '1Gi' }),
        },
      ],
    },
  ],
  [
    'a zero request',
    { containers: [{ name: 'c', image: 'x', resources: resources({ cpu: '0' }) }] },
  ],
  [
    'a guaranteed container beside a best-effort one',
    {
      containers: [
        { name: 'c', image: 'x', resources: resources(undefined, { cpu: '1', memory: '1Gi' }) },
        { name: 'd', image: 'x' },
      ],
    },
  ],
  [
    'a best-effort init container beside a guaranteed container',
    {
      initContainers: [{ name: 'i', image: 'x' }],
      containers: [
        { name: 'c', image: 'x', resources: resources(undefined, { cpu: '1', memory: '1Gi' }) },
      ],
    },
  ],
  [
    'a burstable init container',
    {
      initContainers: [{ name: 'i', image: 'x', resources: resources({ memory: '10Mi' }) }],
      containers: [{ name: 'c', image: 'x' }],
    },
  ],
  [
    'pod-level limits',
    {
      resources: resources(undefined, { cpu: '1', memory: '1Gi' }),
      containers: [{ name: 'c', image: 'x' }],
    },
  ],
  [
    'pod-level requests only',
    { resources: resources({ cpu: '1' }), containers: [{ name: 'c', image: 'x' }] },
  ],
];

export const POD_CASES: ConformanceCase[] = [
  {
    name: 'pods: a status sent on create is discarded for phase Pending and the QoS class',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      const body = pod('a');
      body['status'] = {
        phase: 'Running',
        podIP: '10.1.2.3',
        qosClass: 'Guaranteed',
        conditions: [{ type: 'Ready', status: 'True' }],
      };
      rec('create', podState(await createPod(t, ns, body)));
      rec('get', await getPod(t, ns, 'a'));
      // Without a qosClass in the discarded status the server computes it.
      const computed = pod('b', {
        containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '1', memory: '1Gi' } } }],
      });
      computed['status'] = { phase: 'Failed', podIP: '10.1.2.4' };
      rec('computed', podState(await createPod(t, ns, computed)));
    },
  },
  {
    name: 'pods: a name that is no DNS label is accepted with a warning',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      for (const name of ['a.b', 'x'.repeat(64), 'plain']) {
        const res = await createPod(t, ns, pod(name));
        rec(name, { code: res.status, warning: res.headers['warning'] ?? null });
      }
    },
  },
  {
    name: 'pods: qosClass from containers, init containers and pod-level resources',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      for (const [i, [what, spec]] of QOS_SPECS.entries()) {
        const res = await createPod(t, ns, pod(`q${i}`, spec));
        rec(what, res.status === 201 ? (bodyOf(res)['status'] as Json)['qosClass'] : observe(res));
      }
    },
  },
  {
    name: 'pods: the main resource keeps the status, pods/status keeps the spec but takes labels',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      await createPod(t, ns, pod('a', { restartPolicy: 'Always' }));
      const path = nsPath(V1, ns, 'pods', 'a');
      const merge = (p: string, body: Json) =>
        t.request('PATCH', p, { contentType: 'application/merge-patch+json', body });
      rec('status via main', podState(await merge(path, { status: { phase: 'Running' } })));
      rec(
        'spec and labels via status',
        podState(
          await merge(`${path}/status`, {
            metadata: { labels: { via: 'status' } },
            spec: { restartPolicy: 'Never' },
            status: { phase: 'Running', qosClass: null, podIP: '10.1.2.3' },
          }),
        ),
      );
      rec('get', await getPod(t, ns, 'a'));
      const spec = bodyOf(await t.request('GET', path))['spec'] as Json;
      rec('restartPolicy', spec['restartPolicy']);
    },
  },
  {
    name: 'pods: generation starts at 1 and bumps on spec changes only',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      await createPod(t, ns, pod('a'));
      const path = nsPath(V1, ns, 'pods', 'a');
      const jsonPatch = (body: unknown[]) =>
        t.request('PATCH', path, { contentType: 'application/json-patch+json', body });
      rec(
        'label',
        podState(await jsonPatch([{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }])),
      );
      rec(
        'image',
        podState(
          await jsonPatch([
            { op: 'replace', path: '/spec/containers/0/image', value: 'busybox:1.37' },
          ]),
        ),
      );
      rec(
        'activeDeadlineSeconds',
        podState(await jsonPatch([{ op: 'add', path: '/spec/activeDeadlineSeconds', value: 60 }])),
      );
    },
  },
  {
    name: 'pods/binding: binds the Pod with PodScheduled and the Binding annotations and labels',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      await createPod(t, ns, pod('a', {}, { labels: { app: 'x' } }));
      rec(
        'bind',
        await bind(
          t,
          ns,
          'a',
          binding('a', { name: 'node-x' }, { annotations: { note: 'y' }, labels: { zone: 'z' } }),
        ),
      );
      rec('get', await getPod(t, ns, 'a'));
      await forceDelete(t, ns, 'a');
    },
  },
  {
    name: 'pods/binding: binding a bound Pod is 409 naming its node',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      await createPod(t, ns, pod('a'));
      rec('first', await bind(t, ns, 'a', binding('a', { name: 'node-x' })));
      rec('second', await bind(t, ns, 'a', binding('a', { kind: 'Node', name: 'node-y' })));
      rec('get', await getPod(t, ns, 'a'));
      await forceDelete(t, ns, 'a');
    },
  },
  {
    name: 'pods/binding: bad Bindings, a missing Pod, preconditions and dryRun',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      await createPod(t, ns, pod('a'));
      rec('name mismatch', await bind(t, ns, 'a', binding('b', { name: 'n' })));
      rec('no target name', await bind(t, ns, 'a', binding('a', {})));
      rec('target kind Pod', await bind(t, ns, 'a', binding('a', { kind: 'Pod', name: 'n' })));
      rec('both', await bind(t, ns, 'a', binding('a', { kind: 'Pod' })));
      rec('not a Binding', await bind(t, ns, 'a', { ...binding('a', { name: 'n' }), kind: 'Pod' }));
      rec('missing pod', await bind(t, ns, 'nope', binding('nope', { name: 'n' })));
      rec(
        'another apiVersion',
        await bind(t, ns, 'a', { ...binding('a', { name: 'n' }), apiVersion: 'v2' }),
      );
      rec('get', observe(await t.request('GET', `${nsPath(V1, ns, 'pods', 'a')}/binding`)));
      const uid = '00000000-0000-0000-0000-000000000001';
      rec('uid precondition', await bind(t, ns, 'a', binding('a', { name: 'n' }, { uid })));
      rec('dry run', await bind(t, ns, 'a', binding('a', { name: 'n' }), '?dryRun=All'));
      rec('after', await getPod(t, ns, 'a'));
    },
  },
  {
    name: 'pods/binding: a terminating Pod is 409, a stale resourceVersion precondition is 409',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      const created = await createPod(t, ns, pod('a', {}, { finalizers: ['example.com/hold'] }));
      const rv = String((bodyOf(created)['metadata'] as Json)['resourceVersion']);
      await createPod(t, ns, pod('b'));
      const stale = (await bind(
        t,
        ns,
        'b',
        binding('b', { name: 'n' }, { resourceVersion: rv }),
      )) as Json;
      // resourceVersions are each server's own numbers.
      rec('stale', { ...stale, message: String(stale['message']).replace(/: \d+/g, ': <rv>') });
      const path = nsPath(V1, ns, 'pods', 'a');
      rec('delete', (await t.request('DELETE', path)).status);
      rec('terminating', await bind(t, ns, 'a', binding('a', { name: 'n' })));
      const release = [{ op: 'remove', path: '/metadata/finalizers' }];
      await t.request('PATCH', path, { contentType: 'application/json-patch+json', body: release });
      rec('gone', (await t.request('GET', path)).status);
    },
  },
  {
    name: 'pods/binding: watchers see one MODIFIED event with the node and PodScheduled',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      const created = await createPod(t, ns, pod('a'));
      const rv = String((bodyOf(created)['metadata'] as Json)['resourceVersion']);
      const events = await t.watch(
        `${nsPath(V1, ns, 'pods')}?watch=true&resourceVersion=${rv}`,
        1,
        10_000,
        async () => {
          await bind(t, ns, 'a', binding('a', { name: 'node-w' }));
        },
      );
      rec(
        'events',
        events.map((e) => {
          const ev = e as { type: string; object: Json };
          const status = (ev.object['status'] ?? {}) as Json;
          return {
            type: ev.type,
            generation: (ev.object['metadata'] as Json)['generation'],
            nodeName: (ev.object['spec'] as Json)['nodeName'],
            conditions: status['conditions'],
          };
        }),
      );
      await forceDelete(t, ns, 'a');
    },
  },
  {
    name: 'bindings: the legacy collection binds; reading it is 405',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      await createPod(t, ns, pod('a'));
      const path = nsPath(V1, ns, 'bindings');
      rec(
        'create',
        observe(await t.request('POST', path, { body: binding('a', { name: 'node-z' }) })),
      );
      rec(
        'again',
        observe(await t.request('POST', path, { body: binding('a', { name: 'node-z' }) })),
      );
      rec('list', observe(await t.request('GET', path)));
      const unnamed = { apiVersion: 'v1', kind: 'Binding', metadata: {}, target: { name: 'n' } };
      rec('no name', observe(await t.request('POST', path, { body: unnamed })));
      rec('get', await getPod(t, ns, 'a'));
      await forceDelete(t, ns, 'a');
    },
  },
  {
    name: 'discovery: bindings and pods/binding entries, legacy and aggregated',
    run: async (t, _ns, rec) => {
      const legacy = (await t.request('GET', V1)).body as Json;
      rec(
        'legacy',
        (legacy['resources'] as Json[]).filter((r) =>
          ['bindings', 'pods/binding', 'pods/status'].includes(String(r['name'])),
        ),
      );
      const aggregated = await t.request('GET', '/api', {
        accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
      });
      const resources = (
        ((aggregated.body as Json)['items'] as Json[])[0]?.['versions'] as Json[]
      )[0]?.['resources'] as Json[];
      const bindings = resources.find((r) => r['resource'] === 'bindings');
      const pods = resources.find((r) => r['resource'] === 'pods');
      rec('aggregated bindings', bindings);
      rec(
        'aggregated pods/binding',
        (pods?.['subresources'] as Json[] | undefined)?.find((s) => s['subresource'] === 'binding'),
      );
    },
  },
];

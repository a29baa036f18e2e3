// Hostile requests (issue 15): methods kube routes nowhere, malformed parameters, oversized
// bodies and names. Both servers must answer the same status, reason and message; none may crash
// or answer a 5xx where kube answers a 4xx. Only requests that change nothing outside the case's
// namespace are sent: the cluster is shared.
import { observe, type ConformanceCase } from '../case.ts';
import type { HttpResult } from '../target.ts';
import { pod, waitForDefaultServiceAccount } from './pods.ts';

/** A Status answer in full; a success by its code alone (documents differ between servers). */
export function brief(res: HttpResult): unknown {
  const seen = observe(res) as { body?: unknown };
  if (res.status < 300 && seen.body !== undefined) return { status: res.status };
  return seen;
}

/** Methods kube-apiserver's router does not serve, on paths of each kind of handler. */
const METHOD_PATHS = (ns: string): string[] => [
  '/version',
  '/api',
  '/api/v1',
  '/apis',
  '/apis/coordination.k8s.io',
  '/apis/coordination.k8s.io/v1',
  '/healthz',
  '/readyz',
  `/api/v1/namespaces/${ns}/configmaps`,
  `/api/v1/namespaces/${ns}/configmaps/x`,
  `/api/v1/namespaces/${ns}/configmaps/x/status`,
  '/api/v1/nosuch',
  '/apis/nosuch.example.com/v1/things',
];

const UNROUTED_METHODS = ['TRACE', 'OPTIONS', 'HEAD', 'PROPFIND', 'MKCOL', 'PURGE'];

export const HOSTILE_CASES: ConformanceCase[] = [
  {
    name: 'hostile: methods kube routes nowhere answer 405 on known paths, 404 elsewhere',
    async run(t, ns, record) {
      for (const method of UNROUTED_METHODS)
        for (const path of METHOD_PATHS(ns))
          record(`${method} ${path}`, brief(await t.requestOnce(method, path)));
    },
  },
  {
    name: 'hostile: POST, PUT, PATCH and DELETE on discovery and version paths',
    async run(t, _ns, record) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'])
        for (const path of [
          '/version',
          '/api',
          '/api/v1',
          '/apis',
          '/apis/coordination.k8s.io/v1',
          '/livez',
        ])
          record(`${method} ${path}`, brief(await t.requestOnce(method, path, { body: {} })));
    },
  },
];

/** List query parameters, each as kube parses (or ignores) it. */
const LIST_QUERIES = [
  'resourceVersion=99999999999999999999999',
  'resourceVersion=-5',
  'resourceVersion=abc',
  'resourceVersion=0x10',
  'resourceVersion=%20',
  'limit=-1',
  'limit=abc',
  'limit=0',
  'limit=1.5',
  'limit=99999999999999999999',
  'timeoutSeconds=abc',
  'timeoutSeconds=-1',
  'allowWatchBookmarks=maybe',
  'resourceVersionMatch=Foo',
  'resourceVersionMatch=NotOlderThan',
  'resourceVersionMatch=Exact',
  'resourceVersionMatch=Exact&resourceVersion=0',
  'resourceVersionMatch=NotOlderThan&resourceVersion=1',
  'sendInitialEvents=maybe',
  'sendInitialEvents=true',
  'continue=garbage',
  'continue=',
  'limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiIn0',
  'labelSelector=a%3D%3D%3Db',
  'labelSelector=a%20in%20(',
  'fieldSelector=metadata.name%3D%3D%3Dx',
  'fieldSelector=spec.nosuch%3Dx',
  `labelSelector=${Array.from({ length: 5000 }, (_, i) => `k${i}=v`).join(',')}`,
  'pretty=maybe',
  'nosuchparameter=1',
];

export const PARAMETER_CASES: ConformanceCase[] = [
  {
    name: 'hostile: malformed list parameters',
    async run(t, ns, record) {
      for (const q of LIST_QUERIES) {
        const res = await t.requestOnce('GET', `/api/v1/namespaces/${ns}/configmaps?${q}`);
        record(q.slice(0, 80), brief(res));
      }
    },
  },
];

function configMap(name: string, data: Record<string, string> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

/** `{"a":{"a":…1…}}`, `depth` objects deep. */
export function nested(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

const WATCH_QUERIES = [
  'timeoutSeconds=abc',
  'limit=abc',
  'sendInitialEvents=true',
  'sendInitialEvents=maybe',
  'resourceVersionMatch=Exact&resourceVersion=5',
  'resourceVersionMatch=NotOlderThan&resourceVersion=5',
  'resourceVersion=-5',
  'resourceVersion=abc',
  'resourceVersion=99999999999999999999999',
  'continue=abc',
  'labelSelector=a%3D%3D%3Db',
];

PARAMETER_CASES.push(
  {
    name: 'hostile: malformed watch parameters',
    async run(t, ns, record) {
      // A negative timeout ends the watch at once; kube sometimes sends its "context deadline
      // exceeded" ERROR event first and sometimes not (a race in its handler), so only the end
      // and the absence of object events are compared.
      const started = Date.now();
      const expired = await t.watch(
        `/api/v1/namespaces/${ns}/configmaps?watch=true&timeoutSeconds=-1`,
        2,
        5000,
      );
      record('timeoutSeconds=-1 ends at once', Date.now() - started < 4000);
      record(
        'timeoutSeconds=-1 object events',
        expired.filter((e) => (e as { type?: unknown }).type !== 'ERROR'),
      );
      for (const q of WATCH_QUERIES) {
        const path = `/api/v1/namespaces/${ns}/configmaps?watch=true&${q}`;
        // Every one of these ends at once: a Status, or one in-stream ERROR.
        const events = await t.watch(path, 1, 5000);
        const first = events[0] as Record<string, unknown> | undefined;
        record(q, first?.['kind'] === 'Status' ? first : events);
      }
    },
  },
  {
    name: 'hostile: malformed write and delete options',
    async run(t, ns, record) {
      const base = `/api/v1/namespaces/${ns}/configmaps`;
      const post = async (query: string): Promise<unknown> =>
        brief(await t.requestOnce('POST', `${base}?${query}`, { body: configMap('opts') }));
      record('fieldManager 129', await post(`fieldManager=${'m'.repeat(129)}&dryRun=All`));
      record('fieldManager 128', await post(`fieldManager=${'m'.repeat(128)}&dryRun=All`));
      record('fieldManager newline', await post('fieldManager=a%0Ab&dryRun=All'));
      record('dryRun=Foo', await post('dryRun=Foo'));
      record('dryRun empty', await post('dryRun='));
      record('fieldValidation=Foo', await post('fieldValidation=Foo&dryRun=All'));
      for (const q of [
        'propagationPolicy=Foo',
        'gracePeriodSeconds=abc',
        'gracePeriodSeconds=-5',
        'gracePeriodSeconds=99999999999999999999',
        'orphanDependents=maybe',
        'dryRun=',
        'dryRun=Foo',
        'dryRun=All&dryRun=',
      ])
        record(`DELETE one ${q}`, brief(await t.requestOnce('DELETE', `${base}/nosuch?${q}`)));
      const none = 'labelSelector=nomatch%3D1';
      for (const q of ['propagationPolicy=Foo', 'gracePeriodSeconds=abc', 'limit=abc', 'dryRun='])
        record(
          `DELETE collection ${q}`,
          brief(await t.requestOnce('DELETE', `${base}?${none}&${q}`)),
        );
    },
  },
  {
    // The fuzzer's case: a DELETE of the namespace with a body and `?dryRun=All`, which kube
    // carried out for real.
    name: 'hostile: a delete with a body ignores the query options',
    async run(t, ns, record) {
      const base = `/api/v1/namespaces/${ns}/configmaps`;
      const del = async (path: string, body: unknown): Promise<unknown> =>
        brief(await t.requestOnce('DELETE', path, { body }));
      const exists = async (name: string): Promise<number> =>
        (await t.requestOnce('GET', `${base}/${name}`)).status;
      for (const name of ['q1', 'q2', 'q3', 'q4', 'q5'])
        await t.request('POST', base, { body: configMap(name) });
      record('one, {} + bad policy', await del(`${base}/q1?propagationPolicy=Foo`, '{}'));
      record('one, {} + dryRun: deleted', [
        await del(`${base}/q2?dryRun=All`, {}),
        await exists('q2'),
      ]);
      record('one, null + bad grace', await del(`${base}/q3?gracePeriodSeconds=abc`, 'null'));
      record('one, body dryRun + no query: kept', [
        await del(`${base}/q4`, { dryRun: ['All'] }),
        await exists('q4'),
      ]);
      record('one, bad body policy', await del(`${base}/q4`, { propagationPolicy: 'Foo' }));
      record('one, bad body dryRun', await del(`${base}/q4`, { dryRun: ['Foo'] }));
      record(
        'one, invalid UTF-8 key',
        await del(`${base}/q4`, Buffer.from('{"\xff\xfe":1}', 'latin1')),
      );
      record('collection, {} + bad policy', [
        await del(`${base}?labelSelector=nomatch%3D1&propagationPolicy=Foo`, {}),
        await exists('q5'),
      ]);
    },
  },
  {
    name: 'hostile: DELETE bodies with values of the wrong type',
    async run(t, ns, record) {
      const one = `/apis/agents.x-k8s.io/v1beta1/namespaces/${ns}/sandboxes/nosuch`;
      const all = `/apis/agents.x-k8s.io/v1beta1/namespaces/${ns}/sandboxes?labelSelector=nomatch%3D1`;
      for (const body of [
        '{"apiVersion":7,"kind":true}',
        '{"kind":true}',
        '[]',
        '"x"',
        '{"gracePeriodSeconds":"x"}',
        '{"gracePeriodSeconds":1.5}',
        '{"dryRun":"All"}',
        '{"dryRun":[5]}',
        '{"propagationPolicy":5}',
        '{"orphanDependents":"x"}',
        '{"preconditions":5}',
        '{"kind":"Pod","apiVersion":"v1"}',
      ]) {
        record(`one ${body}`, brief(await t.requestOnce('DELETE', one, { body })));
        record(
          `collection yaml ${body}`,
          brief(await t.requestOnce('DELETE', all, { body, contentType: 'application/yaml' })),
        );
      }
    },
  },
  {
    name: 'hostile: writes without a route — PUT or PATCH of a collection, POST to a name',
    async run(t, ns, record) {
      const cm = `/api/v1/namespaces/${ns}/configmaps`;
      const sb = `/apis/agents.x-k8s.io/v1beta1/namespaces/${ns}/sandboxes`;
      const send = async (method: string, path: string, contentType: string): Promise<unknown> =>
        brief(await t.requestOnce(method, path, { body: '{}', contentType }));
      for (const base of [cm, sb, '/api/v1/namespaces', '/api/v1/configmaps']) {
        record(`PUT ${base}`, await send('PUT', base, 'application/json'));
        record(`PATCH ${base}`, await send('PATCH', base, 'application/merge-patch+json'));
        record(
          `apply ${base}`,
          await send('PATCH', `${base}?fieldManager=m`, 'application/apply-patch+yaml'),
        );
      }
      record(`POST ${cm}/x`, await send('POST', `${cm}/x?dryRun=All`, 'application/json'));
      record(
        'apply of another kind to a new name',
        brief(
          await t.requestOnce(
            'PATCH',
            `/api/v1/namespaces/${ns}/events/x?fieldManager=m&dryRun=All`,
            {
              body: configMap('x'),
              contentType: 'application/apply-patch+yaml',
            },
          ),
        ),
      );
    },
  },
  {
    // kube routes dot segments as sent (a name `..` it refuses, a resource `.` it does not know);
    // a WHATWG URL would resolve them, e.g. `configmaps/..` to the namespace.
    name: 'hostile: dot segments in the path are routed as sent',
    async run(t, ns, record) {
      const cm = `/api/v1/namespaces/${ns}/configmaps`;
      for (const path of [
        `${cm}/.`,
        `${cm}/..`,
        `${cm}/%2e%2e`,
        `${cm}/./x`,
        `/api/v1/namespaces/${ns}/./configmaps`,
        `/api/v1/namespaces/${ns}/%2e%2e/configmaps`,
        `/api/v1/namespaces/${ns}/pods/../status`,
        `/apis/agents.x-k8s.io/v1beta1/namespaces/${ns}/sandboxes/.`,
        '/api/v1/namespaces/..',
        '/api/v1/..',
        '/healthz/..',
      ])
        record(`GET ${path}`, brief(await t.requestOnce('GET', path)));
      record(`DELETE ${cm}/..`, brief(await t.requestOnce('DELETE', `${cm}/..`, { body: '{}' })));
      record(
        'the namespace is still there',
        (await t.requestOnce('GET', `/api/v1/namespaces/${ns}`)).status,
      );
    },
  },
  {
    name: 'hostile: oversized and malformed bodies',
    async run(t, ns, record) {
      const base = `/api/v1/namespaces/${ns}/configmaps?dryRun=All`;
      const post = async (body: unknown): Promise<unknown> =>
        brief(await t.requestOnce('POST', base, { body }));
      record('4 MiB body', await post(configMap('big', { a: 'x'.repeat(4 * 1024 * 1024) })));
      record('3 MiB body', await post(configMap('big', { a: 'x'.repeat(3 * 1024 * 1024 - 200) })));
      record('1 MiB data', await post(configMap('big', { a: 'x'.repeat(1024 * 1024 + 10) })));
      record('nested 100', await post(nested(100)));
      record(
        'truncated',
        await post('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"tr'),
      );
      record(
        'duplicate keys',
        await post('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d","name":"e"}}'),
      );
      record('null', await post('null'));
    },
  },
  {
    name: 'hostile: a body nested 5000 objects deep',
    async run(t, ns, record) {
      const res = await t.requestOnce('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, {
        body: nested(5000),
      });
      record('status class', Math.floor(res.status / 100));
      record('answer', brief(res));
    },
  },
  {
    name: 'hostile: oversized and odd path segments',
    async run(t, ns, record) {
      const longNs = 'n'.repeat(5000);
      const get = async (path: string): Promise<unknown> => brief(await t.requestOnce('GET', path));
      record(
        'list in a 5000-character namespace',
        await get(`/api/v1/namespaces/${longNs}/configmaps`),
      );
      record(
        'get in a 5000-character namespace',
        await get(`/api/v1/namespaces/${longNs}/configmaps/x`),
      );
      record(
        'create in a 5000-character namespace',
        brief(
          await t.requestOnce('POST', `/api/v1/namespaces/${longNs}/configmaps?dryRun=All`, {
            body: configMap('x'),
          }),
        ),
      );
      record(
        '5000-character name',
        await get(`/api/v1/namespaces/${ns}/configmaps/${'n'.repeat(5000)}`),
      );
      record('upper-case namespace', await get('/api/v1/namespaces/UPPER/configmaps'));
      record('dots in a name', await get(`/api/v1/namespaces/${ns}/configmaps/a..b`));
      record('escaped slash', await get(`/api/v1/namespaces/${ns}/configmaps/a%2Fb`));
    },
  },
);

/** A Pod whose one command argument is `bytes` long: Pods have no size rule of their own. */
function bigPod(name: string, bytes: number): Record<string, unknown> {
  return pod(name, {
    containers: [{ name: 'c', image: 'busybox:1.36', command: ['x'.repeat(bytes)] }],
  });
}

HOSTILE_CASES.push({
  name: "hostile: an object over etcd's request limit",
  async run(t, ns, record) {
    // Below the 3 MiB body limit, a real write (no dryRun: the limit is the store's) of an
    // object without a size rule of its own meets etcd's 1.5 MiB request limit: kube passes
    // etcd's error on as a 500 without a reason. (ConfigMaps stop at 1 MiB first: 422, above.)
    await waitForDefaultServiceAccount(t, ns);
    const pods = `/api/v1/namespaces/${ns}/pods`;
    const post = (name: string, bytes: number): Promise<HttpResult> =>
      t.requestOnce('POST', pods, { body: bigPod(name, bytes) });
    record('1.6 MiB Pod', brief(await post('big', 1.6 * 1024 * 1024)));
    // Past 2 MiB kube's etcd client refuses to send it; its message counts protobuf bytes.
    const huge = observe(await post('huge', 2.5 * 1024 * 1024)) as Record<string, unknown>;
    record('2.5 MiB Pod', { status: huge['status'], reason: huge['reason'] });
    const message = String(huge['message']);
    record('2.5 MiB Pod message', message.replace(/\(\d+ vs\. \d+\)/, '(N vs. 2097152)'));
    const left = (await t.request('GET', pods)).body as { items?: unknown[] };
    record('pods written', left.items?.length);
  },
});

HOSTILE_CASES.push({
  name: 'hostile: verbs a status subresource has no route for',
  async run(t, ns, record) {
    // Found by the fuzzer: `DELETE …/configmaps/../status` is `DELETE /namespaces/<ns>/status`,
    // which must not delete the namespace.
    const paths = [
      `/api/v1/namespaces/${ns}/status`,
      `/api/v1/namespaces/${ns}/pods/nosuch/status`,
      `/api/v1/namespaces/${ns}/configmaps/nosuch/status`,
      `/apis/agents.x-k8s.io/v1beta1/namespaces/${ns}/sandboxes/nosuch/status`,
    ];
    for (const path of paths)
      for (const method of ['DELETE', 'POST'])
        record(`${method} ${path}`, brief(await t.requestOnce(method, path, { body: {} })));
    record(
      'DELETE with a dot-dot path',
      brief(await t.requestOnce('DELETE', `/api/v1/namespaces/${ns}/configmaps/../status`)),
    );
    record('namespace still there', (await t.request('GET', `/api/v1/namespaces/${ns}`)).status);
  },
});

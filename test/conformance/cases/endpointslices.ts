// discovery.k8s.io/v1 EndpointSlices: kube's validation and defaults, and what the endpointslice
// controller publishes for Services with selectors. Pods run on a kwok node of the real cluster,
// where kwok gives them an IP and readiness; on the embedded server (no kubelet) the case writes
// that status itself. Pod IPs, generated names and trigger times are recorded by shape.
import { nsPath, observe, type ConformanceCase } from '../case.ts';
import type { HttpResult, Target } from '../target.ts';

const V1 = '/api/v1';
const DISCOVERY = '/apis/discovery.k8s.io/v1';
/** A kwok node of the harness; the embedded server has no Node objects and does not check. */
const NODE = 'kwok-node-0000';
type Json = Record<string, unknown>;

function slice(name: string, rest: Json): Json {
  return { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name }, ...rest };
}

/** Replaces pod IPs, uids (also inside managedFields keys), generated names and trigger times. */
function masked(value: unknown): unknown {
  const text = JSON.stringify(value)
    .replace(/10\.244\.\d+\.\d+/g, '<pod IP>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>')
    .replace(/"(web|api)-[a-z0-9]{5}"/g, '"$1-<rand>"')
    .replace(/("endpoints\.kubernetes\.io\/last-change-trigger-time":)"[^"]+"/g, '$1"<time>"');
  return JSON.parse(text) as unknown;
}

async function until<T>(read: () => Promise<T>, check: (v: T) => boolean, tries = 200): Promise<T> {
  let v = await read();
  for (let i = 0; i < tries && !check(v); i++) {
    await new Promise((r) => setTimeout(r, 100));
    v = await read();
  }
  return v;
}

/** A Pod on the kwok node that is Running and Ready with an IP on both servers. */
async function runningPod(
  t: Target,
  ns: string,
  name: string,
  ip: string,
  labels: Json,
): Promise<void> {
  const res = await t.request('POST', nsPath(V1, ns, 'pods'), {
    body: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels },
      spec: {
        nodeName: NODE,
        containers: [
          { name: 'c', image: 'busybox', ports: [{ name: 'http', containerPort: 8080 }] },
        ],
      },
    },
  });
  if (res.status !== 201) throw new Error(`${t.name}: create pod ${name}: ${res.status}`);
  const path = nsPath(V1, ns, 'pods', name);
  if (t.name === 'embedded') {
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await t.request('PATCH', `${path}/status`, {
      contentType: 'application/merge-patch+json',
      body: {
        status: {
          phase: 'Running',
          podIP: ip,
          podIPs: [{ ip }],
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }],
        },
      },
    });
  }
  await until(
    () => t.request('GET', path),
    (r) => typeof ((r.body as Json)['status'] as Json | undefined)?.['podIP'] === 'string',
  );
}

function service(name: string, spec: Json): Json {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, labels: { tier: 'x' } }, spec };
}

async function slicesOf(t: Target, ns: string, svc: string): Promise<HttpResult> {
  return t.request(
    'GET',
    `${nsPath(DISCOVERY, ns, 'endpointslices')}?labelSelector=kubernetes.io/service-name=${svc}`,
  );
}

function items(r: HttpResult): Json[] {
  return ((r.body as Json)['items'] as Json[] | undefined) ?? [];
}

function endpointCount(r: HttpResult): number {
  return items(r).reduce((n, s) => n + ((s['endpoints'] as unknown[] | null)?.length ?? 0), 0);
}

export const ENDPOINTSLICE_CASES: ConformanceCase[] = [
  {
    name: 'endpointslices: create defaults ports and conditions, and keeps null lists',
    run: async (t, ns, rec) => {
      const path = nsPath(DISCOVERY, ns, 'endpointslices');
      rec(
        'empty',
        observe(await t.request('POST', path, { body: slice('a', { addressType: 'IPv4' }) })),
      );
      const full = slice('b', {
        addressType: 'IPv4',
        ports: [{ port: 80 }, { name: 'dns', port: 53, protocol: 'UDP' }],
        endpoints: [
          { addresses: ['10.1.1.1'] },
          { addresses: ['10.1.1.2'], conditions: { ready: false } },
        ],
      });
      rec('full', observe(await t.request('POST', path, { body: full })));
      rec(
        'table',
        observe(
          await t.request('GET', path, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }),
        ),
      );
    },
  },
  {
    name: 'endpointslices: validation of addressType, ports and endpoints',
    run: async (t, ns, rec) => {
      const path = nsPath(DISCOVERY, ns, 'endpointslices');
      const bad = (name: string, rest: Json) =>
        t.request('POST', path, { body: slice(name, rest) });
      rec('no addressType', observe(await bad('a', {})));
      rec('bad addressType', observe(await bad('b', { addressType: 'foo' })));
      rec(
        'bad ports and endpoints',
        observe(
          await bad('c', {
            addressType: 'IPv4',
            endpoints: [
              { addresses: [] },
              { addresses: ['foo', '10.0.0.1'], hostname: 'Bad_Host', nodeName: 'Bad Node' },
              { addresses: ['fd00::1'] },
            ],
            ports: [
              { name: 'http', port: 80, protocol: 'XTP' },
              { name: 'http', port: 81 },
              { name: 'Bad_Name', port: 82 },
            ],
          }),
        ),
      );
      rec(
        'bad fqdn',
        observe(
          await bad('d', {
            addressType: 'FQDN',
            endpoints: [{ addresses: ['-bad-.example.com'] }],
          }),
        ),
      );
      rec(
        'ipv6 in IPv4',
        observe(await bad('e', { addressType: 'IPv6', endpoints: [{ addresses: ['10.0.0.1'] }] })),
      );
      const created = await t.request('POST', path, { body: slice('f', { addressType: 'IPv4' }) });
      const changed = { ...(created.body as Json), addressType: 'IPv6' };
      rec('addressType immutable', observe(await t.request('PUT', `${path}/f`, { body: changed })));
    },
  },
  {
    name: 'endpointslices: the controller publishes ready Pods of a Service with named and numbered ports',
    run: async (t, ns, rec) => {
      await runningPod(t, ns, 'p1', '10.244.9.1', { app: 'web' });
      await runningPod(t, ns, 'other', '10.244.9.2', { app: 'other' });
      await t.request('POST', nsPath(V1, ns, 'services'), {
        body: service('web', {
          selector: { app: 'web' },
          ports: [
            { name: 'http', port: 80, targetPort: 'http' },
            { name: 'raw', port: 81, targetPort: 9090 },
            { name: 'missing', port: 82, targetPort: 'nope' },
          ],
        }),
      });
      const res = await until(
        () => slicesOf(t, ns, 'web'),
        (r) => endpointCount(r) === 1,
      );
      rec('slices', masked(items(res)));
      await runningPod(t, ns, 'p2', '10.244.9.3', { app: 'web' });
      const two = await until(
        () => slicesOf(t, ns, 'web'),
        (r) => endpointCount(r) === 2,
      );
      rec('two pods', masked(items(two).map((s) => s['endpoints'])));
      await t.request('DELETE', `${nsPath(V1, ns, 'pods', 'p1')}?gracePeriodSeconds=0`);
      const one = await until(
        () => slicesOf(t, ns, 'web'),
        (r) => endpointCount(r) === 1,
      );
      rec('after delete', masked(items(one).map((s) => s['endpoints'])));
    },
  },
  {
    name: 'endpointslices: a Service without matching Pods gets a placeholder, one without a selector none',
    run: async (t, ns, rec) => {
      await t.request('POST', nsPath(V1, ns, 'services'), {
        body: service('web', { selector: { app: 'nobody' }, ports: [{ port: 80 }] }),
      });
      await t.request('POST', nsPath(V1, ns, 'services'), {
        body: service('api', { ports: [{ port: 80 }] }),
      });
      const placeholder = await until(
        () => slicesOf(t, ns, 'web'),
        (r) => items(r).length === 1,
      );
      rec('placeholder', masked(items(placeholder)));
      await t.request('POST', nsPath(V1, ns, 'services'), {
        body: service('db', {
          clusterIP: 'None',
          selector: { app: 'nobody' },
          ports: [{ port: 5432 }],
        }),
      });
      const headless = await until(
        () => slicesOf(t, ns, 'db'),
        (r) => items(r).length === 1,
      );
      rec(
        'headless labels',
        items(headless).map((x) => (x['metadata'] as Json)['labels']),
      );
      await new Promise((r) => setTimeout(r, 500));
      rec('no selector', items(await slicesOf(t, ns, 'api')).length);
    },
  },
  {
    name: 'endpointslices: a deleted managed slice is recreated',
    run: async (t, ns, rec) => {
      await t.request('POST', nsPath(V1, ns, 'services'), {
        body: service('web', { selector: { app: 'nobody' }, ports: [{ port: 80 }] }),
      });
      const first = await until(
        () => slicesOf(t, ns, 'web'),
        (r) => items(r).length === 1,
      );
      const name = String((items(first)[0]?.['metadata'] as Json)['name']);
      await t.request('DELETE', nsPath(DISCOVERY, ns, 'endpointslices', name));
      const again = await until(
        () => slicesOf(t, ns, 'web'),
        (r) => items(r).length === 1 && (items(r)[0]?.['metadata'] as Json)['name'] !== name,
      );
      rec('recreated', masked(items(again)));
    },
  },
];

// Discovery and version documents (semantics doc §1), compared for the groups and resources the
// embedded server serves (the real server has many more).
import { observe, type ConformanceCase } from '../case.ts';

type Json = Record<string, unknown>;

const OUR_GROUPS = [
  'agents.x-k8s.io',
  'extensions.agents.x-k8s.io',
  'coordination.k8s.io',
  'apiextensions.k8s.io',
  'discovery.k8s.io',
];
const CORE_RESOURCES = [
  'configmaps',
  'secrets',
  'namespaces',
  'serviceaccounts',
  'persistentvolumeclaims',
  'endpoints',
];

/**
 * Resource lists sorted by resource (subresources right after their resource): the real server's
 * order of CRD resources comes from a Go map and is not stable; clients only need a resource to
 * come before its subresources.
 */
function sortedResources(doc: unknown): unknown {
  if (doc === null || typeof doc !== 'object') return doc;
  const d = doc as Json;
  const body = (d['body'] ?? d) as Json;
  const resources = body['resources'] as Json[] | undefined;
  if (!resources) return doc;
  const sorted = [...resources].sort((a, b) => String(a['name']).localeCompare(String(b['name'])));
  const out = { ...body, resources: sorted };
  return d['body'] ? { ...d, body: out } : out;
}

function onlyResources(doc: Json, names: string[]): Json {
  const resources = (doc['resources'] as Json[] | undefined) ?? [];
  return {
    ...doc,
    resources: resources.filter((r) =>
      names.some((n) => r['name'] === n || String(r['name']).startsWith(`${n}/`)),
    ),
  };
}

export const DISCOVERY_CASES: ConformanceCase[] = [
  {
    name: 'discovery: /version has the nine keys with a v-prefixed gitVersion',
    run: async (t, _ns, rec) => {
      const body = (await t.request('GET', '/version')).body as Json;
      rec(
        'keys',
        Object.keys(body)
          .filter((k) => !k.startsWith('emulation') && !k.startsWith('minCompatibility'))
          .sort(),
      );
      rec('semver', /^v\d+\.\d+\.\d+/.test(String(body['gitVersion'])));
    },
  },
  {
    name: 'discovery: /api lists v1',
    run: async (t, _ns, rec) => {
      const body = (await t.request('GET', '/api')).body as Json;
      rec('kind', body['kind']);
      rec('versions', body['versions']);
    },
  },
  ...OUR_GROUPS.map((group): ConformanceCase => ({
    name: `discovery: /apis/${group} group document`,
    run: async (t, _ns, rec) => rec('group', observe(await t.request('GET', `/apis/${group}`))),
  })),
  ...[
    'agents.x-k8s.io/v1beta1',
    'extensions.agents.x-k8s.io/v1beta1',
    'agents.x-k8s.io/v1alpha1',
    'extensions.agents.x-k8s.io/v1alpha1',
  ].map((gv): ConformanceCase => ({
    name: `discovery: /apis/${gv} resource list`,
    run: async (t, _ns, rec) =>
      rec('resources', sortedResources(observe(await t.request('GET', `/apis/${gv}`)))),
  })),
  {
    name: 'discovery: /api/v1 entries of the core resources we serve',
    run: async (t, _ns, rec) => {
      const doc = (await t.request('GET', '/api/v1')).body as Json;
      rec('resources', sortedResources(onlyResources(doc, CORE_RESOURCES)));
    },
  },
  {
    name: 'discovery: /apis/discovery.k8s.io/v1 resource list',
    run: async (t, _ns, rec) =>
      rec('resources', observe(await t.request('GET', '/apis/discovery.k8s.io/v1'))),
  },
  {
    name: 'discovery: /apis/coordination.k8s.io/v1 resource list',
    run: async (t, _ns, rec) =>
      rec('resources', observe(await t.request('GET', '/apis/coordination.k8s.io/v1'))),
  },
  {
    name: 'discovery: aggregated /apis entries for our groups',
    run: async (t, _ns, rec) => {
      const res = await t.request('GET', '/apis', {
        accept:
          'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
      });
      rec('content-type', String(res.headers['content-type']).split(';').slice(0, 4).join(';'));
      const items = ((res.body as Json)['items'] as Json[]).filter((i) =>
        ['agents.x-k8s.io', 'extensions.agents.x-k8s.io', 'discovery.k8s.io'].includes(
          String((i['metadata'] as Json)['name']),
        ),
      );
      rec(
        'items',
        items.map((i) => ({
          ...i,
          versions: (i['versions'] as Json[]).map((v) => ({
            ...v,
            resources: [...(v['resources'] as Json[])].sort((a, b) =>
              String(a['resource']).localeCompare(String(b['resource'])),
            ),
          })),
        })),
      );
    },
  },
  {
    name: 'discovery: an unknown path is a plain-text 404',
    run: async (t, _ns, rec) => {
      const res = await t.request('GET', '/apis/nothing.example.com/v1/things');
      rec('status', res.status);
      rec('body', res.body);
    },
  },
  {
    name: 'discovery: an unknown resource in a served group is 404',
    run: async (t, ns, rec) => {
      const res = await t.request('GET', `/apis/agents.x-k8s.io/v1beta1/namespaces/${ns}/gadgets`);
      rec('status', res.status);
    },
  },
];

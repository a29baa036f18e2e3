// Server-side printing (semantics doc §10): the Tables `kubectl get` asks for, for built-in kinds
// and our custom resources. Age cells depend on the clock and are normalized.
import { nsPath, observe, type ConformanceCase } from '../case.ts';

const TABLE_ACCEPT =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

type Json = Record<string, unknown>;

/** Replaces age cells ("0s", "5m") with a placeholder; everything else must match. */
function withoutAges(value: unknown): unknown {
  const obs = value as { body?: Json };
  const body = obs.body;
  if (!body || body['kind'] !== 'Table') return value;
  const columns = (body['columnDefinitions'] as Json[] | null) ?? [];
  const ageColumns = new Set(
    columns.map((c, i) => (c['name'] === 'Age' ? i : -1)).filter((i) => i >= 0),
  );
  const rows = ((body['rows'] as Json[]) ?? []).map((row) => ({
    ...row,
    cells: (row['cells'] as unknown[]).map((cell, i) => (ageColumns.has(i) ? '<age>' : cell)),
  }));
  return { ...obs, body: { ...body, rows } };
}

interface TableKind {
  name: string;
  prefix: string;
  plural: string;
  object: (name: string) => Json;
}

const SANDBOX = (name: string): Json => ({
  apiVersion: 'agents.x-k8s.io/v1beta1',
  kind: 'Sandbox',
  metadata: { name },
  spec: { podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] } } },
});

const KINDS: TableKind[] = [
  {
    name: 'configmaps',
    prefix: '/api/v1',
    plural: 'configmaps',
    object: (name) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name },
      data: { a: '1', b: '2' },
    }),
  },
  {
    name: 'secrets',
    prefix: '/api/v1',
    plural: 'secrets',
    object: (name) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name },
      type: 'Opaque',
      data: { k: 'dg==' },
    }),
  },
  {
    name: 'sandboxes',
    prefix: '/apis/agents.x-k8s.io/v1beta1',
    plural: 'sandboxes',
    object: SANDBOX,
  },
  {
    name: 'sandboxwarmpools',
    prefix: '/apis/extensions.agents.x-k8s.io/v1beta1',
    plural: 'sandboxwarmpools',
    object: (name) => ({
      apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
      kind: 'SandboxWarmPool',
      metadata: { name },
      spec: { replicas: 2, sandboxTemplateRef: { name: 't' } },
    }),
  },
];

export const TABLE_CASES: ConformanceCase[] = KINDS.flatMap((k): ConformanceCase[] => [
  {
    name: `tables: ${k.name} list as a Table`,
    run: async (t, ns, rec) => {
      await t.request('POST', nsPath(k.prefix, ns, k.plural), { body: k.object('one') });
      await t.request('POST', nsPath(k.prefix, ns, k.plural), { body: k.object('two') });
      rec(
        'table',
        withoutAges(
          observe(
            await t.request('GET', `${nsPath(k.prefix, ns, k.plural)}?labelSelector=`, {
              accept: TABLE_ACCEPT,
            }),
          ),
        ),
      );
    },
  },
  {
    name: `tables: ${k.name} get as a Table without objects`,
    run: async (t, ns, rec) => {
      await t.request('POST', nsPath(k.prefix, ns, k.plural), { body: k.object('one') });
      rec(
        'table',
        withoutAges(
          observe(
            await t.request('GET', `${nsPath(k.prefix, ns, k.plural, 'one')}?includeObject=None`, {
              accept: TABLE_ACCEPT,
            }),
          ),
        ),
      );
    },
  },
]);

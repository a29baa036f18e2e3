// Validation of our custom resources through the API (semantics doc §3.5, §7.3, §8.3–8.4):
// schema errors, defaulting, pruning with fieldValidation, CEL transition rules, status
// subresource separation, generation, deprecation warnings.
import { nsPath, observe, type ConformanceCase } from '../case.ts';
import type { Target } from '../target.ts';

type Obj = Record<string, unknown> & {
  metadata: Record<string, unknown>;
  spec: Record<string, unknown>;
};

const B1 = '/apis/agents.x-k8s.io/v1beta1';
const A1 = '/apis/agents.x-k8s.io/v1alpha1';
const EXT = '/apis/extensions.agents.x-k8s.io/v1beta1';

function sandbox(name: string, spec: Record<string, unknown> = {}): Obj {
  return {
    apiVersion: 'agents.x-k8s.io/v1beta1',
    kind: 'Sandbox',
    metadata: { name },
    spec: {
      podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] } },
      ...spec,
    },
  };
}

const STATE_ANNOTATION = 'api.agents.x-k8s.io/v1alpha1-sandbox-state';

/**
 * observe() with the v1alpha1 state annotation parsed: it is JSON of the v1alpha1 object, whose
 * keys kube-apiserver hands the webhook sorted (Go maps) and the embedded server in insertion
 * order. The content must agree; the key order is not part of the API.
 */
function observeState(res: Parameters<typeof observe>[0]): unknown {
  const seen = observe(res) as { body?: { metadata?: { annotations?: Record<string, unknown> } } };
  const annotations = seen.body?.metadata?.annotations;
  const state = annotations?.[STATE_ANNOTATION];
  if (annotations && typeof state === 'string') annotations[STATE_ANNOTATION] = JSON.parse(state);
  return seen;
}

function alpha(name: string, replicas: number): Record<string, unknown> {
  return {
    apiVersion: 'agents.x-k8s.io/v1alpha1',
    kind: 'Sandbox',
    metadata: { name, labels: { k: 'v' } },
    spec: {
      replicas,
      podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] } },
    },
  };
}

async function post(
  t: Target,
  ns: string,
  body: unknown,
  query = '',
): Promise<ReturnType<typeof observe>> {
  return observe(await t.request('POST', `${nsPath(B1, ns, 'sandboxes')}${query}`, { body }));
}

const invalidSpecs: [string, Record<string, unknown>][] = [
  ['unknown operatingMode', { operatingMode: 'Paused' }],
  ['unknown shutdownPolicy', { shutdownPolicy: 'Keep' }],
  ['shutdownTime not a date-time', { shutdownTime: 'tomorrow' }],
  ['service not a boolean', { service: 'yes' }],
  ['container without a name', { podTemplate: { spec: { containers: [{ image: 'busybox' }] } } }],
  ['podTemplate without spec', { podTemplate: {} }],
  ['containers not a list', { podTemplate: { spec: { containers: { name: 'x' } } } }],
  [
    'duplicate container names',
    { podTemplate: { spec: { containers: [{ name: 'a' }, { name: 'a' }] } } },
  ],
  [
    'port out of int32 range',
    {
      podTemplate: {
        spec: { containers: [{ name: 'a', ports: [{ containerPort: 4294967296 }] }] },
      },
    },
  ],
  [
    'bad resource quantity',
    {
      podTemplate: {
        spec: { containers: [{ name: 'a', resources: { limits: { cpu: 'lots' } } }] },
      },
    },
  ],
];

export const VALIDATION_CASES: ConformanceCase[] = [
  ...invalidSpecs.map(([what, spec]): ConformanceCase => ({
    name: `validation: Sandbox with ${what} is 422`,
    run: async (t, ns, rec) => rec('create', await post(t, ns, sandbox('bad', spec))),
  })),
  {
    name: 'validation: Sandbox without spec is 422',
    run: async (t, ns, rec) =>
      rec('create', await post(t, ns, { ...sandbox('bad'), spec: undefined })),
  },
  {
    name: 'validation: defaults are applied on create',
    run: async (t, ns, rec) =>
      rec(
        'create',
        await post(
          t,
          ns,
          sandbox('d', {
            podTemplate: { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80 }] }] } },
          }),
        ),
      ),
  },
  {
    name: 'validation: unknown fields are pruned with a warning by default',
    run: async (t, ns, rec) => {
      const res = await t.request('POST', nsPath(B1, ns, 'sandboxes'), {
        body: sandbox('p', { replicas: 1 }),
      });
      rec('create', observe(res));
      rec('warning', res.headers['warning']);
    },
  },
  {
    name: 'validation: unknown fields fail with fieldValidation=Strict',
    run: async (t, ns, rec) =>
      rec(
        'create',
        await post(
          t,
          ns,
          sandbox('p', { replicas: 1, extra: { a: 1 } }),
          '?fieldValidation=Strict',
        ),
      ),
  },
  {
    name: 'validation: unknown fields are dropped silently with fieldValidation=Ignore',
    run: async (t, ns, rec) => {
      const res = await t.request('POST', `${nsPath(B1, ns, 'sandboxes')}?fieldValidation=Ignore`, {
        body: sandbox('p', { replicas: 1 }),
      });
      rec('create', observe(res));
      rec('warning', res.headers['warning'] ?? null);
    },
  },
  {
    name: 'validation: bad fieldValidation value is 422',
    run: async (t, ns, rec) =>
      rec('create', await post(t, ns, sandbox('p'), '?fieldValidation=Loose')),
  },
  {
    name: 'validation: bad dryRun value is 422',
    run: async (t, ns, rec) => rec('create', await post(t, ns, sandbox('p'), '?dryRun=Yes')),
  },
  {
    name: 'validation: volumeClaimTemplates are immutable (CEL transition rule)',
    run: async (t, ns, rec) => {
      const vct = (size: string) => [
        {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } } },
        },
      ];
      const created = (
        await t.request('POST', nsPath(B1, ns, 'sandboxes'), {
          body: sandbox('v', { volumeClaimTemplates: vct('1Gi') }),
        })
      ).body as Obj;
      created.spec['volumeClaimTemplates'] = vct('2Gi');
      rec(
        'update',
        observe(await t.request('PUT', nsPath(B1, ns, 'sandboxes', 'v'), { body: created })),
      );
    },
  },
  {
    name: 'validation: status is ignored on create and on main-resource updates',
    run: async (t, ns, rec) => {
      const created = (
        await t.request('POST', nsPath(B1, ns, 'sandboxes'), {
          body: { ...sandbox('s'), status: { service: 'x' } },
        })
      ).body as Obj;
      rec('create-status', created['status'] ?? null);
      created['status'] = { service: 'y' };
      const updated = (await t.request('PUT', nsPath(B1, ns, 'sandboxes', 's'), { body: created }))
        .body as Obj;
      rec('update-status', updated['status'] ?? null);
    },
  },
  {
    name: 'validation: the status subresource writes only status and keeps generation',
    run: async (t, ns, rec) => {
      const created = (await t.request('POST', nsPath(B1, ns, 'sandboxes'), { body: sandbox('s') }))
        .body as Obj;
      created['status'] = { service: 'svc', serviceFQDN: 'svc.ns.svc.cluster.local' };
      created.spec['operatingMode'] = 'Suspended';
      rec(
        'status',
        observe(
          await t.request('PUT', `${nsPath(B1, ns, 'sandboxes', 's')}/status`, { body: created }),
        ),
      );
    },
  },
  {
    name: 'validation: generation increases on spec changes only',
    run: async (t, ns, rec) => {
      await t.request('POST', nsPath(B1, ns, 'sandboxes'), { body: sandbox('g') });
      const labelled = (
        await t.request('PATCH', nsPath(B1, ns, 'sandboxes', 'g'), {
          body: { metadata: { labels: { a: 'b' } } },
          contentType: 'application/merge-patch+json',
        })
      ).body as Obj;
      rec('after-label', labelled.metadata['generation']);
      const changed = (
        await t.request('PATCH', nsPath(B1, ns, 'sandboxes', 'g'), {
          body: { spec: { operatingMode: 'Suspended' } },
          contentType: 'application/merge-patch+json',
        })
      ).body as Obj;
      rec('after-spec', changed.metadata['generation']);
    },
  },
  {
    name: 'validation: v1alpha1 requests carry the deprecation warning',
    run: async (t, ns, rec) => {
      const res = await t.requestOnce('GET', nsPath(A1, ns, 'sandboxes'));
      rec('warning', res.headers['warning']);
      rec('list', observe(res));
    },
  },
  // kube-apiserver converts through the CRD's webhook (the harness runs ours); the embedded
  // server converts in-process. Each case below is one conversion path.
  {
    name: 'validation: a v1beta1 Sandbox reads and lists as v1alpha1',
    run: async (t, ns, rec) => {
      await t.request('POST', nsPath(B1, ns, 'sandboxes'), {
        body: sandbox('b', { operatingMode: 'Suspended' }),
      });
      rec('get', observe(await t.request('GET', nsPath(A1, ns, 'sandboxes', 'b'))));
      rec('list', observe(await t.request('GET', nsPath(A1, ns, 'sandboxes'))));
    },
  },
  {
    name: 'validation: a v1alpha1 Sandbox with replicas 0 is stored as Suspended',
    run: async (t, ns, rec) => {
      rec(
        'create',
        observe(await t.request('POST', nsPath(A1, ns, 'sandboxes'), { body: alpha('a', 0) })),
      );
      rec('get-v1alpha1', observeState(await t.request('GET', nsPath(A1, ns, 'sandboxes', 'a'))));
      rec('get-v1beta1', observeState(await t.request('GET', nsPath(B1, ns, 'sandboxes', 'a'))));
    },
  },
  {
    name: 'validation: a v1alpha1 Sandbox with replicas 1 is stored as Running',
    run: async (t, ns, rec) => {
      rec(
        'create',
        observe(await t.request('POST', nsPath(A1, ns, 'sandboxes'), { body: alpha('r', 1) })),
      );
      rec('get-v1beta1', observeState(await t.request('GET', nsPath(B1, ns, 'sandboxes', 'r'))));
    },
  },
  {
    name: 'validation: a v1alpha1 merge patch of replicas resumes a Suspended Sandbox',
    run: async (t, ns, rec) => {
      await t.request('POST', nsPath(B1, ns, 'sandboxes'), {
        body: sandbox('p', { operatingMode: 'Suspended' }),
      });
      const patch = await t.request('PATCH', nsPath(A1, ns, 'sandboxes', 'p'), {
        body: { spec: { replicas: 1 } },
        contentType: 'application/merge-patch+json',
      });
      rec('patch', observeState(patch));
      rec('get-v1beta1', observeState(await t.request('GET', nsPath(B1, ns, 'sandboxes', 'p'))));
    },
  },
  {
    name: 'validation: a v1alpha1 Sandbox with replicas 2 is 422',
    run: async (t, ns, rec) => {
      rec(
        'create',
        observe(await t.request('POST', nsPath(A1, ns, 'sandboxes'), { body: alpha('x', 2) })),
      );
    },
  },
  {
    name: 'validation: SandboxWarmPool replicas below zero is 422',
    run: async (t, ns, rec) => {
      const body = {
        apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
        kind: 'SandboxWarmPool',
        metadata: { name: 'p' },
        spec: { replicas: -1, sandboxTemplateRef: { name: 't' } },
      };
      rec(
        'create',
        observe(await t.request('POST', nsPath(EXT, ns, 'sandboxwarmpools'), { body })),
      );
    },
  },
  {
    name: 'validation: SandboxClaim env entry without value is 422',
    run: async (t, ns, rec) => {
      const body = {
        apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
        kind: 'SandboxClaim',
        metadata: { name: 'c' },
        spec: { warmPoolRef: { name: 'p' }, env: [{ name: 'A' }] },
      };
      rec('create', observe(await t.request('POST', nsPath(EXT, ns, 'sandboxclaims'), { body })));
    },
  },
  {
    name: 'validation: scale subresource of SandboxWarmPool',
    run: async (t, ns, rec) => {
      const body = {
        apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
        kind: 'SandboxWarmPool',
        metadata: { name: 'p' },
        spec: { replicas: 2, sandboxTemplateRef: { name: 't' } },
      };
      await t.request('POST', nsPath(EXT, ns, 'sandboxwarmpools'), { body });
      rec(
        'scale',
        observe(await t.request('GET', `${nsPath(EXT, ns, 'sandboxwarmpools', 'p')}/scale`)),
      );
    },
  },
];

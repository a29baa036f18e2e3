// Pod validation as kube-apiserver 1.36 answers it (pkg/apis/core/validation ValidatePod and
// ValidatePodUpdate): each failure class a client commonly hits on create, and spec
// immutability on update. kube's Forbidden message for a changed spec ends in a diff of its
// internal Go structs; the cases record its first line (the fixed text), reason and field.
import { nsPath, observe, type ConformanceCase } from '../case.ts';
import type { Target } from '../target.ts';
import { createPod, pod, V1, waitForDefaultServiceAccount } from './pods.ts';

type Json = Record<string, unknown>;

const c = (extra: Json = {}): Json => ({ name: 'c', image: 'busybox', ...extra });

/** [what, Pod spec, metadata] creates that kube refuses with 422. */
const INVALID_PODS: [string, Json, Json?][] = [
  ['no containers', { containers: [] }],
  ['a container without a name', { containers: [{ image: 'busybox' }] }],
  ['a container name that is not a DNS label', { containers: [c({ name: 'Bad_Name' })] }],
  ['a container name with dots', { containers: [c({ name: 'a.b' })] }],
  ['duplicate container names', { containers: [c(), c()] }],
  ['an init container named like a container', { initContainers: [c()], containers: [c()] }],
  ['a container without an image', { containers: [{ name: 'c' }] }],
  ['containerPort 0', { containers: [c({ ports: [{ containerPort: 0 }] })] }],
  [
    'ports above 65535',
    { containers: [c({ ports: [{ containerPort: 70000, hostPort: 70000 }] })] },
  ],
  [
    'an unknown port protocol',
    { containers: [c({ ports: [{ containerPort: 80, protocol: 'HTTP' }] })] },
  ],
  [
    'duplicate port names',
    {
      containers: [
        c({
          ports: [
            { name: 'http', containerPort: 80 },
            { name: 'http', containerPort: 81 },
          ],
        }),
      ],
    },
  ],
  [
    'bad port names',
    {
      containers: [
        c({
          ports: [
            { name: 'abcdefghijklmnopq', containerPort: 1 },
            { name: '123', containerPort: 2 },
            { name: 'a--b', containerPort: 3 },
            { name: '-ab', containerPort: 4 },
            { name: 'HTTP_x', containerPort: 5 },
          ],
        }),
      ],
    },
  ],
  ['an unknown restartPolicy', { restartPolicy: 'Sometimes' }],
  ['a volume without a name', { volumes: [{ emptyDir: {} }] }],
  [
    'duplicate volume names',
    {
      volumes: [
        { name: 'v', emptyDir: {} },
        { name: 'v', emptyDir: {} },
      ],
    },
  ],
  ['a volume name that is not a DNS label', { volumes: [{ name: 'V_x', emptyDir: {} }] }],
  [
    'a mount of a missing volume',
    { containers: [c({ volumeMounts: [{ name: 'nope', mountPath: '/x' }] })] },
  ],
  [
    'mounts without a name and on the same path',
    {
      volumes: [{ name: 'v', emptyDir: {} }],
      containers: [c({ volumeMounts: [{ mountPath: '/x' }, { name: 'v', mountPath: '/x' }] })],
    },
  ],
  [
    'a mount of a volume that is itself invalid',
    {
      volumes: [{ name: 'V', emptyDir: {} }],
      containers: [c({ volumeMounts: [{ name: 'V', mountPath: '/x' }] })],
    },
  ],
  [
    'a cpu request above its limit',
    { containers: [c({ resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } })] },
  ],
  [
    'a memory request above its limit',
    { containers: [c({ resources: { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } } })] },
  ],
  ['a negative request', { containers: [c({ resources: { requests: { cpu: '-1' } } })] }],
  ['a negative limit', { containers: [c({ resources: { limits: { memory: '-1' } } })] }],
  [
    'an extended resource request without a limit',
    { containers: [c({ resources: { requests: { 'example.com/gpu': '1' } } })] },
  ],
  [
    'an extended resource request below its limit',
    {
      containers: [
        c({
          resources: { requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '2' } },
        }),
      ],
    },
  ],
  ['an unknown imagePullPolicy', { containers: [c({ imagePullPolicy: 'Sometimes' })] }],
  ['an unknown terminationMessagePolicy', { containers: [c({ terminationMessagePolicy: 'X' })] }],
  ['an unknown dnsPolicy', { dnsPolicy: 'X' }],
  ['env names missing or with =', { containers: [c({ env: [{ name: 'A=B' }, { value: 'q' }] })] }],
  [
    'absolute and climbing subPaths',
    {
      volumes: [{ name: 'v', emptyDir: {} }],
      containers: [
        c({
          volumeMounts: [
            { name: 'v', mountPath: '/x', subPath: '/abs' },
            { name: 'v', mountPath: '/y', subPath: 'a/../b' },
          ],
        }),
      ],
    },
  ],
  ['activeDeadlineSeconds 0', { activeDeadlineSeconds: 0 }],
  ['a hostname that is not a DNS label', { hostname: 'Bad_Host' }],
  ['a bad nodeSelector value', { nodeSelector: { k: 'bad value!' } }],
  [
    'container and Pod problems in kube order',
    {
      hostname: 'H_',
      activeDeadlineSeconds: 0,
      dnsPolicy: 'X',
      restartPolicy: 'Y',
      volumes: [{ name: 'v', emptyDir: {} }],
      containers: [
        {
          name: 'c',
          image: 'x',
          terminationMessagePolicy: 'T',
          imagePullPolicy: 'P',
          ports: [{ containerPort: 0 }],
          env: [{ name: 'A=B' }, { value: 'q' }],
          volumeMounts: [{ name: 'v', mountPath: '/x', subPath: '/a/../b' }],
          resources: { requests: { cpu: '-1' } },
        },
      ],
    },
  ],
  ['a Pod name that is not a DNS subdomain', {}, { name: 'A_b' }],
  // One label each: kube walks labels in Go map order, so two bad ones come in either order.
  ['a bad label key', {}, { labels: { 'bad key!': 'v' } }],
  ['a bad label value', {}, { labels: { k: 'bad value!' } }],
  ['too large annotations', {}, { annotations: { big: 'x'.repeat(256 * 1024) } }],
  [
    'several problems at once',
    {
      restartPolicy: 'X',
      volumes: [{ name: 'v', emptyDir: {} }],
      containers: [{ name: 'c' }, c({ ports: [{ containerPort: 0 }] })],
    },
  ],
];

/** A Status observation with every message cut to its first line. */
function firstLines(o: unknown): unknown {
  const obs = o as Json;
  const cut = (m: unknown) => (typeof m === 'string' ? m.split('\n')[0] : m);
  const causes = obs['causes'] as Json[] | undefined;
  return {
    ...obs,
    message: cut(obs['message']),
    ...(causes ? { causes: causes.map((x) => ({ ...x, message: cut(x['message']) })) } : {}),
  };
}

async function jsonPatch(t: Target, ns: string, ops: unknown[]): Promise<unknown> {
  const res = await t.request('PATCH', nsPath(V1, ns, 'pods', 'a'), {
    contentType: 'application/json-patch+json',
    body: ops,
  });
  if (res.status === 200) {
    const spec = (res.body as Json)['spec'] as Json;
    return { status: 200, image: ((spec['containers'] as Json[])[0] ?? {})['image'] };
  }
  return firstLines(observe(res));
}

/** [what, JSON patch] updates of a Pod created with one container and a toleration. */
const UPDATES: [string, unknown[]][] = [
  ['changing restartPolicy', [{ op: 'add', path: '/spec/restartPolicy', value: 'Never' }]],
  ['setting hostname', [{ op: 'add', path: '/spec/hostname', value: 'h' }]],
  ['adding a container', [{ op: 'add', path: '/spec/containers/-', value: c({ name: 'd' }) }]],
  ['clearing the image', [{ op: 'replace', path: '/spec/containers/0/image', value: '' }]],
  ['changing the image', [{ op: 'replace', path: '/spec/containers/0/image', value: 'busybox:2' }]],
  [
    'adding a toleration',
    [{ op: 'add', path: '/spec/tolerations/-', value: { key: 'b', operator: 'Exists' } }],
  ],
  ['removing a toleration', [{ op: 'remove', path: '/spec/tolerations/0' }]],
  [
    'setting activeDeadlineSeconds',
    [{ op: 'add', path: '/spec/activeDeadlineSeconds', value: 60 }],
  ],
  [
    'raising activeDeadlineSeconds',
    [{ op: 'replace', path: '/spec/activeDeadlineSeconds', value: 90 }],
  ],
  [
    'lowering activeDeadlineSeconds',
    [{ op: 'replace', path: '/spec/activeDeadlineSeconds', value: 30 }],
  ],
  ['unsetting activeDeadlineSeconds', [{ op: 'remove', path: '/spec/activeDeadlineSeconds' }]],
  [
    'a bad container port on update',
    [{ op: 'add', path: '/spec/containers/0/ports', value: [{ containerPort: 0 }] }],
  ],
];

export const POD_VALIDATION_CASES: ConformanceCase[] = [
  ...INVALID_PODS.map(([what, spec, meta]): ConformanceCase => ({
    name: `pod validation: ${what} is 422`,
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      const { name = 'a', ...rest } = meta ?? {};
      rec('create', observe(await createPod(t, ns, pod(String(name), spec, rest))));
    },
  })),
  {
    name: 'pod validation: a Pod spec is immutable except images, deadlines, tolerations',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      const tolerations = [{ key: 'a', operator: 'Exists', effect: 'NoSchedule' }];
      const created = await createPod(t, ns, pod('a', { tolerations }));
      rec('create', created.status);
      for (const [what, ops] of UPDATES) rec(what, await jsonPatch(t, ns, ops));
    },
  },
];

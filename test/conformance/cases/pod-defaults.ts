// Pod defaulting and admission cases: the whole Pod as created (and as read back) — the
// SetDefaults_* defaults of kube's core/v1 and what the ServiceAccount, DefaultTolerationSeconds
// and Priority admission plugins add. The token volume's generated suffix is the one value
// normalized here; managedFields are compared too.
import { nsPath, observe, type ConformanceCase } from '../case.ts';
import { normalizeGeneratedName } from '../normalize.ts';
import type { HttpResult } from '../target.ts';
import { createPod, pod, V1, waitForDefaultServiceAccount } from './pods.ts';

type Json = Record<string, unknown>;

const TOKEN_VOLUME_PREFIX = 'kube-api-access-';

/** The answer with `kube-api-access-xxxxx` (volume and mounts) as `kube-api-access-<rand>`. */
function withTokenVolumeName(res: HttpResult): unknown {
  const rename = (v: unknown): unknown => {
    if (typeof v === 'string') return normalizeGeneratedName(v, TOKEN_VOLUME_PREFIX);
    if (Array.isArray(v)) return v.map(rename);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rename(x)]));
  };
  return { status: res.status, body: rename(res.body) };
}

const PROBE_SPEC: Json = {
  initContainers: [{ name: 'init', image: `registry.local:5000/init@sha256:${'0'.repeat(64)}` }],
  containers: [
    {
      name: 'c',
      image: 'busybox:1.36',
      ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP', name: 'dns' }],
      env: [
        { name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'B', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
        { name: 'C', value: 'plain' },
      ],
      resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } },
      livenessProbe: { httpGet: { port: 80 } },
      readinessProbe: { tcpSocket: { port: 80 }, periodSeconds: 3 },
      startupProbe: { exec: { command: ['true'] }, timeoutSeconds: 0 },
      lifecycle: { preStop: { httpGet: { port: 80, path: '/stop' } } },
      volumeMounts: [{ name: 's', mountPath: '/s' }],
    },
    { name: 'd', image: 'localhost:5000/img', readinessProbe: { grpc: { port: 9 } } },
    { name: 'e', image: 'nginx:latest' },
  ],
  volumes: [
    { name: 's', secret: { secretName: 's' } },
    { name: 'cm', configMap: { name: 'cm', items: [{ key: 'k', path: 'p' }] } },
    { name: 'ed', emptyDir: {} },
    {
      name: 'dapi',
      downwardAPI: { items: [{ path: 'nm', fieldRef: { fieldPath: 'metadata.name' } }] },
    },
    { name: 'proj', projected: { sources: [{ configMap: { name: 'cm' } }] } },
    { name: 'h', hostPath: { path: '/tmp' } },
    { name: 'none' },
    { name: 'pvc', persistentVolumeClaim: { claimName: 'x' } },
  ],
};

/** [what, Pod spec (over pod()'s), Pod metadata] for whole-object comparisons. */
const SPECS: [string, Json, Json?][] = [
  ['minimal', {}],
  ['probes, ports, env, resources and volumes', PROBE_SPEC],
  [
    'host network, own tolerations, no token, a system priority class',
    {
      hostNetwork: true,
      automountServiceAccountToken: false,
      priorityClassName: 'system-cluster-critical',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists' }],
      containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 8080 }] }],
    },
  ],
  [
    'a token mount of its own, pod-level limits, explicit values kept',
    {
      restartPolicy: 'Never',
      dnsPolicy: 'Default',
      terminationGracePeriodSeconds: 0,
      enableServiceLinks: false,
      securityContext: { runAsUser: 1000 },
      resources: { limits: { cpu: '1', memory: '1Gi' } },
      containers: [
        {
          name: 'c',
          image: 'x',
          imagePullPolicy: 'Never',
          volumeMounts: [
            { name: 'own', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' },
          ],
        },
        { name: 'd', image: 'x' },
      ],
      volumes: [{ name: 'own', emptyDir: {} }],
    },
  ],
];

export const POD_DEFAULT_CASES: ConformanceCase[] = [
  ...SPECS.map(([what, spec, meta]): ConformanceCase => ({
    name: `pods defaulting: ${what} — the whole Pod as created and as read`,
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      rec('create', withTokenVolumeName(await createPod(t, ns, pod('a', spec, meta))));
      rec('get', withTokenVolumeName(await t.request('GET', nsPath(V1, ns, 'pods', 'a'))));
    },
  })),
  {
    name: 'pods defaulting: a ServiceAccount without automount, with imagePullSecrets',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      const sa = {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'quiet' },
        automountServiceAccountToken: false,
        imagePullSecrets: [{ name: 'pull' }],
      };
      rec('sa', (await t.request('POST', nsPath(V1, ns, 'serviceaccounts'), { body: sa })).status);
      const created = await createPod(t, ns, pod('a', { serviceAccountName: 'quiet' }));
      rec('create', withTokenVolumeName(created));
      // The Pod's own choice wins over the ServiceAccount's.
      const mounted = pod('b', { serviceAccount: 'quiet', automountServiceAccountToken: true });
      rec('pod says mount', withTokenVolumeName(await createPod(t, ns, mounted)));
    },
  },
  {
    name: 'pods admission: a missing ServiceAccount, a priority or preemptionPolicy of its own is 403',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      const specs: [string, Json, Json?][] = [
        ['missing service account', { serviceAccountName: 'ghost' }],
        ['priority', { priority: 5 }, { generateName: 'g' }],
        ['matching priority', { priority: 0 }],
        ['preemptionPolicy', { preemptionPolicy: 'Never' }],
        ['system class', { priorityClassName: 'system-node-critical', priority: 1 }],
      ];
      for (const [i, [what, spec, meta]] of specs.entries()) {
        const body = pod(`p${i}`, spec, meta);
        if (meta) delete (body['metadata'] as Json)['name'];
        const res = await createPod(t, ns, body);
        rec(what, res.status === 201 ? res.status : observe(res));
      }
    },
  },
  {
    name: 'pods defaulting: an update that drops defaulted fields gets them back',
    run: async (t, ns, rec) => {
      await waitForDefaultServiceAccount(t, ns);
      await createPod(t, ns, pod('a', { containers: [{ name: 'c', image: 'x:1' }] }));
      const path = nsPath(V1, ns, 'pods', 'a');
      const patch = [
        { op: 'remove', path: '/spec/containers/0/terminationMessagePolicy' },
        { op: 'remove', path: '/spec/dnsPolicy' },
        { op: 'add', path: '/metadata/labels', value: { x: 'y' } },
      ];
      const res = await t.request('PATCH', path, {
        contentType: 'application/json-patch+json',
        body: patch,
      });
      rec('patch', withTokenVolumeName(res));
    },
  },
];

/** Other built-in kinds with decode-time defaults: the whole object as created and as read. */
export const KIND_DEFAULT_CASES: ConformanceCase[] = [
  {
    name: 'secrets defaulting: type Opaque, stringData folded into data',
    run: async (t, ns, rec) => {
      const secret = {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'a' },
        data: { keep: 'eA==', over: 'eA==' },
        stringData: { over: 'written', added: 'more' },
      };
      const path = nsPath(V1, ns, 'secrets');
      rec('create', withTokenVolumeName(await t.request('POST', path, { body: secret })));
      const patch = { stringData: { later: 'x' } };
      rec(
        'merge patch with stringData',
        withTokenVolumeName(
          await t.request('PATCH', `${path}/a`, {
            contentType: 'application/merge-patch+json',
            body: patch,
          }),
        ),
      );
    },
  },
  {
    // The real cluster's StorageObjectInUseProtection admission also adds the
    // kubernetes.io/pvc-protection finalizer; the embedded server has no controller to remove it,
    // so it does not add it, and the case compares spec and status only.
    name: 'persistentvolumeclaims defaulting: volumeMode Filesystem, status phase Pending',
    run: async (t, ns, rec) => {
      const pvc = {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'a' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        status: { phase: 'Bound' },
      };
      const res = await t.request('POST', nsPath(V1, ns, 'persistentvolumeclaims'), { body: pvc });
      const body = res.body as Json;
      rec('create', { status: res.status, spec: body['spec'], pvcStatus: body['status'] });
    },
  },
  {
    name: 'networkpolicies defaulting: policyTypes from the rules, port protocol TCP',
    run: async (t, ns, rec) => {
      const path = nsPath('/apis/networking.k8s.io/v1', ns, 'networkpolicies');
      const policy = (name: string, spec: Json) => ({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name },
        spec: { podSelector: {}, ...spec },
      });
      const specs: [string, Json][] = [
        ['ingress', { ingress: [{ ports: [{ port: 80 }] }] }],
        ['egress', { egress: [{ ports: [{ port: 53, protocol: 'UDP' }, { port: 443 }] }] }],
        ['chosen', { policyTypes: ['Egress'] }],
      ];
      for (const [name, spec] of specs) {
        const res = await t.request('POST', path, { body: policy(name, spec) });
        rec(name, withTokenVolumeName(res));
      }
    },
  },
];

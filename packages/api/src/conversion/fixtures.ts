// Realistic objects for the conversion tests (test support only; nothing in src imports it).
// They carry the metadata the API server adds (uid, resourceVersion, ownerReferences, ...) and
// one field neither version knows, so the tests also prove carry-over.
import type { ObjectMeta } from '@agent-sandbox/kube-types';
import type { Sandbox as SandboxV1alpha1 } from '../v1alpha1/sandbox.ts';
import type { SandboxTemplate as SandboxTemplateV1alpha1 } from '../v1alpha1/sandbox-template.ts';
import type { Sandbox as SandboxV1beta1 } from '../v1beta1/sandbox.ts';
import type { SandboxTemplate as SandboxTemplateV1beta1 } from '../v1beta1/sandbox-template.ts';

/** Freezes `value` and everything inside it, so a test fails if conversion writes to its input. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Typical stored metadata; a key given as undefined in `extra` is left out altogether. */
export function meta(name: string, extra: Partial<ObjectMeta> = {}): ObjectMeta {
  const all: ObjectMeta = {
    name,
    namespace: 'team-a',
    uid: `0b6f3c52-${name.length.toString().padStart(4, '0')}-4d7e-9c1a-5f2e8d9b7a10`,
    resourceVersion: '4217',
    generation: 2,
    creationTimestamp: '2026-11-30T07:00:00Z',
    labels: { 'app.kubernetes.io/name': name, team: 'a' },
    annotations: { 'example.com/owner': 'alice' },
    ...extra,
  };
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined));
}

export const podSpec = {
  containers: [
    {
      name: 'agent',
      image: 'registry.example.com/agent:1.4.2',
      ports: [{ containerPort: 8888, protocol: 'TCP' }],
      resources: { requests: { cpu: '250m', memory: '512Mi' } },
      volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }],
    },
  ],
  restartPolicy: 'Always',
};

export const podTemplate = { spec: podSpec, metadata: { labels: { sandbox: 'python' } } };

export const volumeClaimTemplates = [
  {
    metadata: { name: 'workspace', labels: { tier: 'scratch' } },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } },
  },
];

export const readyCondition = {
  type: 'Ready',
  status: 'True' as const,
  observedGeneration: 2,
  lastTransitionTime: '2026-11-30T07:01:00Z',
  reason: 'DependenciesReady',
  message: 'Pod is Ready; Service Exists',
};

export const suspendedCondition = {
  type: 'Suspended',
  status: 'True' as const,
  observedGeneration: 3,
  lastTransitionTime: '2026-11-30T07:05:00Z',
  reason: 'PodTerminated',
  message: 'Pod has been terminated. Sandbox is suspended',
};

export const ownerReferences = [
  {
    apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
    kind: 'SandboxClaim',
    name: 'claim-1',
    uid: '7d1c4a60-1111-4c5e-8f00-3a2b1c0d9e8f',
    controller: true,
    blockOwnerDeletion: true,
  },
];

export function v1alpha1Sandboxes(): SandboxV1alpha1[] {
  const base = { apiVersion: 'agents.x-k8s.io/v1alpha1', kind: 'Sandbox' };
  return [
    { ...base, metadata: meta('minimal'), spec: { podTemplate: { spec: podSpec } } },
    {
      ...base,
      metadata: meta('running', { ownerReferences, finalizers: ['example.com/keep'] }),
      spec: {
        podTemplate,
        volumeClaimTemplates,
        service: true,
        shutdownTime: '2026-12-01T00:00:00Z',
        shutdownPolicy: 'Delete',
        replicas: 1,
      },
      status: {
        conditions: [readyCondition],
        podIPs: ['10.244.0.7'],
        selector: 'agents.x-k8s.io/sandbox-name-hash=8a2c7f10',
        service: 'running',
        serviceFQDN: 'running.team-a.svc.cluster.local',
        replicas: 1,
      },
    },
    {
      ...base,
      metadata: meta('suspended', { annotations: undefined }),
      spec: { podTemplate, replicas: 0, service: false, shutdownPolicy: 'Retain' },
      status: { conditions: [suspendedCondition], replicas: 0 },
    },
    {
      ...base,
      metadata: meta('unknown-fields'),
      spec: { podTemplate, futureField: { enabled: true } } as SandboxV1alpha1['spec'],
      status: {
        replicas: 1,
        lifecycle: { firstReadyRecordState: 'Recorded' },
      } as SandboxV1alpha1['status'],
    },
  ];
}

export function v1beta1Sandboxes(): SandboxV1beta1[] {
  const base = { apiVersion: 'agents.x-k8s.io/v1beta1', kind: 'Sandbox' };
  return [
    {
      ...base,
      metadata: meta('hub-running'),
      spec: {
        podTemplate,
        volumeClaimTemplates,
        service: true,
        shutdownPolicy: 'Retain',
        operatingMode: 'Running',
      },
      status: {
        conditions: [readyCondition],
        podIPs: ['10.244.1.9'],
        selector: 'agents.x-k8s.io/sandbox-name-hash=11aa22bb',
      },
    },
    {
      ...base,
      metadata: meta('hub-suspended', { labels: undefined }),
      spec: { podTemplate, shutdownPolicy: 'Delete', operatingMode: 'Suspended' },
      status: { conditions: [suspendedCondition] },
    },
    {
      ...base,
      metadata: meta('hub-new', { annotations: undefined }),
      spec: { podTemplate: { spec: podSpec }, shutdownPolicy: 'Retain', operatingMode: 'Running' },
    },
  ];
}

export function v1alpha1Templates(): SandboxTemplateV1alpha1[] {
  const base = { apiVersion: 'extensions.agents.x-k8s.io/v1alpha1', kind: 'SandboxTemplate' };
  return [
    { ...base, metadata: meta('python'), spec: { podTemplate } },
    {
      ...base,
      metadata: meta('secure', {
        annotations: { 'api.agents.x-k8s.io/v1beta1-volume-claim-templates-policy': 'Allowed' },
      }),
      spec: {
        podTemplate,
        volumeClaimTemplates,
        service: true,
        networkPolicy: {
          egress: [{ to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['169.254.169.254/32'] } }] }],
        },
        networkPolicyManagement: 'Managed',
        envVarsInjectionPolicy: 'Overrides',
      },
    },
  ];
}

export function v1beta1Templates(): SandboxTemplateV1beta1[] {
  const base = { apiVersion: 'extensions.agents.x-k8s.io/v1beta1', kind: 'SandboxTemplate' };
  return [
    {
      ...base,
      metadata: meta('hub-python', { annotations: undefined }),
      spec: {
        podTemplate,
        networkPolicyManagement: 'Managed',
        envVarsInjectionPolicy: 'Disallowed',
        volumeClaimTemplatesPolicy: 'Disallowed',
      },
    },
    {
      ...base,
      metadata: meta('hub-overrides'),
      spec: {
        podTemplate,
        volumeClaimTemplates,
        networkPolicyManagement: 'Unmanaged',
        volumeClaimTemplatesPolicy: 'Overrides',
      },
    },
    { ...base, metadata: meta('hub-no-policy'), spec: { podTemplate } },
  ];
}

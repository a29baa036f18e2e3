// Object builders for the controllers' unit tests (STYLE.md "Test data": builders, no fake client).
import type { v1beta1 } from '@agent-sandbox/api';
import type { OwnerReference, Pod, PodCondition, Service } from '@agent-sandbox/kube-types';

export const SANDBOX_UID = 'sandbox-uid-1';
export const NOW = new Date('2026-01-01T00:00:00Z');

/** A minimal v1beta1 Sandbox `default/<name>` with one container, generation 1. */
export function sandbox(
  name = 'my-sandbox',
  mutate: (s: v1beta1.Sandbox) => void = () => undefined,
): v1beta1.Sandbox {
  const s: v1beta1.Sandbox = {
    apiVersion: 'agents.x-k8s.io/v1beta1',
    kind: 'Sandbox',
    metadata: { name, namespace: 'default', uid: SANDBOX_UID, generation: 1 },
    spec: {
      podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox' }] } },
    },
  };
  mutate(s);
  return s;
}

export function ownerRef(uid: string, kind = 'Sandbox', name = 'my-sandbox'): OwnerReference {
  const apiVersion =
    kind === 'Sandbox' ? 'agents.x-k8s.io/v1beta1' : 'extensions.agents.x-k8s.io/v1beta1';
  return { apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true };
}

export interface PodOptions {
  owner?: OwnerReference;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  phase?: string;
  conditions?: PodCondition[];
  podIPs?: string[];
  nodeName?: string;
  deletionTimestamp?: string;
}

export function pod(name: string, options: PodOptions = {}): Pod {
  const p: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'main', image: 'busybox' }] },
    status: {},
  };
  const metadata = p.metadata ?? {};
  if (options.owner !== undefined) metadata.ownerReferences = [options.owner];
  if (options.labels !== undefined) metadata.labels = options.labels;
  if (options.annotations !== undefined) metadata.annotations = options.annotations;
  if (options.deletionTimestamp !== undefined) {
    metadata.deletionTimestamp = options.deletionTimestamp;
  }
  const status = p.status ?? {};
  if (options.phase !== undefined) status.phase = options.phase;
  if (options.conditions !== undefined) status.conditions = options.conditions;
  if (options.podIPs !== undefined) status.podIPs = options.podIPs.map((ip) => ({ ip }));
  if (options.nodeName !== undefined && p.spec !== undefined) p.spec.nodeName = options.nodeName;
  return p;
}

/** A Running Pod whose Ready condition is True. */
export function readyPod(name: string, options: PodOptions = {}): Pod {
  return pod(name, {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True' }],
    podIPs: ['10.0.0.1'],
    ...options,
  });
}

export function service(
  name: string,
  owner?: OwnerReference,
  labels?: Record<string, string>,
): Service {
  const s: Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default' },
    spec: { clusterIP: 'None' },
  };
  if (owner !== undefined && s.metadata !== undefined) s.metadata.ownerReferences = [owner];
  if (labels !== undefined && s.metadata !== undefined) s.metadata.labels = labels;
  return s;
}

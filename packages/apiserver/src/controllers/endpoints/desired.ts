// What kube-controller-manager's endpointslice and endpoints controllers would publish for one
// Service, computed from the Service and the Pods of its namespace. Pure: the controllers
// (endpoint-controllers.ts) read the store, call these, and write the difference.
import type { KubeObject } from '../../objects.ts';

type Json = Record<string, unknown>;

export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const SLICE_CONTROLLER = 'endpointslice-controller.k8s.io';
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';
export const TRIGGER_TIME_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';

export interface ServicePort {
  name?: string;
  protocol?: string;
  port?: number;
  targetPort?: number | string;
  appProtocol?: string;
}

/** One resolved port of an endpoint (discovery.v1 EndpointPort / core.v1 EndpointPort). */
export interface EndpointPort {
  name: string;
  protocol: string;
  port: number;
  appProtocol?: string;
}

/** One Pod as an endpoint of the Service. */
export interface PodEndpoint {
  ip: string;
  pod: { name: string; namespace: string; uid: string };
  nodeName: string;
  hostname?: string;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  ports: EndpointPort[];
}

function spec(obj: KubeObject): Json {
  const s = obj['spec'];
  return typeof s === 'object' && s !== null ? (s as Json) : {};
}

/** The Service's selector when this controller manages its endpoints (non-empty, not ExternalName). */
export function managedSelector(svc: KubeObject): Record<string, string> | undefined {
  const s = spec(svc);
  const selector = s['selector'] as Record<string, string> | undefined;
  if (s['type'] === 'ExternalName' || !selector || Object.keys(selector).length === 0)
    return undefined;
  return selector;
}

function matches(selector: Record<string, string>, pod: KubeObject): boolean {
  const labels = pod.metadata.labels ?? {};
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

interface ContainerPort {
  name?: string;
  containerPort?: number;
  protocol?: string;
}

/** podutil.FindPort: a number as is, a name looked up in the containers' ports (same protocol). */
function findPort(pod: KubeObject, sp: ServicePort): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === 'number') return target;
  if (typeof target !== 'string') return undefined;
  if (/^\d+$/.test(target)) return Number(target);
  const s = spec(pod);
  const containers = [
    ...((s['containers'] as Json[] | undefined) ?? []),
    ...((s['initContainers'] as Json[] | undefined) ?? []).filter(
      (c) => c['restartPolicy'] === 'Always',
    ),
  ];
  for (const c of containers)
    for (const p of (c['ports'] as ContainerPort[] | undefined) ?? [])
      if (p.name === target && (p.protocol ?? 'TCP') === (sp.protocol ?? 'TCP'))
        return p.containerPort;
  return undefined;
}

function podReadyCondition(pod: KubeObject): Json | undefined {
  const status = (pod['status'] ?? {}) as Json;
  return ((status['conditions'] as Json[] | undefined) ?? []).find((c) => c['type'] === 'Ready');
}

/**
 * The Service's endpoints: matching Pods with an IP on a node (kube skips Pods whose node it
 * cannot find, which includes unscheduled ones), not terminal; terminating ones included.
 */
export function podEndpoints(svc: KubeObject, pods: readonly KubeObject[]): PodEndpoint[] {
  const selector = managedSelector(svc);
  if (!selector) return [];
  const s = spec(svc);
  const publishNotReady = s['publishNotReadyAddresses'] === true;
  const servicePorts = (s['ports'] as ServicePort[] | undefined) ?? [];
  const out: PodEndpoint[] = [];
  for (const pod of pods) {
    if (!matches(selector, pod)) continue;
    const status = (pod['status'] ?? {}) as Json;
    const ip = typeof status['podIP'] === 'string' ? status['podIP'] : '';
    const nodeName = spec(pod)['nodeName'];
    if (ip === '' || typeof nodeName !== 'string' || nodeName === '') continue;
    if (status['phase'] === 'Succeeded' || status['phase'] === 'Failed') continue;
    const ready = podReadyCondition(pod);
    const isReady = ready?.['status'] === 'True';
    const terminating = pod.metadata.deletionTimestamp !== undefined;
    const ports: EndpointPort[] = [];
    for (const sp of servicePorts) {
      const port = findPort(pod, sp);
      if (port === undefined) continue;
      ports.push({
        name: sp.name ?? '',
        protocol: sp.protocol ?? 'TCP',
        port,
        ...(sp.appProtocol !== undefined ? { appProtocol: sp.appProtocol } : {}),
      });
    }
    const hostname = spec(pod)['hostname'];
    const subdomain = spec(pod)['subdomain'];
    out.push({
      ip,
      pod: {
        name: pod.metadata.name ?? '',
        namespace: pod.metadata.namespace ?? '',
        uid: pod.metadata.uid ?? '',
      },
      nodeName,
      ...(typeof hostname === 'string' && hostname !== '' && subdomain === svc.metadata.name
        ? { hostname }
        : {}),
      ready: (isReady || publishNotReady) && !terminating,
      serving: isReady || publishNotReady,
      terminating,
      ports,
    });
  }
  return out.sort((a, b) => (a.pod.name < b.pod.name ? -1 : a.pod.name > b.pod.name ? 1 : 0));
}

/** Labels of the published objects: the Service's own, plus the controller's. */
export function publishedLabels(
  svc: KubeObject,
  extra: Record<string, string>,
): Record<string, string> {
  const labels: Record<string, string> = { ...(svc.metadata.labels ?? {}), ...extra };
  if (spec(svc)['clusterIP'] === 'None') labels[HEADLESS_LABEL] = '';
  return labels;
}

/**
 * kube's TriggerTimeTracker: a Service's endpoints.kubernetes.io/last-change-trigger-time is the
 * earliest change not yet published — a selected Pod's Ready transition newer than last seen, or
 * the Service's creation when the Service is new to the controller — and absent when nothing
 * changed (a recreated slice of an unchanged Service carries none).
 */
export class TriggerTimeTracker {
  readonly #state = new Map<string, { service: string; pods: Map<string, string> }>();

  compute(key: string, svc: KubeObject, pods: readonly KubeObject[]): string | undefined {
    const selector = managedSelector(svc);
    const previous = this.#state.get(key);
    const next = { service: svc.metadata.creationTimestamp ?? '', pods: new Map<string, string>() };
    const changed: string[] = [];
    for (const pod of pods) {
      if (!selector || !matches(selector, pod)) continue;
      const t = podReadyCondition(pod)?.['lastTransitionTime'];
      if (typeof t !== 'string') continue;
      const name = pod.metadata.name ?? '';
      next.pods.set(name, t);
      const seen = previous?.pods.get(name);
      if (seen === undefined || seen < t) changed.push(t);
    }
    if (!previous || previous.service < next.service) changed.push(next.service);
    this.#state.set(key, next);
    return changed.filter((t) => t !== '').sort()[0];
  }

  forget(key: string): void {
    this.#state.delete(key);
  }
}

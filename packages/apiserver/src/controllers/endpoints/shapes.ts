// The published objects' content for one Service: EndpointSlices grouped by resolved port set
// (kube puts endpoints whose named ports resolve differently into different slices, and keeps
// one placeholder slice with no endpoints and no ports when there are none) and the core
// Endpoints' subsets (ready and not-ready addresses per port set; terminating Pods left out).
import type { OwnerReference } from '@agent-sandbox/kube-types';
import type { KubeObject } from '../../objects.ts';
import type { EndpointPort, PodEndpoint } from './desired.ts';

type Json = Record<string, unknown>;

export interface SliceContent {
  endpoints: Json[] | null;
  ports: EndpointPort[] | null;
}

function sliceEndpoint(e: PodEndpoint): Json {
  return {
    addresses: [e.ip],
    conditions: { ready: e.ready, serving: e.serving, terminating: e.terminating },
    ...(e.hostname !== undefined ? { hostname: e.hostname } : {}),
    targetRef: { kind: 'Pod', namespace: e.pod.namespace, name: e.pod.name, uid: e.pod.uid },
    nodeName: e.nodeName,
  };
}

function groupByPorts(endpoints: readonly PodEndpoint[]): Map<string, PodEndpoint[]> {
  const groups = new Map<string, PodEndpoint[]>();
  for (const e of endpoints) {
    const key = JSON.stringify(e.ports);
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  return groups;
}

/** The slices' content, one per port set; a placeholder when nothing is ready to publish. */
export function sliceContents(endpoints: readonly PodEndpoint[]): SliceContent[] {
  if (endpoints.length === 0) return [{ endpoints: null, ports: null }];
  return [...groupByPorts(endpoints).values()].map((group) => ({
    endpoints: group.map(sliceEndpoint),
    ports: group[0]?.ports ?? null,
  }));
}

function address(e: PodEndpoint): Json {
  return {
    ip: e.ip,
    ...(e.hostname !== undefined ? { hostname: e.hostname } : {}),
    nodeName: e.nodeName,
    targetRef: { kind: 'Pod', namespace: e.pod.namespace, name: e.pod.name, uid: e.pod.uid },
  };
}

/** Endpoints.subsets (kube's endpoints controller, repacked by port set); undefined when empty. */
export function endpointSubsets(endpoints: readonly PodEndpoint[]): Json[] | undefined {
  const subsets: Json[] = [];
  const live = endpoints.filter((e) => !e.terminating && e.ports.length > 0);
  for (const group of groupByPorts(live).values()) {
    const ready = group.filter((e) => e.ready).map(address);
    const notReady = group.filter((e) => !e.ready).map(address);
    subsets.push({
      ...(ready.length > 0 ? { addresses: ready } : {}),
      ...(notReady.length > 0 ? { notReadyAddresses: notReady } : {}),
      ports: group[0]?.ports ?? [],
    });
  }
  return subsets.length > 0 ? subsets : undefined;
}

/** The ownerReference kube's endpointslice controller puts on its slices. */
export function serviceOwner(svc: KubeObject): OwnerReference {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    name: svc.metadata.name ?? '',
    uid: svc.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

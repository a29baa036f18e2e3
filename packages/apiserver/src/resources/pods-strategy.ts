// kube-apiserver's Pod strategy (pkg/registry/core/pod/strategy.go) for the write paths: a
// created Pod's status is the server's (phase Pending and its QoS class, whatever the client
// sent); the main resource keeps the stored status (objects.ts prepareUpdate); pods/status keeps
// the stored spec, deletionTimestamp and ownerReferences but, unlike most status subresources,
// takes the client's other metadata (labels, annotations), and backfills an omitted qosClass.
import { isDNS1123Label } from '@agent-sandbox/crd-schema';
import type { KubeObject } from '../objects.ts';
import { computePodQos } from './pods-qos.ts';
import type { ResourceInfo } from './resource.ts';

export function isPod(r: Pick<ResourceInfo, 'group' | 'plural'>): boolean {
  return r.group === '' && r.plural === 'pods';
}

/**
 * PrepareForCreate: status replaced by {phase: Pending, qosClass}. kube takes the QoS class from
 * the status being discarded when the client set one (GetPodQOS runs before the reset), so a
 * client-sent qosClass survives; only its absence makes the server compute it.
 */
export function preparePodCreate(obj: KubeObject): void {
  const sent = record(obj['status'])?.['qosClass'];
  const qosClass = typeof sent === 'string' && sent !== '' ? sent : computePodQos(obj['spec']);
  obj['status'] = { phase: 'Pending', qosClass };
}

/** WarningsOnCreate's name warning: a Pod's name becomes its hostname, so a DNS label is advised. */
export function podCreateWarnings(obj: KubeObject): string[] {
  const problems = isDNS1123Label(obj.metadata.name ?? '');
  if (problems.length === 0) return [];
  return [
    `metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [${problems.join(' ')}]`,
  ];
}

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

/**
 * podStatusStrategy.PrepareForUpdate on `next` (the client's object): spec, deletionTimestamp
 * and ownerReferences from the stored Pod, qosClass backfilled when the client left it out.
 */
export function preparePodStatusUpdate(old: KubeObject, next: KubeObject): KubeObject {
  const out = structuredClone(next);
  if (old['spec'] === undefined) delete out['spec'];
  else out['spec'] = structuredClone(old['spec']);
  const meta = out.metadata;
  if (old.metadata.ownerReferences === undefined) delete meta.ownerReferences;
  else meta.ownerReferences = structuredClone(old.metadata.ownerReferences);
  const status = record(out['status']);
  const oldQos = record(old['status'])?.['qosClass'];
  if (oldQos !== undefined && (status === undefined || !status['qosClass'])) {
    out['status'] = { ...status, qosClass: oldQos };
  }
  const written = record(out['status']);
  if (written) {
    pairIps(written, 'podIP', 'podIPs');
    pairIps(written, 'hostIP', 'hostIPs');
  }
  return out;
}

/**
 * kube's v1 conversion keeps the single and the list form of the Pod's IPs in step: a podIP
 * without podIPs becomes podIPs [{ip}], podIPs without podIP give podIP their first entry.
 */
function pairIps(status: Record<string, unknown>, single: string, plural: string): void {
  const one = status[single];
  const many = status[plural];
  const hasMany = Array.isArray(many) && many.length > 0;
  if (typeof one === 'string' && one !== '' && !hasMany) status[plural] = [{ ip: one }];
  else if (hasMany && (one === undefined || one === '')) {
    const first = record((many as unknown[])[0])?.['ip'];
    if (typeof first === 'string') status[single] = first;
  }
}

// kube-apiserver's Service defaulting and strategy (pkg/apis/core/v1/defaults.go SetDefaults_Service,
// pkg/registry/core/service/strategy.go) for the write paths: defaults on create and update
// (before managedFields are tracked, as kube's decoding defaults are), fields that only some
// types carry dropped when the type changes away from them, spec.clusterIPs immutable on update.
// Allocation of ClusterIPs and nodePorts needs the store: service-allocation.ts.
import { invalid } from '../errors.ts';
import type { KubeObject } from '../objects.ts';
import type { ResourceInfo } from './resource.ts';

type Spec = Record<string, unknown>;

export function isService(r: ResourceInfo): boolean {
  return r.group === '' && r.plural === 'services';
}

function specOf(obj: KubeObject): Spec {
  const s = obj['spec'];
  const out: Spec =
    typeof s === 'object' && s !== null && !Array.isArray(s) ? { ...(s as Spec) } : {};
  obj['spec'] = out;
  return out;
}

const isNodePortType = (t: unknown) => t === 'NodePort' || t === 'LoadBalancer';

/**
 * SetDefaults_Service: type, sessionAffinity, ports[].protocol and targetPort,
 * internalTrafficPolicy, and for NodePort/LoadBalancer externalTrafficPolicy (and
 * allocateLoadBalancerNodePorts for LoadBalancer).
 */
export function defaultService(obj: KubeObject): void {
  const spec = specOf(obj);
  if (spec['type'] === undefined || spec['type'] === '') spec['type'] = 'ClusterIP';
  if (spec['sessionAffinity'] === undefined || spec['sessionAffinity'] === '')
    spec['sessionAffinity'] = 'None';
  if (Array.isArray(spec['ports'])) {
    spec['ports'] = (spec['ports'] as unknown[]).map((p) => {
      if (typeof p !== 'object' || p === null) return p;
      const port = { ...(p as Record<string, unknown>) };
      if (port['protocol'] === undefined || port['protocol'] === '') port['protocol'] = 'TCP';
      if (port['targetPort'] === undefined || port['targetPort'] === 0 || port['targetPort'] === '')
        port['targetPort'] = port['port'];
      return port;
    });
  }
  if (spec['type'] !== 'ExternalName' && spec['internalTrafficPolicy'] === undefined)
    spec['internalTrafficPolicy'] = 'Cluster';
  if (isNodePortType(spec['type']) && spec['externalTrafficPolicy'] === undefined)
    spec['externalTrafficPolicy'] = 'Cluster';
  if (spec['type'] === 'LoadBalancer' && spec['allocateLoadBalancerNodePorts'] === undefined)
    spec['allocateLoadBalancerNodePorts'] = true;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * dropTypeDependentFields: when the type changes away from one that needs a field and the client
 * left that field as it was, the field goes (clusterIPs and IP families for ExternalName,
 * nodePorts and externalTrafficPolicy leaving NodePort/LoadBalancer, ...). kube does this in
 * PrepareForUpdate, after managedFields were tracked, so the manager keeps owning the dropped
 * fields: the update path calls it after trackUpdate (through allocateServiceUpdate).
 */
export function dropTypeDependentFields(oldSpec: Spec, spec: Spec): void {
  const dropIfUnchanged = (key: string, wasNeeded: boolean, isNeeded: boolean) => {
    if (wasNeeded && !isNeeded && same(spec[key], oldSpec[key])) delete spec[key];
  };
  const needsIP = (s: Spec) => s['type'] !== 'ExternalName';
  for (const key of [
    'clusterIP',
    'clusterIPs',
    'ipFamilies',
    'ipFamilyPolicy',
    'internalTrafficPolicy',
  ])
    dropIfUnchanged(key, needsIP(oldSpec), needsIP(spec));
  if (isNodePortType(oldSpec['type']) && !isNodePortType(spec['type'])) {
    const oldPorts = JSON.stringify(
      ((oldSpec['ports'] as Record<string, unknown>[] | undefined) ?? []).map((p) => p['nodePort']),
    );
    const ports = (spec['ports'] as Record<string, unknown>[] | undefined) ?? [];
    if (JSON.stringify(ports.map((p) => p['nodePort'])) === oldPorts)
      spec['ports'] = ports.map((p) => {
        const copy = { ...p };
        delete copy['nodePort'];
        return copy;
      });
  }
  dropIfUnchanged(
    'externalTrafficPolicy',
    isNodePortType(oldSpec['type']),
    isNodePortType(spec['type']),
  );
  const needsHealthCheck = (x: Spec) =>
    x['type'] === 'LoadBalancer' && x['externalTrafficPolicy'] === 'Local';
  dropIfUnchanged('healthCheckNodePort', needsHealthCheck(oldSpec), needsHealthCheck(spec));
  dropIfUnchanged(
    'allocateLoadBalancerNodePorts',
    oldSpec['type'] === 'LoadBalancer',
    spec['type'] === 'LoadBalancer',
  );
}

/**
 * PrepareForUpdate: defaults, unset clusterIP/clusterIPs keep the
 * stored values, a changed clusterIP moves clusterIPs[0] with it, and a changed clusterIPs is
 * `may not change once set` (unless the type leaves or enters ExternalName).
 */
export function prepareServiceUpdate(r: ResourceInfo, old: KubeObject, next: KubeObject): void {
  defaultService(next);
  const spec = specOf(next);
  const oldSpec = (old['spec'] ?? {}) as Spec;
  if (oldSpec['type'] === 'ExternalName' || spec['type'] === 'ExternalName') return;
  const oldIPs = oldSpec['clusterIPs'];
  const unset = (v: unknown) => v === undefined || v === '';
  if (unset(spec['clusterIP']) && unset(spec['clusterIPs'])) {
    if (oldSpec['clusterIP'] !== undefined) spec['clusterIP'] = oldSpec['clusterIP'];
    if (oldIPs !== undefined) spec['clusterIPs'] = structuredClone(oldIPs);
  } else if (
    spec['clusterIP'] !== oldSpec['clusterIP'] &&
    JSON.stringify(spec['clusterIPs']) === JSON.stringify(oldIPs) &&
    Array.isArray(oldIPs)
  ) {
    spec['clusterIPs'] = [spec['clusterIP'], ...(oldIPs as unknown[]).slice(1)];
  }
  for (const k of ['ipFamilies', 'ipFamilyPolicy'] as const)
    if (spec[k] === undefined && oldSpec[k] !== undefined) spec[k] = structuredClone(oldSpec[k]);
  const nextIPs = spec['clusterIPs'];
  if (Array.isArray(oldIPs) && JSON.stringify(nextIPs) !== JSON.stringify(oldIPs)) {
    const value = JSON.stringify(Array.isArray(nextIPs) ? nextIPs : []);
    throw invalid(r, next.metadata.name ?? '', [
      {
        field: 'spec.clusterIPs[0]',
        type: 'FieldValueInvalid',
        message: `Invalid value: ${value}: may not change once set`,
      },
    ]);
  }
}

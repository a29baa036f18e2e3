// kube-apiserver's Service defaulting and strategy (pkg/apis/core/v1/defaults.go SetDefaults_Service,
// pkg/registry/core/service/strategy.go and its ClusterIP allocator) for the write paths:
// defaults on create and update (before managedFields are tracked, as kube's decoding defaults
// are), ClusterIP allocation from the service CIDR on create (after, as kube's registry does), and
// spec.clusterIPs immutable on update.
import { invalid } from '../errors.ts';
import type { KubeObject } from '../objects.ts';
import type { StoreReader } from '../storage/store.ts';
import type { ResourceInfo } from './resource.ts';

/** The harness's --service-cluster-ip-range (test/cluster/src/components.ts). */
export const SERVICE_CIDR = '10.96.0.0/12';

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

/** SetDefaults_Service: type, sessionAffinity, ports[].protocol and targetPort, internalTrafficPolicy. */
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
}

function parseCidr(cidr: string): { base: number; size: number } {
  const [ip, bits] = cidr.split('/');
  return { base: ipToNumber(ip ?? ''), size: 2 ** (32 - Number(bits)) };
}

function ipToNumber(ip: string): number {
  return ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

function numberToIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** Whether `ip` is a usable IPv4 address inside `cidr` (not its network or broadcast address). */
export function inServiceCidr(ip: unknown, cidr = SERVICE_CIDR): boolean {
  if (typeof ip !== 'string' || !/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) return false;
  if (ip.split('.').some((o) => Number(o) > 255)) return false;
  const { base, size } = parseCidr(cidr);
  const n = ipToNumber(ip);
  return n > base && n < base + size - 1;
}

/** Every ClusterIP held by a stored Service. */
function usedClusterIPs(store: StoreReader, r: ResourceInfo): Set<string> {
  const used = new Set<string>();
  const prefix = `/registry/${r.group === '' ? 'core' : r.group}/${r.plural}/`;
  for (const item of store.list(prefix).items) {
    const spec = (JSON.parse(item.value) as KubeObject)['spec'] as Spec | undefined;
    const ips = spec?.['clusterIPs'];
    if (Array.isArray(ips)) for (const ip of ips) if (typeof ip === 'string') used.add(ip);
    if (typeof spec?.['clusterIP'] === 'string') used.add(spec['clusterIP']);
  }
  return used;
}

/**
 * The create strategy after managedFields: clusterIPs follows clusterIP, a ClusterIP is allocated
 * (at random, like kube's allocator; the first address is kept for the `kubernetes` Service), and
 * non-ExternalName Services are single-stack IPv4. The caller writes the object in the same
 * synchronous turn, so the scan of stored Services and the write cannot interleave with another.
 */
export function allocateService(
  r: ResourceInfo,
  obj: KubeObject,
  store: StoreReader,
  random: () => number,
): void {
  obj['status'] = { loadBalancer: {} };
  const spec = specOf(obj);
  if (spec['type'] === 'ExternalName') {
    delete spec['clusterIP'];
    delete spec['clusterIPs'];
    return;
  }
  const ip = spec['clusterIP'];
  const ips = spec['clusterIPs'];
  if ((ip === undefined || ip === '') && Array.isArray(ips) && typeof ips[0] === 'string')
    spec['clusterIP'] = ips[0];
  else if (typeof ip === 'string' && ip !== '' && !Array.isArray(ips)) spec['clusterIPs'] = [ip];
  if (spec['clusterIP'] === undefined || spec['clusterIP'] === '') {
    const used = usedClusterIPs(store, r);
    const { base, size } = parseCidr(SERVICE_CIDR);
    // Offsets 2 .. size-2: not the network address, the kubernetes Service's .1, or broadcast.
    let chosen: string | undefined;
    for (let attempt = 0; attempt < 64 && !chosen; attempt++) {
      const candidate = numberToIp(base + 2 + Math.floor(random() * (size - 3)));
      if (!used.has(candidate)) chosen = candidate;
    }
    for (let offset = 2; !chosen && offset < size - 1; offset++) {
      const candidate = numberToIp(base + offset);
      if (!used.has(candidate)) chosen = candidate;
    }
    if (!chosen) throw new Error('range is full');
    spec['clusterIP'] = chosen;
    spec['clusterIPs'] = [chosen];
  }
  if (spec['ipFamilies'] === undefined) spec['ipFamilies'] = ['IPv4'];
  if (spec['ipFamilyPolicy'] === undefined) spec['ipFamilyPolicy'] = 'SingleStack';
}

/**
 * PrepareForUpdate: unset clusterIP/clusterIPs keep the stored values, a changed clusterIP moves
 * clusterIPs[0] with it, and a changed clusterIPs is `may not change once set`.
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

// kube-apiserver's Service allocators (pkg/registry/core/service/ipallocator and portallocator,
// and the REST layer that drives them): ClusterIPs from the service CIDR and nodePorts from
// 30000-32767, at random like kube, for creates and for type changes on update; client-chosen
// values are checked against the range and against what other Services hold, with kube's 422
// messages. Runs after managedFields are tracked (kube allocates in its registry, so allocated
// values belong to no manager) and in the same synchronous turn as the write, so the scan of
// stored Services cannot interleave with another allocation.
import { isIP, isIPv4 } from 'node:net';
import { internalError, invalid } from '../errors.ts';
import type { KubeObject } from '../objects.ts';
import type { StoreReader } from '../storage/store.ts';
import type { ResourceInfo } from './resource.ts';
import { dropTypeDependentFields } from './service-strategy.ts';

/** The harness's --service-cluster-ip-range (test/cluster/src/components.ts). */
export const SERVICE_CIDR = '10.96.0.0/12';
/** kube-apiserver's default --service-node-port-range. */
export const NODE_PORT_RANGE = { min: 30000, max: 32767 };
/** The CIDR's first address, which kube gives the `kubernetes` Service in `default`. */
const KUBERNETES_SERVICE_OFFSET = 1;

type Spec = Record<string, unknown>;
type Port = Record<string, unknown>;

function specOf(obj: KubeObject): Spec {
  const s = obj['spec'];
  const out: Spec =
    typeof s === 'object' && s !== null && !Array.isArray(s) ? { ...(s as Spec) } : {};
  obj['spec'] = out;
  return out;
}

function portsOf(spec: Spec): Port[] {
  return Array.isArray(spec['ports'])
    ? (spec['ports'] as unknown[]).map((p) =>
        typeof p === 'object' && p !== null ? { ...(p as Port) } : {},
      )
    : [];
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
  if (typeof ip !== 'string' || !isIPv4(ip)) return false;
  const { base, size } = parseCidr(cidr);
  const n = ipToNumber(ip);
  return n > base && n < base + size - 1;
}

/** ClusterIPs and nodePorts held by stored Services other than `self` (namespace/name). */
function inUse(
  store: StoreReader,
  r: ResourceInfo,
  self: string,
): { ips: Set<string>; ports: Set<number> } {
  const { base } = parseCidr(SERVICE_CIDR);
  const ips = new Set<string>([numberToIp(base + KUBERNETES_SERVICE_OFFSET)]);
  const ports = new Set<number>();
  const prefix = `/registry/${r.group === '' ? 'core' : r.group}/${r.plural}/`;
  for (const item of store.list(prefix).items) {
    if (item.key === `${prefix}${self}`) continue;
    const spec = ((JSON.parse(item.value) as KubeObject)['spec'] ?? {}) as Spec;
    const held = spec['clusterIPs'];
    if (Array.isArray(held)) for (const ip of held) if (typeof ip === 'string') ips.add(ip);
    if (typeof spec['clusterIP'] === 'string') ips.add(spec['clusterIP']);
    for (const p of portsOf(spec)) if (typeof p['nodePort'] === 'number') ports.add(p['nodePort']);
    if (typeof spec['healthCheckNodePort'] === 'number') ports.add(spec['healthCheckNodePort']);
  }
  return { ips, ports };
}

function pickRandom<T>(
  random: () => number,
  count: number,
  at: (i: number) => T,
  free: (v: T) => boolean,
): T | undefined {
  for (let attempt = 0; attempt < 64; attempt++) {
    const v = at(Math.floor(random() * count));
    if (free(v)) return v;
  }
  for (let i = 0; i < count; i++) if (free(at(i))) return at(i);
  return undefined;
}

function needsClusterIP(spec: Spec): boolean {
  return spec['type'] !== 'ExternalName';
}

function needsNodePorts(spec: Spec): boolean {
  return (
    spec['type'] === 'NodePort' ||
    (spec['type'] === 'LoadBalancer' && spec['allocateLoadBalancerNodePorts'] !== false)
  );
}

/** Gives the Service a ClusterIP (the requested one, checked, or a free one). */
function allocateClusterIP(
  r: ResourceInfo,
  obj: KubeObject,
  spec: Spec,
  used: Set<string>,
  random: () => number,
): void {
  const name = obj.metadata.name ?? '';
  const ip = spec['clusterIP'];
  const ips = spec['clusterIPs'];
  if ((ip === undefined || ip === '') && Array.isArray(ips) && typeof ips[0] === 'string')
    spec['clusterIP'] = ips[0];
  else if (typeof ip === 'string' && ip !== '' && !Array.isArray(ips)) spec['clusterIPs'] = [ip];
  const requested = spec['clusterIP'];
  if (requested === 'None') {
    spec['clusterIPs'] = ['None'];
  } else if (typeof requested === 'string' && requested !== '') {
    if (!isIP(requested))
      throw invalid(r, name, [
        {
          field: 'spec.clusterIPs[0]',
          type: 'FieldValueInvalid',
          message: `Invalid value: "${requested}": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
        },
      ]);
    const why = !inServiceCidr(requested)
      ? 'the provided network does not match the current range'
      : used.has(requested)
        ? 'provided IP is already allocated'
        : undefined;
    if (why)
      throw invalid(r, name, [
        {
          field: 'spec.clusterIPs',
          type: 'FieldValueInvalid',
          message: `Invalid value: ["${requested}"]: failed to allocate IP ${requested}: ${why}`,
        },
      ]);
  } else {
    const { base, size } = parseCidr(SERVICE_CIDR);
    // Offsets 2 .. size-2: not the network address, the kubernetes Service's .1, or broadcast.
    const chosen = pickRandom(
      random,
      size - 3,
      (i) => numberToIp(base + 2 + i),
      (v) => !used.has(v),
    );
    if (!chosen) throw new Error('range is full');
    spec['clusterIP'] = chosen;
    spec['clusterIPs'] = [chosen];
  }
  if (spec['ipFamilies'] === undefined) spec['ipFamilies'] = ['IPv4'];
  if (spec['ipFamilyPolicy'] === undefined) spec['ipFamilyPolicy'] = 'SingleStack';
}

/** Gives every port a nodePort: the requested one (checked), its previous one, or a free one. */
function allocateNodePorts(
  r: ResourceInfo,
  obj: KubeObject,
  spec: Spec,
  previous: Port[],
  used: Set<number>,
  random: () => number,
): void {
  const ports = portsOf(spec);
  const { min, max } = NODE_PORT_RANGE;
  const issues: { field: string; type: string; message: string }[] = [];
  ports.forEach((p, i) => {
    const requested = p['nodePort'];
    if (typeof requested === 'number' && requested !== 0) {
      const why =
        requested < min || requested > max
          ? `provided port is not in the valid range. The range of valid ports is ${min}-${max}`
          : used.has(requested)
            ? 'provided port is already allocated'
            : undefined;
      if (why)
        issues.push({
          field: `spec.ports[${i}].nodePort`,
          type: 'FieldValueInvalid',
          message: `Invalid value: ${requested}: ${why}`,
        });
      used.add(requested);
      return;
    }
    // An update keeps the nodePort the same port had (matched by name, then by port number).
    const before = previous.find((o) => o['name'] === p['name'] && o['port'] === p['port']);
    const kept = before?.['nodePort'];
    if (typeof kept === 'number' && !used.has(kept)) {
      p['nodePort'] = kept;
    } else {
      const chosen = pickRandom(
        random,
        max - min + 1,
        (k) => min + k,
        (v) => !used.has(v),
      );
      if (chosen === undefined) throw new Error('range is full');
      p['nodePort'] = chosen;
    }
    used.add(p['nodePort'] as number);
  });
  if (issues.length > 0) throw invalid(r, obj.metadata.name ?? '', issues);
  spec['ports'] = ports;
}

/** ValidateService's type-dependent rules the OpenAPI schema cannot express. */
function validateTypeFields(r: ResourceInfo, obj: KubeObject, spec: Spec): void {
  const name = spec['externalName'];
  if (spec['type'] !== 'ExternalName') return;
  if (typeof name !== 'string' || name === '')
    throw invalid(r, obj.metadata.name ?? '', [
      { field: 'spec.externalName', type: 'FieldValueRequired', message: 'Required value' },
    ]);
}

/** The create path's allocation (also server-side apply creating a Service). */
export function allocateService(
  r: ResourceInfo,
  obj: KubeObject,
  store: StoreReader,
  random: () => number,
): void {
  obj['status'] = { loadBalancer: {} };
  allocateServiceUpdate(r, undefined, obj, store, random);
}

/**
 * Allocates what `next` needs and `old` did not hold: a ClusterIP when it leaves ExternalName (or
 * is new), nodePorts when it becomes NodePort or LoadBalancer (keeping the old ones per port).
 */
export function allocateServiceUpdate(
  r: ResourceInfo,
  old: KubeObject | undefined,
  next: KubeObject,
  store: StoreReader,
  random: () => number,
): void {
  const spec = specOf(next);
  if (old) dropTypeDependentFields((old['spec'] ?? {}) as Spec, spec);
  validateTypeFields(r, next, spec);
  const self = `${next.metadata.namespace ?? ''}/${next.metadata.name ?? ''}`;
  const used = inUse(store, r, self);
  if (!needsClusterIP(spec)) {
    delete spec['clusterIP'];
    delete spec['clusterIPs'];
  } else {
    const oldSpec = (old?.['spec'] ?? {}) as Spec;
    const held =
      old !== undefined && needsClusterIP(oldSpec) && spec['clusterIP'] === oldSpec['clusterIP'];
    if (!held) allocateClusterIP(r, next, spec, used.ips, random);
  }
  if (needsNodePorts(spec)) {
    const previous = old ? portsOf((old['spec'] ?? {}) as Spec) : [];
    allocateNodePorts(r, next, spec, previous, used.ports, random);
  }
  if (needsHealthCheckNodePort(spec))
    allocateHealthCheckNodePort(spec, (old?.['spec'] ?? {}) as Spec, used.ports, random);
}

export function needsHealthCheckNodePort(spec: Spec): boolean {
  return spec['type'] === 'LoadBalancer' && spec['externalTrafficPolicy'] === 'Local';
}

/**
 * A LoadBalancer with externalTrafficPolicy Local gets a healthCheckNodePort: the requested one
 * (a failure is kube's 500, as its registry reports it), the one it had, or a free one.
 */
function allocateHealthCheckNodePort(
  spec: Spec,
  oldSpec: Spec,
  used: Set<number>,
  random: () => number,
): void {
  const { min, max } = NODE_PORT_RANGE;
  const requested = spec['healthCheckNodePort'];
  const had = needsHealthCheckNodePort(oldSpec) ? oldSpec['healthCheckNodePort'] : undefined;
  if (typeof requested === 'number' && requested !== 0) {
    if (requested === had) return;
    const why =
      requested < min || requested > max
        ? `provided port is not in the valid range. The range of valid ports is ${min}-${max}`
        : used.has(requested)
          ? 'provided port is already allocated'
          : undefined;
    if (why)
      throw internalError(
        new Error(`failed to allocate requested HealthCheck NodePort ${requested}: ${why}`),
      );
    return;
  }
  if (typeof had === 'number') {
    spec['healthCheckNodePort'] = had;
    return;
  }
  const chosen = pickRandom(
    random,
    max - min + 1,
    (k) => min + k,
    (v) => !used.has(v),
  );
  if (chosen === undefined) throw new Error('range is full');
  spec['healthCheckNodePort'] = chosen;
}

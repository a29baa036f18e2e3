// kube-apiserver's EndpointSlice strategy (pkg/apis/discovery validation and v1 defaults):
// ports default to name "" and protocol TCP, `endpoints` and `ports` are never omitted (null when
// unset), and ValidateEndpointSlice's checks with kube's messages and order (addressType, ports,
// endpoints), addressType immutable on update. The OpenAPI schema checks types; this checks values.
import { isIPv4, isIPv6 } from 'node:net';
import {
  duplicate,
  invalid,
  isDNS1123Label,
  isDNS1123Subdomain,
  notSupported,
  required,
  tooMany,
  type FieldIssue,
} from '@agent-sandbox/crd-schema';
import type { KubeObject } from '../objects.ts';
import type { ResourceInfo } from './resource.ts';

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MAX_ENDPOINTS = 1000;
const MAX_PORTS = 100;
const MAX_ADDRESSES = 100;

type Json = Record<string, unknown>;

export function isEndpointSlice(r: Pick<ResourceInfo, 'group' | 'plural'>): boolean {
  return r.group === 'discovery.k8s.io' && r.plural === 'endpointslices';
}

function objects(v: unknown): Json[] | undefined {
  return Array.isArray(v)
    ? v.map((x) => (typeof x === 'object' && x !== null ? (x as Json) : {}))
    : undefined;
}

/** SetDefaults_EndpointPort on every port. */
export function defaultEndpointSlice(obj: KubeObject): void {
  const ports = objects(obj['ports']);
  if (ports)
    obj['ports'] = ports.map((p) => ({
      ...p,
      name: p['name'] ?? '',
      protocol: p['protocol'] ?? 'TCP',
    }));
  // EndpointConditions is a struct, not a pointer: always present, `{}` when empty.
  const endpoints = objects(obj['endpoints']);
  if (endpoints)
    obj['endpoints'] = endpoints.map((e) => ({ ...e, conditions: e['conditions'] ?? {} }));
}

/** `endpoints` and `ports` as Go encodes nil slices (null), after admission, which prunes nulls. */
export function withNullLists(obj: KubeObject): KubeObject {
  return { ...obj, endpoints: obj['endpoints'] ?? null, ports: obj['ports'] ?? null };
}

function validateAddress(
  addressType: string,
  path: string,
  i: number,
  address: string,
): FieldIssue[] {
  const at = `${path}.addresses[${i}]`;
  if (addressType === 'FQDN')
    return isDNS1123Subdomain(address).map((msg) => invalid(at, address, msg));
  if (!isIPv4(address) && !isIPv6(address))
    return [invalid(at, address, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
  // kube reports a wrong-family address against the list, not the item.
  if (addressType === 'IPv4' && !isIPv4(address))
    return [invalid(`${path}.addresses`, address, 'must be an IPv4 address')];
  if (addressType === 'IPv6' && !isIPv6(address))
    return [invalid(`${path}.addresses`, address, 'must be an IPv6 address')];
  return [];
}

function validateEndpoint(addressType: string, path: string, e: Json): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const addresses = Array.isArray(e['addresses']) ? (e['addresses'] as unknown[]) : [];
  if (addresses.length === 0)
    issues.push(required(`${path}.addresses`, 'must contain at least 1 address'));
  else if (addresses.length > MAX_ADDRESSES)
    issues.push(tooMany(`${path}.addresses`, addresses.length, MAX_ADDRESSES));
  else if (ADDRESS_TYPES.includes(addressType))
    addresses.forEach((a, i) => issues.push(...validateAddress(addressType, path, i, String(a))));
  const nodeName = e['nodeName'];
  if (typeof nodeName === 'string' && nodeName !== '')
    for (const msg of isDNS1123Subdomain(nodeName))
      issues.push(invalid(`${path}.nodeName`, nodeName, msg));
  const hostname = e['hostname'];
  if (typeof hostname === 'string')
    for (const msg of isDNS1123Label(hostname))
      issues.push(invalid(`${path}.hostname`, hostname, msg));
  return issues;
}

function validatePorts(ports: Json[]): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (ports.length > MAX_PORTS) return [tooMany('ports', ports.length, MAX_PORTS)];
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const path = `ports[${i}]`;
    const protocol = p['protocol'];
    if (typeof protocol === 'string' && !PROTOCOLS.includes(protocol))
      issues.push(notSupported(`${path}.protocol`, protocol, PROTOCOLS));
    const name = typeof p['name'] === 'string' ? p['name'] : '';
    if (names.has(name)) issues.push(duplicate(`${path}.name`, name));
    else if (name !== '')
      for (const msg of isDNS1123Label(name)) issues.push(invalid(`${path}.name`, name, msg));
    names.add(name);
  });
  return issues;
}

/** ValidateEndpointSlice (and, with `old`, ValidateEndpointSliceUpdate). */
export function validateEndpointSlice(obj: KubeObject, old?: KubeObject): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const addressType = obj['addressType'];
  // A missing addressType is reported by the OpenAPI schema's `required`.
  if (typeof addressType === 'string' && !ADDRESS_TYPES.includes(addressType))
    issues.push(notSupported('addressType', addressType, ADDRESS_TYPES));
  issues.push(...validatePorts(objects(obj['ports']) ?? []));
  const endpoints = objects(obj['endpoints']) ?? [];
  if (endpoints.length > MAX_ENDPOINTS)
    issues.push(tooMany('endpoints', endpoints.length, MAX_ENDPOINTS));
  else
    endpoints.forEach((e, i) =>
      issues.push(...validateEndpoint(String(addressType ?? ''), `endpoints[${i}]`, e)),
    );
  if (old && old['addressType'] !== addressType)
    issues.push(invalid('addressType', addressType, 'field is immutable'));
  return issues;
}

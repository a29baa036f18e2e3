// The defaults kube-apiserver 1.36 gives a v1 Pod when it decodes one (SetDefaults_Pod,
// SetDefaults_PodSpec, SetDefaults_Container and the probe, port, volume and selector defaults of
// pkg/apis/core/v1, plus the v1 conversion's serviceAccount alias). Applied on every write of
// the main resource; pure and idempotent, so defaulting a defaulted Pod changes nothing.
import { quantityNanos } from './pods-qos.ts';

type Json = Record<string, unknown>;

/** 0644, the mode kube gives secret, configMap, downwardAPI and projected volume files. */
export const DEFAULT_FILE_MODE = 420;

/** Defaults `spec` (a Pod's spec, or a pod template's) in place. */
export function defaultPodSpec(spec: unknown): void {
  const s = record(spec);
  if (!s) return;
  setIfAbsent(s, 'dnsPolicy', 'ClusterFirst');
  setIfAbsent(s, 'restartPolicy', 'Always');
  setIfAbsent(s, 'terminationGracePeriodSeconds', 30);
  setIfAbsent(s, 'schedulerName', 'default-scheduler');
  setIfAbsent(s, 'enableServiceLinks', true);
  if (s['securityContext'] === undefined || s['securityContext'] === null)
    s['securityContext'] = {};
  // v1 conversion: serviceAccount is the deprecated spelling of serviceAccountName; the old one
  // fills an empty new one, and answers always carry both.
  if (!s['serviceAccountName'] && typeof s['serviceAccount'] === 'string' && s['serviceAccount'])
    s['serviceAccountName'] = s['serviceAccount'];
  if (typeof s['serviceAccountName'] === 'string' && s['serviceAccountName'])
    s['serviceAccount'] = s['serviceAccountName'];
  const hostNetwork = s['hostNetwork'] === true;
  for (const key of ['initContainers', 'containers'] as const) {
    for (const c of records(s[key])) {
      defaultContainer(c, hostNetwork);
      defaultRequestsFromLimits(record(c['resources']));
    }
  }
  for (const c of records(s['ephemeralContainers'])) defaultContainer(c, hostNetwork);
  for (const v of records(s['volumes'])) defaultVolume(v);
  defaultPodLevelRequests(s);
}

function defaultContainer(c: Json, hostNetwork: boolean): void {
  if (c['imagePullPolicy'] === undefined || c['imagePullPolicy'] === '')
    c['imagePullPolicy'] = pullPolicyFor(c['image']);
  setIfAbsent(c, 'terminationMessagePath', '/dev/termination-log');
  setIfAbsent(c, 'terminationMessagePolicy', 'File');
  if (c['resources'] === undefined || c['resources'] === null) c['resources'] = {};
  for (const p of records(c['ports'])) {
    setIfAbsent(p, 'protocol', 'TCP');
    // With the host's network the container's port is the host's port.
    if (hostNetwork && (p['hostPort'] === undefined || p['hostPort'] === 0))
      p['hostPort'] = p['containerPort'];
  }
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const)
    defaultProbe(record(c[probe]));
  const lifecycle = record(c['lifecycle']);
  if (lifecycle) {
    for (const hook of ['postStart', 'preStop'] as const)
      defaultHttpGet(record(record(lifecycle[hook])?.['httpGet']));
  }
  for (const e of records(c['env'])) defaultEnvSource(record(e['valueFrom']));
}

/**
 * Always for `:latest` or an image without tag or digest, else IfNotPresent. The tag is what
 * follows the last colon after the last slash, so a registry port is no tag.
 */
export function pullPolicyFor(image: unknown): 'Always' | 'IfNotPresent' {
  if (typeof image !== 'string') return 'IfNotPresent';
  if (image.includes('@')) return 'IfNotPresent';
  const lastPart = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastPart.lastIndexOf(':');
  if (colon < 0) return 'Always';
  return lastPart.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(probe: Json | undefined): void {
  if (!probe) return;
  // Plain int32 fields in Go: zero means unset.
  for (const [k, value] of [
    ['timeoutSeconds', 1],
    ['periodSeconds', 10],
    ['successThreshold', 1],
    ['failureThreshold', 3],
  ] as const) {
    if (!probe[k]) probe[k] = value;
  }
  defaultHttpGet(record(probe['httpGet']));
  const grpc = record(probe['grpc']);
  if (grpc) setIfAbsent(grpc, 'service', '');
}

function defaultHttpGet(action: Json | undefined): void {
  if (!action) return;
  if (!action['path']) action['path'] = '/';
  if (!action['scheme']) action['scheme'] = 'HTTP';
}

function defaultEnvSource(source: Json | undefined): void {
  if (!source) return;
  defaultFieldRef(record(source['fieldRef']));
  defaultResourceFieldRef(record(source['resourceFieldRef']));
}

function defaultFieldRef(ref: Json | undefined): void {
  if (ref && !ref['apiVersion']) ref['apiVersion'] = 'v1';
}

/** The divisor is a non-pointer Quantity in Go, so kube always writes it, as "0" when unset. */
function defaultResourceFieldRef(ref: Json | undefined): void {
  if (ref && (ref['divisor'] === undefined || ref['divisor'] === null)) ref['divisor'] = '0';
}

/** Sources kube defaults field by field; a volume with none becomes an emptyDir. */
const VOLUME_SOURCE_DEFAULTS: Record<string, Json> = {
  secret: { defaultMode: DEFAULT_FILE_MODE },
  configMap: { defaultMode: DEFAULT_FILE_MODE },
  downwardAPI: { defaultMode: DEFAULT_FILE_MODE },
  projected: { defaultMode: DEFAULT_FILE_MODE },
  hostPath: { type: '' },
  iscsi: { iscsiInterface: 'default' },
  rbd: { pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' },
  azureDisk: { cachingMode: 'ReadWrite', fsType: 'ext4', readOnly: false, kind: 'Shared' },
  scaleIO: { storageMode: 'ThinProvisioned', fsType: 'xfs' },
};

function defaultVolume(v: Json): void {
  const sources = Object.keys(v).filter((k) => k !== 'name');
  if (sources.length === 0) {
    v['emptyDir'] = {};
    return;
  }
  for (const [source, defaults] of Object.entries(VOLUME_SOURCE_DEFAULTS)) {
    const src = record(v[source]);
    if (!src) continue;
    for (const [k, value] of Object.entries(defaults)) setIfAbsent(src, k, value);
  }
  for (const item of records(record(v['downwardAPI'])?.['items'])) {
    defaultFieldRef(record(item['fieldRef']));
    defaultResourceFieldRef(record(item['resourceFieldRef']));
  }
  for (const projection of records(record(v['projected'])?.['sources'])) {
    for (const item of records(record(projection['downwardAPI'])?.['items'])) {
      defaultFieldRef(record(item['fieldRef']));
      defaultResourceFieldRef(record(item['resourceFieldRef']));
    }
  }
}

/** A limit without a request makes the request equal to the limit. */
function defaultRequestsFromLimits(resources: Json | undefined): void {
  const limits = record(resources?.['limits']);
  if (!resources || !limits || Object.keys(limits).length === 0) return;
  const requests = record(resources['requests']) ?? {};
  for (const [name, limit] of Object.entries(limits)) setIfAbsent(requests, name, limit);
  resources['requests'] = requests;
}

/**
 * Pod-level resources: a limit without a pod-level request gets, as its request, the sum of the
 * containers' requests for that resource when any container has one, else the limit.
 */
function defaultPodLevelRequests(spec: Json): void {
  const resources = record(spec['resources']);
  const limits = record(resources?.['limits']);
  if (!resources || !limits) return;
  const requests = record(resources['requests']) ?? {};
  for (const [name, limit] of Object.entries(limits)) {
    if (requests[name] !== undefined) continue;
    const own = records(spec['containers'])
      .map((c) => record(record(c['resources'])?.['requests'])?.[name])
      .filter((q) => q !== undefined);
    requests[name] = own.length === 0 ? limit : sumQuantities(own);
  }
  if (Object.keys(requests).length > 0) resources['requests'] = requests;
}

/** One request stays as written; several are added up and written in the first one's style. */
function sumQuantities(quantities: unknown[]): unknown {
  if (quantities.length === 1) return quantities[0];
  let nanos = 0n;
  for (const q of quantities) nanos += quantityNanos(q) ?? 0n;
  const milli = nanos / 1_000_000n;
  if (nanos % 1_000_000_000n === 0n) return String(nanos / 1_000_000_000n);
  return `${milli}m`;
}

function setIfAbsent(o: Json, key: string, value: unknown): void {
  if (o[key] === undefined || o[key] === null || o[key] === '') o[key] = value;
}

function record(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

function records(v: unknown): Json[] {
  return Array.isArray(v) ? v.map(record).filter((x): x is Json => x !== undefined) : [];
}

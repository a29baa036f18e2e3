// The part of kube-apiserver's ValidatePodSpec (pkg/apis/core/validation) that clients commonly
// hit, with kube's field paths, messages and order: volumes (names, uniqueness), containers then
// init containers (name, image, ports, volumeMounts, resources; names unique across both
// lists), restartPolicy. Fields kube defaults before validating (protocol, restartPolicy,
// imagePullPolicy, terminationMessagePolicy, volume sources) are only checked when set, since
// the embedded server does not store those defaults. Pure.
import {
  duplicate,
  formatBadValue,
  invalid,
  isDNS1123Label,
  isEnvVarName,
  isQualifiedName,
  isValidLabelValue,
  notSupported,
  required,
  type FieldIssue,
} from '@agent-sandbox/crd-schema';
import { quantityNanos } from './pods-qos.ts';

type Json = Record<string, unknown>;

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const MAX_INT32 = 2147483647;
const PORT_RANGE = 'must be between 1 and 65535, inclusive';

function record(v: unknown): Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};
}

function list(v: unknown): Json[] {
  return Array.isArray(v) ? v.map(record) : [];
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function dnsLabel(value: string, path: string): FieldIssue[] {
  return isDNS1123Label(value).map((msg) => invalid(path, value, msg));
}

/** validation.IsValidPortName. */
function portNameProblems(name: string): string[] {
  const out: string[] = [];
  if (name.length > 15) out.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name))
    out.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) out.push('must contain at least one letter (a-z)');
  if (name.includes('--')) out.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) out.push('must not begin or end with a hyphen');
  return out;
}

function validPort(n: unknown): boolean {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 65535;
}

function validatePorts(ports: Json[], path: string): FieldIssue[] {
  const out: FieldIssue[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = `${path}[${i}]`;
    const name = str(port['name']);
    if (name !== '') {
      const problems = portNameProblems(name);
      if (problems.length > 0) out.push(...problems.map((m) => invalid(`${at}.name`, name, m)));
      else if (names.has(name)) out.push(duplicate(`${at}.name`, name));
      else names.add(name);
    }
    const containerPort = port['containerPort'];
    if (containerPort === undefined || containerPort === 0)
      out.push(required(`${at}.containerPort`));
    else if (!validPort(containerPort))
      out.push(invalid(`${at}.containerPort`, containerPort, PORT_RANGE));
    const hostPort = port['hostPort'];
    if (hostPort !== undefined && hostPort !== 0 && !validPort(hostPort))
      out.push(invalid(`${at}.hostPort`, hostPort, PORT_RANGE));
    const protocol = str(port['protocol']);
    if (protocol !== '' && !PROTOCOLS.includes(protocol))
      out.push(notSupported(`${at}.protocol`, protocol, PROTOCOLS));
  });
  return out;
}

function validateVolumeMounts(mounts: Json[], volumes: Set<string>, path: string): FieldIssue[] {
  const out: FieldIssue[] = [];
  const mountPoints = new Set<string>();
  mounts.forEach((m, i) => {
    const at = `${path}[${i}]`;
    const name = str(m['name']);
    if (name === '') out.push(required(`${at}.name`));
    if (!volumes.has(name)) out.push(notFound(`${at}.name`, name));
    const mountPath = str(m['mountPath']);
    if (mountPath === '') out.push(required(`${at}.mountPath`));
    if (mountPoints.has(mountPath))
      out.push(invalid(`${at}.mountPath`, mountPath, 'must be unique'));
    mountPoints.add(mountPath);
    // kube names this path without the mount's index.
    const subPath = str(m['subPath']);
    if (subPath !== '') out.push(...localDescendingPath(subPath, `${path}.subPath`));
  });
  return out;
}

/** validateLocalDescendingPath: relative, without '..' segments. */
function localDescendingPath(value: string, path: string): FieldIssue[] {
  const out: FieldIssue[] = [];
  if (value.startsWith('/')) out.push(invalid(path, value, 'must be a relative path'));
  if (value.split('/').includes('..')) out.push(invalid(path, value, "must not contain '..'"));
  return out;
}

function validateEnv(env: Json[], path: string): FieldIssue[] {
  const out: FieldIssue[] = [];
  env.forEach((e, i) => {
    const at = `${path}[${i}].name`;
    const name = str(e['name']);
    if (name === '') out.push(required(at));
    else out.push(...isEnvVarName(name).map((m) => invalid(at, name, m)));
  });
  return out;
}

/** field.NotFound (crd-schema has no constructor for it). */
function notFound(field: string, value: string): FieldIssue {
  return {
    type: 'FieldValueNotFound',
    field,
    badValue: value,
    message: `Not found: ${formatBadValue(value)}`,
  };
}

/** helper.IsOvercommitAllowed: native resources other than hugepages may request below the limit. */
function overcommitAllowed(name: string): boolean {
  const native = !name.includes('/') || name.includes('kubernetes.io/');
  return native && !name.startsWith('hugepages-');
}

function quantityText(q: unknown): string {
  return typeof q === 'number' ? String(q) : str(q);
}

/** ValidateResourceRequirements: non-negative quantities, requests within limits. */
function validateResources(resources: Json, path: string): FieldIssue[] {
  const out: FieldIssue[] = [];
  const limits = record(resources['limits']);
  // kube validates after defaulting, which gives a limit without a request that request.
  const requests = { ...record(resources['requests']) };
  for (const [name, q] of Object.entries(limits))
    if (requests[name] === undefined) requests[name] = q;
  for (const [name, q] of Object.entries(limits)) {
    const n = quantityNanos(q);
    if (n !== undefined && n < 0n)
      out.push(
        invalid(`${path}.limits[${name}]`, quantityText(q), 'must be greater than or equal to 0'),
      );
  }
  for (const [name, q] of Object.entries(requests)) {
    const n = quantityNanos(q);
    if (n !== undefined && n < 0n)
      out.push(
        invalid(`${path}.requests[${name}]`, quantityText(q), 'must be greater than or equal to 0'),
      );
    const limit = limits[name];
    const lim = quantityNanos(limit);
    if (limit !== undefined && lim !== undefined && n !== undefined) {
      if (n !== lim && !overcommitAllowed(name)) {
        const detail = `must be equal to ${name} limit of ${quantityText(limit)}`;
        out.push(invalid(`${path}.requests`, quantityText(q), detail));
      } else if (n > lim) {
        const detail = `must be less than or equal to ${name} limit of ${quantityText(limit)}`;
        out.push(invalid(`${path}.requests`, quantityText(q), detail));
      }
    } else if (limit === undefined && !overcommitAllowed(name)) {
      out.push(required(`${path}.limits`, 'Limit must be set for non overcommitable resources'));
    }
  }
  return out;
}

function validateContainer(c: Json, volumes: Set<string>, path: string): FieldIssue[] {
  const out: FieldIssue[] = [];
  const name = str(c['name']);
  if (name === '') out.push(required(`${path}.name`));
  else out.push(...dnsLabel(name, `${path}.name`));
  if (str(c['image']) === '') out.push(required(`${path}.image`));
  const tmpPath = `${path}.terminationMessagePolicy`;
  out.push(...oneOf(c['terminationMessagePolicy'], tmpPath, TERMINATION_MESSAGE_POLICIES));
  out.push(...validatePorts(list(c['ports']), `${path}.ports`));
  out.push(...validateEnv(list(c['env']), `${path}.env`));
  out.push(...validateVolumeMounts(list(c['volumeMounts']), volumes, `${path}.volumeMounts`));
  out.push(...oneOf(c['imagePullPolicy'], `${path}.imagePullPolicy`, PULL_POLICIES));
  out.push(...validateResources(record(c['resources']), `${path}.resources`));
  return out;
}

/** An enum field kube defaults when empty, so checked only when set. */
function oneOf(value: unknown, path: string, allowed: string[]): FieldIssue[] {
  const v = str(value);
  return v !== '' && !allowed.includes(v) ? [notSupported(path, v, allowed)] : [];
}

/** ValidateLabels on a plain map (spec.nodeSelector): keys qualified names, values label values. */
function validateLabels(labels: Json, path: string): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const [key, value] of Object.entries(labels)) {
    out.push(...isQualifiedName(key).map((m) => invalid(path, key, m)));
    out.push(...isValidLabelValue(str(value)).map((m) => invalid(path, str(value), m)));
  }
  return out;
}

/** ValidateVolumes: the names of the volumes that are valid (mounts may refer to those only). */
function validateVolumes(volumes: Json[], out: FieldIssue[]): Set<string> {
  const valid = new Set<string>();
  volumes.forEach((v, i) => {
    const path = `spec.volumes[${i}].name`;
    const name = str(v['name']);
    const issues = name === '' ? [required(path)] : dnsLabel(name, path);
    if (valid.has(name)) issues.push(duplicate(path, name));
    if (issues.length === 0) valid.add(name);
    out.push(...issues);
  });
  return valid;
}

/** ValidatePodSpec's commonly hit checks, for a Pod's `spec`. */
export function validatePodSpec(specValue: unknown): FieldIssue[] {
  const spec = record(specValue);
  const out: FieldIssue[] = [];
  const volumes = validateVolumes(list(spec['volumes']), out);
  const containers = list(spec['containers']);
  if (containers.length === 0) out.push(required('spec.containers'));
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const path = `spec.containers[${i}]`;
    out.push(...validateContainer(c, volumes, path));
    const name = str(c['name']);
    if (names.has(name)) out.push(duplicate(`${path}.name`, name));
    else names.add(name);
  });
  list(spec['initContainers']).forEach((c, i) => {
    const path = `spec.initContainers[${i}]`;
    out.push(...validateContainer(c, volumes, path));
    const name = str(c['name']);
    if (names.has(name)) out.push(duplicate(`${path}.name`, name));
    else if (name !== '') names.add(name);
  });
  out.push(...oneOf(spec['restartPolicy'], 'spec.restartPolicy', RESTART_POLICIES));
  out.push(...oneOf(spec['dnsPolicy'], 'spec.dnsPolicy', DNS_POLICIES));
  out.push(...validateLabels(record(spec['nodeSelector']), 'spec.nodeSelector'));
  const deadline = spec['activeDeadlineSeconds'];
  if (typeof deadline === 'number' && (deadline < 1 || deadline > MAX_INT32)) {
    const detail = `must be between 1 and ${MAX_INT32}, inclusive`;
    out.push(invalid('spec.activeDeadlineSeconds', deadline, detail));
  }
  const hostname = str(spec['hostname']);
  if (hostname !== '') out.push(...dnsLabel(hostname, 'spec.hostname'));
  return out;
}

/** The paths validatePodSpec reports as required: the OpenAPI schema's own reports there are dropped. */
export function isPodSpecPathCheckedHere(field: string): boolean {
  return (
    field === 'spec.containers' ||
    /^spec\.(containers|initContainers)\[\d+\]\.(name|image)$/.test(field) ||
    /^spec\.(containers|initContainers)\[\d+\]\.ports\[\d+\]\.containerPort$/.test(field) ||
    /^spec\.(containers|initContainers)\[\d+\]\.env\[\d+\]\.name$/.test(field) ||
    /^spec\.(containers|initContainers)\[\d+\]\.volumeMounts\[\d+\]\.(name|mountPath)$/.test(
      field,
    ) ||
    /^spec\.volumes\[\d+\]\.name$/.test(field)
  );
}

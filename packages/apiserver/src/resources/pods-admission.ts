// The mutating admission plugins kube-apiserver 1.36 runs on Pod create with its default plugin
// set (the harness cluster enables no others): ServiceAccount (serviceAccountName, the SA's
// imagePullSecrets, the projected kube-api-access-<rand> token volume and its mounts),
// DefaultTolerationSeconds (300 s not-ready/unreachable NoExecute tolerations) and Priority
// (priority and preemptionPolicy from the class). Pure: the ServiceAccount and randomness are
// passed in.
import { DEFAULT_FILE_MODE } from './pods-defaults.ts';

type Json = Record<string, unknown>;

export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
export const TOKEN_VOLUME_PREFIX = 'kube-api-access-';
/** An hour plus the 7 s kube adds so that a token's rotation is visible to the kubelet. */
const TOKEN_EXPIRATION_SECONDS = 3607;
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const DEFAULT_TOLERATION_SECONDS = 300;
const PREEMPT = 'PreemptLowerPriority';

/** The two built-in PriorityClasses every cluster has; others are not served here. */
const SYSTEM_PRIORITIES: Record<string, number> = {
  'system-node-critical': 2_000_001_000,
  'system-cluster-critical': 2_000_000_000,
};

export interface PodAdmissionInput {
  /** The Pod's ServiceAccount as stored, when it exists. */
  serviceAccount: Json | undefined;
  /** The volume name's five-character suffix. */
  suffix: string;
}

/**
 * Runs the three plugins on a Pod being created, in place.
 * @returns why the Pod is refused (kube answers 403 Forbidden), or undefined
 */
export function admitPodCreate(pod: Json, input: PodAdmissionInput): string | undefined {
  const spec = record(pod['spec']);
  if (!spec) return undefined;
  const meta = record(pod['metadata']);
  const annotations = record(meta?.['annotations']);
  if (annotations?.[MIRROR_POD_ANNOTATION] === undefined) {
    if (!spec['serviceAccountName']) spec['serviceAccountName'] = 'default';
    spec['serviceAccount'] = spec['serviceAccountName'];
    const name = String(spec['serviceAccountName']);
    // The server's own publisher creates `default` in every namespace, so only a missing named
    // ServiceAccount is refused; a not-yet-published `default` is no reason to fail.
    if (!input.serviceAccount && name !== 'default')
      return `error looking up service account ${String(meta?.['namespace'])}/${name}: serviceaccount "${name}" not found`;
    admitServiceAccount(spec, input.serviceAccount, input.suffix);
  }
  addDefaultTolerations(spec);
  return setPriority(spec);
}

function admitServiceAccount(spec: Json, sa: Json | undefined, suffix: string): void {
  const saPullSecrets = sa?.['imagePullSecrets'];
  const own = spec['imagePullSecrets'];
  if ((!Array.isArray(own) || own.length === 0) && Array.isArray(saPullSecrets)) {
    if (saPullSecrets.length > 0) spec['imagePullSecrets'] = structuredClone(saPullSecrets);
  }
  if (!shouldAutomount(spec, sa)) return;
  const volumeName = TOKEN_VOLUME_PREFIX + suffix;
  let mounted = false;
  for (const key of ['initContainers', 'containers'] as const) {
    for (const c of records(spec[key])) {
      const mounts = Array.isArray(c['volumeMounts']) ? (c['volumeMounts'] as unknown[]) : [];
      if (mounts.some((m) => record(m)?.['mountPath'] === TOKEN_MOUNT_PATH)) continue;
      mounts.push({ name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH });
      c['volumeMounts'] = mounts;
      mounted = true;
    }
  }
  if (!mounted) return;
  const volumes = Array.isArray(spec['volumes']) ? (spec['volumes'] as unknown[]) : [];
  volumes.push(tokenVolume(volumeName));
  spec['volumes'] = volumes;
}

/** The Pod's own choice wins, then the ServiceAccount's, and a token is mounted by default. */
function shouldAutomount(spec: Json, sa: Json | undefined): boolean {
  const own = spec['automountServiceAccountToken'];
  if (typeof own === 'boolean') return own;
  const fromSa = sa?.['automountServiceAccountToken'];
  return typeof fromSa === 'boolean' ? fromSa : true;
}

function tokenVolume(name: string): Json {
  return {
    name,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        {
          configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] },
        },
        {
          downwardAPI: {
            items: [
              {
                path: 'namespace',
                fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' },
              },
            ],
          },
        },
      ],
      defaultMode: DEFAULT_FILE_MODE,
    },
  };
}

/**
 * A Pod that does not already tolerate NoExecute taints of a key (a toleration with that key or
 * no key, and effect NoExecute or none) gets one for 300 s, so it survives short node outages.
 */
function addDefaultTolerations(spec: Json): void {
  const tolerations = Array.isArray(spec['tolerations']) ? (spec['tolerations'] as unknown[]) : [];
  const tolerates = (key: string) =>
    tolerations.some((t) => {
      const tol = record(t);
      if (!tol) return false;
      const keyMatches = !tol['key'] || tol['key'] === key;
      const effectMatches = !tol['effect'] || tol['effect'] === 'NoExecute';
      return keyMatches && effectMatches;
    });
  const added = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']
    .filter((key) => !tolerates(key))
    .map((key) => ({
      key,
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: DEFAULT_TOLERATION_SECONDS,
    }));
  if (added.length > 0) spec['tolerations'] = [...tolerations, ...added];
}

/**
 * No class gives priority 0; the system classes give theirs. Both come with
 * PreemptLowerPriority, and a client-sent value that differs is refused. Other classes are not
 * served by the embedded server, so their Pods keep what the client sent.
 */
function setPriority(spec: Json): string | undefined {
  const className = spec['priorityClassName'];
  const priority =
    typeof className === 'string' && className !== '' ? SYSTEM_PRIORITIES[className] : 0;
  if (priority === undefined) return undefined;
  const sent = spec['priority'];
  if (sent !== undefined && sent !== null && sent !== priority)
    return `the integer value of priority (${String(sent)}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`;
  const policy = spec['preemptionPolicy'];
  if (policy && policy !== PREEMPT)
    return `the string value of PreemptionPolicy (${String(policy)}) must not be provided in pod spec; priority admission controller computed ${PREEMPT} from the given PriorityClass name`;
  spec['priority'] = priority;
  spec['preemptionPolicy'] = PREEMPT;
  return undefined;
}

function record(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

function records(v: unknown): Json[] {
  return Array.isArray(v) ? v.map(record).filter((x): x is Json => x !== undefined) : [];
}

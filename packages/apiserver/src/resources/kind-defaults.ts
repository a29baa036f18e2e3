// kube-apiserver 1.36's decode-time defaults (and v1 conversion) for built-in kinds other than
// Pods: a Secret's type and its stringData folded into data, a PersistentVolumeClaim's volumeMode
// and status phase, a NetworkPolicy's policyTypes and port protocols. Pure and idempotent;
// applied on every write of the main resource (admission.ts).
import type { ResourceInfo } from './resource.ts';

type Json = Record<string, unknown>;

/** Defaults `obj` of resource `r` in place; kinds without defaults here are left alone. */
export function defaultBuiltin(r: Pick<ResourceInfo, 'group' | 'plural'>, obj: Json): void {
  const key = `${r.group}/${r.plural}`;
  if (key === '/secrets') defaultSecret(obj);
  else if (key === '/persistentvolumeclaims') defaultPvc(obj);
  else if (key === 'networking.k8s.io/networkpolicies') defaultNetworkPolicy(obj);
}

/**
 * stringData is write-only: each entry becomes data[key] (base64), overriding data, and the
 * field is dropped; type defaults to Opaque.
 */
function defaultSecret(secret: Json): void {
  const stringData = record(secret['stringData']);
  if (stringData) {
    const data = record(secret['data']) ?? {};
    for (const [k, v] of Object.entries(stringData))
      data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    secret['data'] = data;
  }
  delete secret['stringData'];
  if (!secret['type']) secret['type'] = 'Opaque';
}

function defaultPvc(pvc: Json): void {
  const spec = record(pvc['spec']);
  if (spec && !spec['volumeMode']) spec['volumeMode'] = 'Filesystem';
  const status = record(pvc['status']);
  if (status && !status['phase']) status['phase'] = 'Pending';
}

/** kube's PVC strategy discards a client's status on create; defaulting then sets Pending. */
export function preparePvcCreate(pvc: Json): void {
  pvc['status'] = { phase: 'Pending' };
}

/** Ingress is always a policy type when none is given, Egress when egress rules exist. */
function defaultNetworkPolicy(policy: Json): void {
  const spec = record(policy['spec']);
  if (!spec) return;
  for (const direction of ['ingress', 'egress'] as const) {
    for (const rule of records(spec[direction])) {
      for (const port of records(rule['ports'])) if (!port['protocol']) port['protocol'] = 'TCP';
    }
  }
  const types = spec['policyTypes'];
  if (Array.isArray(types) && types.length > 0) return;
  const egress = spec['egress'];
  spec['policyTypes'] =
    Array.isArray(egress) && egress.length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
}

function record(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

function records(v: unknown): Json[] {
  return Array.isArray(v) ? v.map(record).filter((x): x is Json => x !== undefined) : [];
}

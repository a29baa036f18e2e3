// Makes two servers' answers comparable: values that legitimately differ between any two
// servers (uids, timestamps, resourceVersions, generated name suffixes, namespace names chosen
// per target) are replaced by placeholders; everything else must match exactly.
const VOLATILE_META = ['uid', 'creationTimestamp', 'resourceVersion', 'deletionTimestamp'];

/**
 * kube-controller-manager's root-ca-cert-publisher adds this ConfigMap to every namespace of the
 * real cluster; it is a controller's object, not API-server behaviour, so lists and watch
 * streams are compared without it.
 */
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';

function isRootCa(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  const o = v as { metadata?: { name?: unknown }; object?: { metadata?: { name?: unknown } } };
  return o.metadata?.name === ROOT_CA_CONFIGMAP || o.object?.metadata?.name === ROOT_CA_CONFIGMAP;
}

export function normalize(value: unknown, namespace: string): unknown {
  if (Array.isArray(value))
    return value.filter((v) => !isRootCa(v)).map((v) => normalize(v, namespace));
  if (typeof value === 'string') {
    return value
      .split(namespace)
      .join('<ns>')
      .replace(
        /(?!00000000-)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
        '<uid>',
      );
  }
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (VOLATILE_META.includes(k) && (typeof v === 'string' || typeof v === 'number'))
      out[k] = `<${k}>`;
    else if (k === 'time' && typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v))
      out[k] = '<time>';
    else if (k === 'lastTransitionTime' && typeof v === 'string') out[k] = '<time>';
    else if (k === 'continue' && typeof v === 'string' && v !== '') out[k] = '<continue>';
    else if (k === 'uid' && typeof v === 'string') out[k] = '<uid>';
    else out[k] = normalize(v, namespace);
  }
  return out;
}

/** A generated name `prefix` + 5 characters becomes `prefix<rand>`. */
export function normalizeGeneratedName(name: string, prefix: string): string {
  return name.startsWith(prefix) && name.length === prefix.length + 5 ? `${prefix}<rand>` : name;
}

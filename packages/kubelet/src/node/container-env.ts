// A container's environment from env and envFrom (kubelet-and-oci §4.4): values, field and
// resource refs, ConfigMap and Secret keys. Lookups go through `ObjectSource`; failures are
// CreateContainerConfigError messages worded as the kubelet words them.
import type { ConfigMap, Container, Pod, Secret } from '@agent-sandbox/kube-types';
import { KubeletError } from '../errors.ts';

export interface ObjectSource {
  configMap(namespace: string, name: string): Promise<ConfigMap | undefined>;
  secret(namespace: string, name: string): Promise<Secret | undefined>;
}

function configError(message: string): KubeletError {
  return new KubeletError('InvalidArgument', message);
}

function fieldValue(pod: Pod, path: string, podIP: string, hostIP: string): string {
  const m = pod.metadata ?? {};
  const label = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (label) return (label[1] === 'labels' ? m.labels : m.annotations)?.[label[2] ?? ''] ?? '';
  const values: Record<string, string | undefined> = {
    'metadata.name': m.name,
    'metadata.namespace': m.namespace,
    'metadata.uid': m.uid,
    'spec.nodeName': pod.spec?.nodeName,
    'spec.serviceAccountName': pod.spec?.serviceAccountName,
    'status.podIP': podIP,
    'status.podIPs': podIP,
    'status.hostIP': hostIP,
    'status.hostIPs': hostIP,
  };
  if (!(path in values)) throw configError(`unsupported fieldRef.fieldPath "${path}"`);
  return values[path] ?? '';
}

const decode = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

export async function resolveEnv(
  pod: Pod,
  c: Container,
  source: ObjectSource,
  ips: { podIP: string; hostIP: string },
): Promise<{ name: string; value: string }[]> {
  const ns = pod.metadata?.namespace ?? 'default';
  const out: { name: string; value: string }[] = [];
  for (const from of c.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    if (from.configMapRef) {
      const cm = await source.configMap(ns, from.configMapRef.name ?? '');
      if (!cm && !from.configMapRef.optional)
        throw configError(`configmap "${from.configMapRef.name}" not found`);
      for (const [k, v] of Object.entries(cm?.data ?? {})) out.push({ name: prefix + k, value: v });
    }
    if (from.secretRef) {
      const s = await source.secret(ns, from.secretRef.name ?? '');
      if (!s && !from.secretRef.optional)
        throw configError(`secret "${from.secretRef.name}" not found`);
      for (const [k, v] of Object.entries(s?.data ?? {}))
        out.push({ name: prefix + k, value: decode(v) });
    }
  }
  for (const e of c.env ?? []) {
    const vf = e.valueFrom;
    if (!vf) {
      out.push({ name: e.name, value: e.value ?? '' });
    } else if (vf.fieldRef) {
      out.push({
        name: e.name,
        value: fieldValue(pod, vf.fieldRef.fieldPath, ips.podIP, ips.hostIP),
      });
    } else if (vf.configMapKeyRef) {
      const ref = vf.configMapKeyRef;
      const cm = await source.configMap(ns, ref.name ?? '');
      const v = cm?.data?.[ref.key];
      if (v === undefined && !ref.optional)
        throw configError(
          cm
            ? `couldn't find key ${ref.key} in ConfigMap ${ns}/${ref.name}`
            : `configmap "${ref.name}" not found`,
        );
      if (v !== undefined) out.push({ name: e.name, value: v });
    } else if (vf.secretKeyRef) {
      const ref = vf.secretKeyRef;
      const s = await source.secret(ns, ref.name ?? '');
      const v = s?.data?.[ref.key];
      if (v === undefined && !ref.optional)
        throw configError(
          s
            ? `couldn't find key ${ref.key} in Secret ${ns}/${ref.name}`
            : `secret "${ref.name}" not found`,
        );
      if (v !== undefined) out.push({ name: e.name, value: decode(v) });
    } else if (vf.resourceFieldRef) {
      const r = vf.resourceFieldRef;
      const all = { ...c.resources?.requests, ...c.resources?.limits };
      const key = r.resource.replace(/^(limits|requests)\./, '');
      const v =
        (r.resource.startsWith('requests.') ? c.resources?.requests : c.resources?.limits)?.[key] ??
        all[key];
      out.push({ name: e.name, value: v === undefined ? '0' : String(v) });
    }
  }
  return out;
}

// ResourceRef: how every verb addresses a kind — group, version, plural, scope — so our CRDs and
// core kinds go through one generic code path (ADR 0008).
import type { KubeObject } from '@agent-sandbox/kube-types';

export interface ResourceRef {
  /** '' for the core group. */
  group: string;
  version: string;
  /** Lower-case plural, the URL segment (`pods`, `sandboxes`). */
  plural: string;
  namespaced: boolean;
  /** Kind, for messages and owner references; optional. */
  kind?: string;
}

const core = (plural: string, kind: string, namespaced = true): ResourceRef => ({
  group: '',
  version: 'v1',
  plural,
  kind,
  namespaced,
});

export const CONFIG_MAPS = core('configmaps', 'ConfigMap');
export const PODS = core('pods', 'Pod');
export const SERVICES = core('services', 'Service');
export const SECRETS = core('secrets', 'Secret');
export const PERSISTENT_VOLUME_CLAIMS = core('persistentvolumeclaims', 'PersistentVolumeClaim');
export const EVENTS = core('events', 'Event');
export const NAMESPACES = core('namespaces', 'Namespace', false);
export const LEASES: ResourceRef = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  kind: 'Lease',
  namespaced: true,
};

export const CUSTOM_RESOURCE_DEFINITIONS: ResourceRef = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
};

/** `apiVersion` of a ref: `v1` or `<group>/<version>`. */
export function apiVersionOf(ref: ResourceRef): string {
  return ref.group ? `${ref.group}/${ref.version}` : ref.version;
}

/** `<plural>.<group>` or `<plural>`, the qualifier kube uses in messages (semantics §7.2). */
export function qualifiedResource(ref: ResourceRef): string {
  return ref.group ? `${ref.plural}.${ref.group}` : ref.plural;
}

/**
 * The REST path of a collection or an object: `/api/v1/namespaces/ns/pods/name/status`.
 * A namespaced ref without a namespace addresses all namespaces (list/watch only).
 */
export function resourcePath(
  ref: ResourceRef,
  namespace?: string,
  name?: string,
  subresource?: string,
): string {
  let p = ref.group ? `/apis/${ref.group}/${ref.version}` : `/api/${ref.version}`;
  if (ref.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${ref.plural}`;
  if (name !== undefined) p += `/${encodeURIComponent(name)}`;
  if (subresource) p += `/${subresource}`;
  return p;
}

/** The cache and work-queue key: `namespace/name`, or `name` for cluster-scoped objects. */
export function objectKey(obj: KubeObject | { namespace?: string; name: string }): string {
  const m = 'metadata' in obj ? obj.metadata : obj;
  return m.namespace ? `${m.namespace}/${m.name ?? ''}` : (m.name ?? '');
}

/** Splits a `namespace/name` key. */
export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0
    ? { namespace: '', name: key }
    : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

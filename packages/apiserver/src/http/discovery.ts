// Discovery documents (semantics doc §1.2–1.3): legacy /api, /apis, /apis/<g>, /api/v1,
// /apis/<g>/<v>, and aggregated discovery v2 for both roots.
import { storageVersionHash, type ResourceRegistry } from '../resources/registry.ts';
import { groupVersion, type ResourceInfo } from '../resources/resource.ts';

type Json = Record<string, unknown>;

function apiResource(r: ResourceInfo, version: string): Json[] {
  const main: Json = {
    name: r.plural,
    singularName: r.singular,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: [...r.verbs],
  };
  if (r.shortNames.length > 0) main['shortNames'] = [...r.shortNames];
  if (r.categories.length > 0) main['categories'] = [...r.categories];
  // Only stored resources have a storage version; create-only ones (bindings, tokenreviews) don't.
  if (r.verbs.includes('get'))
    main['storageVersionHash'] = storageVersionHash(r.group, r.storageVersion, r.kind);
  const subs = (r.subresourcesByVersion.get(version) ?? []).map((s) => {
    const entry: Json = {
      name: `${r.plural}/${s.name}`,
      singularName: '',
      namespaced: r.namespaced,
    };
    if (s.group !== undefined) entry['group'] = s.group;
    if (s.version !== undefined) entry['version'] = s.version;
    entry['kind'] = s.kind;
    entry['verbs'] = [...s.verbs];
    return entry;
  });
  return [main, ...subs];
}

export function apiVersions(serverAddress: string): Json {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDoc(name: string, versions: string[]): Json {
  const vs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

export function apiGroupList(registry: ResourceRegistry): Json {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry
      .groups()
      .filter((g) => g.name !== '')
      .map((g) => groupDoc(g.name, g.versions)),
  };
}

export function apiGroup(registry: ResourceRegistry, group: string): Json | undefined {
  const g = registry.groups().find((x) => x.name === group);
  return g && group !== ''
    ? { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(g.name, g.versions) }
    : undefined;
}

export function apiResourceList(
  registry: ResourceRegistry,
  group: string,
  version: string,
): Json | undefined {
  const resources = registry.inGroupVersion(group, version);
  if (resources.length === 0) return undefined;
  const doc: Json = { kind: 'APIResourceList' };
  if (group !== '') doc['apiVersion'] = 'v1';
  doc['groupVersion'] = groupVersion(group, version);
  doc['resources'] = resources.flatMap((r) => apiResource(r, version));
  return doc;
}

function aggregatedResource(r: ResourceInfo, version: string): Json {
  // Built-in kinds leave group and version empty (the group-version's own); CRDs spell them out.
  const own = r.crd ? { group: r.group, version } : { group: '', version: '' };
  const entry: Json = {
    resource: r.plural,
    responseKind: { ...own, kind: r.kind },
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular,
    verbs: [...r.verbs],
  };
  if (r.shortNames.length > 0) entry['shortNames'] = [...r.shortNames];
  if (r.categories.length > 0) entry['categories'] = [...r.categories];
  const subresources = r.subresourcesByVersion.get(version) ?? [];
  if (subresources.length > 0) {
    entry['subresources'] = subresources.map((s) => ({
      subresource: s.name,
      responseKind: {
        group: s.group ?? own.group,
        version: s.version ?? own.version,
        kind: s.kind,
      },
      verbs: [...s.verbs],
    }));
  }
  return entry;
}

/** APIGroupDiscoveryList for `/api` (core only) or `/apis` (every other group). */
export function aggregatedDiscovery(registry: ResourceRegistry, root: 'api' | 'apis'): Json {
  const groups = registry.groups().filter((g) => (root === 'api' ? g.name === '' : g.name !== ''));
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    metadata: {},
    items: groups.map((g) => ({
      metadata: g.name === '' ? {} : { name: g.name },
      versions: g.versions.map((v) => ({
        version: v,
        resources: registry.inGroupVersion(g.name, v).map((r) => aggregatedResource(r, v)),
        freshness: 'Current',
      })),
    })),
  };
}

export const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/** True when the Accept header asks for aggregated discovery v2. */
export function wantsAggregated(accept: string | null): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const params = part.split(';').map((p) => p.trim());
    return (
      params.includes('g=apidiscovery.k8s.io') &&
      params.includes('v=v2') &&
      params.includes('as=APIGroupDiscoveryList')
    );
  });
}

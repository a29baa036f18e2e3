// Captures the Kubernetes OpenAPI v3 schemas this project embeds (core/v1 PodSpec,
// PersistentVolumeClaimSpec, NetworkPolicy rules, and the built-in kinds we serve) from the
// k8s.io/kubernetes Go module at a pinned version, into packages/kube-types/openapi/.
// `schemas` (the closure of ROOTS) feeds type generation (core.gen.ts) and CRD embedding;
// `serverSchemas` adds what only the embedded API server's /openapi documents need (list kinds,
// meta request/response types, CRDs, TokenReview, Scale) without growing the generated types,
// whose meta and apiextensions types are hand-written in kube-types; `parameters` holds the
// query parameters kube-apiserver documents per action.
// Why this source and pin: docs/adr/0002-crd-generation-and-openapi-source.md.
// Run: `npx tsx scripts/openapi/capture-k8s-openapi.ts` (needs `go` and the Go module proxy).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const KUBERNETES_MODULE = 'k8s.io/kubernetes';
export const KUBERNETES_VERSION = 'v1.36.3';

const SPEC_FILES = [
  'api__v1_openapi.json',
  'apis__networking.k8s.io__v1_openapi.json',
  'apis__coordination.k8s.io__v1_openapi.json',
  'apis__events.k8s.io__v1_openapi.json',
  'apis__apiextensions.k8s.io__v1_openapi.json',
  'apis__authentication.k8s.io__v1_openapi.json',
  // Before discovery: the last file's meta schemas (WatchEvent, DeleteOptions) win.
  'apis__rbac.authorization.k8s.io__v1_openapi.json',
  'apis__authorization.k8s.io__v1_openapi.json',
  'apis__discovery.k8s.io__v1_openapi.json',
];

const ROOTS = [
  'io.k8s.api.core.v1.Pod',
  'io.k8s.api.core.v1.PodList',
  'io.k8s.api.core.v1.Service',
  'io.k8s.api.core.v1.PersistentVolumeClaim',
  'io.k8s.api.core.v1.ConfigMap',
  'io.k8s.api.core.v1.Secret',
  'io.k8s.api.core.v1.ServiceAccount',
  'io.k8s.api.core.v1.Namespace',
  'io.k8s.api.core.v1.Event',
  'io.k8s.api.core.v1.Endpoints',
  'io.k8s.api.networking.v1.NetworkPolicy',
  'io.k8s.api.coordination.v1.Lease',
  'io.k8s.api.events.v1.Event',
];

/** Extra roots for the API server's OpenAPI documents (packages/apiserver/src/openapi). */
const SERVER_ROOTS = [
  'io.k8s.api.core.v1.Binding',
  'io.k8s.api.core.v1.ConfigMapList',
  'io.k8s.api.core.v1.EndpointsList',
  'io.k8s.api.core.v1.EventList',
  'io.k8s.api.core.v1.NamespaceList',
  'io.k8s.api.core.v1.PersistentVolumeClaimList',
  'io.k8s.api.core.v1.SecretList',
  'io.k8s.api.core.v1.ServiceAccountList',
  'io.k8s.api.core.v1.ServiceList',
  'io.k8s.api.networking.v1.NetworkPolicyList',
  'io.k8s.api.coordination.v1.LeaseList',
  'io.k8s.api.events.v1.EventList',
  'io.k8s.api.discovery.v1.EndpointSlice',
  'io.k8s.api.discovery.v1.EndpointSliceList',
  'io.k8s.api.authentication.v1.TokenRequest',
  'io.k8s.api.authentication.v1.TokenReview',
  'io.k8s.api.autoscaling.v1.Scale',
  'io.k8s.api.authentication.v1.SelfSubjectReview',
  'io.k8s.api.authorization.v1.LocalSubjectAccessReview',
  'io.k8s.api.authorization.v1.SelfSubjectAccessReview',
  'io.k8s.api.authorization.v1.SelfSubjectRulesReview',
  'io.k8s.api.authorization.v1.SubjectAccessReview',
  'io.k8s.api.rbac.v1.ClusterRole',
  'io.k8s.api.rbac.v1.ClusterRoleBinding',
  'io.k8s.api.rbac.v1.ClusterRoleBindingList',
  'io.k8s.api.rbac.v1.ClusterRoleList',
  'io.k8s.api.rbac.v1.Role',
  'io.k8s.api.rbac.v1.RoleBinding',
  'io.k8s.api.rbac.v1.RoleBindingList',
  'io.k8s.api.rbac.v1.RoleList',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionList',
  'io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList',
  'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
  'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent',
];

/**
 * Where the per-action query parameters are read from: configmaps' operations in api/v1, whose
 * option structs (Create/Update/Patch/Delete/ListOptions) are the same for every resource.
 */
const PARAMETER_SOURCES: Record<string, [path: string, method: string]> = {
  create: ['/api/v1/namespaces/{namespace}/configmaps', 'post'],
  update: ['/api/v1/namespaces/{namespace}/configmaps/{name}', 'put'],
  patch: ['/api/v1/namespaces/{namespace}/configmaps/{name}', 'patch'],
  delete: ['/api/v1/namespaces/{namespace}/configmaps/{name}', 'delete'],
  deletecollection: ['/api/v1/namespaces/{namespace}/configmaps', 'delete'],
  list: ['/api/v1/namespaces/{namespace}/configmaps', 'get'],
};

/** Parameters newer than the 1.32 API the embedded server reports (/version) are left out. */
const PARAMETERS_AFTER_1_32 = new Set(['shardSelector']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function moduleDir(): string {
  const out = execFileSync(
    'go',
    ['mod', 'download', '-json', `${KUBERNETES_MODULE}@${KUBERNETES_VERSION}`],
    {
      encoding: 'utf8',
      cwd: '/',
    },
  );
  return (JSON.parse(out) as { Dir: string }).Dir;
}

function collectRefs(node: Json, out: Set<string>): void {
  if (Array.isArray(node)) node.forEach((n) => collectRefs(n, out));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.add(value.split('/').pop() ?? value);
      else collectRefs(value, out);
    }
  }
}

interface SpecParameter {
  name: string;
}

interface SpecDocument {
  paths: Record<string, Record<string, { parameters?: SpecParameter[] } | SpecParameter[]>>;
  components: { schemas: Record<string, Json> };
}

function closure(
  roots: string[],
  all: Record<string, Json>,
  skip: ReadonlySet<string>,
): Set<string> {
  const keep = new Set<string>();
  const todo = [...roots];
  while (todo.length > 0) {
    const name = todo.pop() as string;
    if (keep.has(name) || skip.has(name)) continue;
    const schema = all[name];
    if (schema === undefined) throw new Error(`schema ${name} is not in ${SPEC_FILES.join(', ')}`);
    keep.add(name);
    const refs = new Set<string>();
    collectRefs(schema, refs);
    todo.push(...refs);
  }
  return keep;
}

function pick(names: Set<string>, all: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries([...names].sort().map((name) => [name, all[name] as Json]));
}

function parameters(core: SpecDocument): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [action, [path, method]] of Object.entries(PARAMETER_SOURCES)) {
    const op = core.paths[path]?.[method];
    const params = op && !Array.isArray(op) ? (op.parameters ?? []) : [];
    if (params.length === 0) throw new Error(`no parameters for ${method} ${path}`);
    out[action] = params.filter((p) => !PARAMETERS_AFTER_1_32.has(p.name)) as unknown as Json;
  }
  // `pretty` is documented once per path, beside the path parameters.
  const shared = core.paths['/api/v1/namespaces/{namespace}/configmaps']?.['parameters'];
  const pretty = Array.isArray(shared) ? shared.find((p) => p.name === 'pretty') : undefined;
  if (!pretty) throw new Error('no pretty parameter');
  out['pretty'] = pretty as unknown as Json;
  return out;
}

function main(): void {
  const dir = join(moduleDir(), 'api', 'openapi-spec', 'v3');
  const all: Record<string, Json> = {};
  let core: SpecDocument | undefined;
  for (const file of SPEC_FILES) {
    const doc = JSON.parse(readFileSync(join(dir, file), 'utf8')) as SpecDocument;
    if (file === 'api__v1_openapi.json') core = doc;
    Object.assign(all, doc.components.schemas);
  }
  if (!core) throw new Error('api__v1_openapi.json is missing');
  const keep = closure(ROOTS, all, new Set());
  const serverOnly = closure(SERVER_ROOTS, all, keep);
  const out = {
    source: {
      module: KUBERNETES_MODULE,
      version: KUBERNETES_VERSION,
      files: SPEC_FILES,
      roots: ROOTS,
      serverRoots: SERVER_ROOTS,
    },
    schemas: pick(keep, all),
    serverSchemas: pick(serverOnly, all),
    parameters: parameters(core),
  };
  const target = new URL('../../packages/kube-types/openapi/k8s-openapi.json', import.meta.url);
  writeFileSync(target, JSON.stringify(out, null, 1) + '\n');
  console.log(
    `wrote ${keep.size} + ${serverOnly.size} schemas from ${KUBERNETES_MODULE}@${KUBERNETES_VERSION}`,
  );
}

main();

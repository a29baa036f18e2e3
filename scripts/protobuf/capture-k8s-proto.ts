// Captures the Kubernetes protobuf schema of the built-in kinds the embedded API server accepts as
// `application/vnd.kubernetes.protobuf`, from the generated.proto files of the k8s.io/api,
// k8s.io/apimachinery and k8s.io/apiextensions-apiserver Go modules at the pinned version, into
// packages/apiserver/src/protobuf/data/k8s-proto.json (Kubernetes' own Apache-2.0 data).
//
// The file holds (1) a protobufjs JSON descriptor of every message reachable from ROOTS and (2) for
// each such message the Go struct's JSON view of its fields, read from the Go sources by
// go-struct-tags.go: JSON name, omitempty/omitzero, inlining, pointer-ness, in Go declaration
// order. The runtime codec needs both, because the JSON Kubernetes produces is Go's encoding/json
// of the struct, not protobuf's canonical JSON mapping.
// Run: `npx tsx scripts/protobuf/capture-k8s-proto.ts` (needs `go` and the Go module proxy).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import protobuf from 'protobufjs';

export const VERSION = 'v0.36.3';

// proto package → [Go module, directory inside it]
const PACKAGES: Record<string, [string, string]> = {
  'k8s.io.api.core.v1': ['k8s.io/api', 'core/v1'],
  'k8s.io.api.coordination.v1': ['k8s.io/api', 'coordination/v1'],
  'k8s.io.api.events.v1': ['k8s.io/api', 'events/v1'],
  'k8s.io.api.networking.v1': ['k8s.io/api', 'networking/v1'],
  'k8s.io.api.authentication.v1': ['k8s.io/api', 'authentication/v1'],
  'k8s.io.api.authorization.v1': ['k8s.io/api', 'authorization/v1'],
  'k8s.io.api.rbac.v1': ['k8s.io/api', 'rbac/v1'],
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1': [
    'k8s.io/apiextensions-apiserver',
    'pkg/apis/apiextensions/v1',
  ],
  'k8s.io.apimachinery.pkg.apis.meta.v1': ['k8s.io/apimachinery', 'pkg/apis/meta/v1'],
  'k8s.io.apimachinery.pkg.runtime': ['k8s.io/apimachinery', 'pkg/runtime'],
  'k8s.io.apimachinery.pkg.runtime.schema': ['k8s.io/apimachinery', 'pkg/runtime/schema'],
  'k8s.io.apimachinery.pkg.util.intstr': ['k8s.io/apimachinery', 'pkg/util/intstr'],
  'k8s.io.apimachinery.pkg.api.resource': ['k8s.io/apimachinery', 'pkg/api/resource'],
};

const CORE = 'k8s.io.api.core.v1';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const ROOTS = [
  ...[
    'ConfigMap',
    'Secret',
    'Namespace',
    'Pod',
    'Service',
    'Endpoints',
    'PersistentVolumeClaim',
    'ServiceAccount',
    'Event',
  ].flatMap((k) => [`${CORE}.${k}`, `${CORE}.${k}List`]),
  `${CORE}.Binding`,
  'k8s.io.api.events.v1.Event',
  'k8s.io.api.events.v1.EventList',
  'k8s.io.api.coordination.v1.Lease',
  'k8s.io.api.coordination.v1.LeaseList',
  'k8s.io.api.networking.v1.NetworkPolicy',
  'k8s.io.api.networking.v1.NetworkPolicyList',
  'k8s.io.api.authentication.v1.TokenRequest',
  'k8s.io.api.authentication.v1.TokenReview',
  'k8s.io.api.authentication.v1.SelfSubjectReview',
  'k8s.io.api.authorization.v1.LocalSubjectAccessReview',
  'k8s.io.api.authorization.v1.SelfSubjectAccessReview',
  'k8s.io.api.authorization.v1.SelfSubjectRulesReview',
  'k8s.io.api.authorization.v1.SubjectAccessReview',
  'k8s.io.api.rbac.v1.ClusterRole',
  'k8s.io.api.rbac.v1.ClusterRoleBinding',
  'k8s.io.api.rbac.v1.ClusterRoleBindingList',
  'k8s.io.api.rbac.v1.ClusterRoleList',
  'k8s.io.api.rbac.v1.Role',
  'k8s.io.api.rbac.v1.RoleBinding',
  'k8s.io.api.rbac.v1.RoleBindingList',
  'k8s.io.api.rbac.v1.RoleList',
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionList',
  `${META}.DeleteOptions`,
  `${META}.Status`,
  'k8s.io.apimachinery.pkg.runtime.Unknown',
];

const APIEXT = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
// Messages whose Go type has its own JSON (and protobuf) marshalling; the codec maps these by hand.
const SPECIAL: Record<string, string> = {
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'k8s.io.apimachinery.pkg.api.resource.QuantityValue': 'quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'intOrString',
  [`${META}.Time`]: 'time',
  [`${META}.MicroTime`]: 'microTime',
  [`${META}.Duration`]: 'duration',
  [`${META}.FieldsV1`]: 'rawJSON',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'rawJSON',
  [`${APIEXT}.JSON`]: 'rawJSON',
  [`${APIEXT}.JSONSchemaPropsOrArray`]: 'schemaOrArray',
  [`${APIEXT}.JSONSchemaPropsOrBool`]: 'schemaOrBool',
  [`${APIEXT}.JSONSchemaPropsOrStringArray`]: 'schemaOrStringArray',
};

interface GoField {
  name: string;
  anonymous?: boolean;
  type: string;
  json?: string;
  protobuf?: string;
}
type GoPackages = Record<
  string,
  { structs: Record<string, GoField[]>; types: Record<string, string> }
>;

/** One JSON-visible field of a message, in Go declaration order. */
export interface FieldInfo {
  /** protobuf field name (as in generated.proto) */
  proto: string;
  /** JSON name; absent for an inlined (embedded) struct */
  json?: string;
  omitempty?: true;
  omitzero?: true;
  inline?: true;
  pointer?: true;
}

function moduleDir(module: string): string {
  const out = execFileSync('go', ['mod', 'download', '-json', `${module}@${VERSION}`], {
    encoding: 'utf8',
    cwd: '/',
  });
  return (JSON.parse(out) as { Dir: string }).Dir;
}

function main(): void {
  const dirs = new Map<string, string>();
  for (const [module] of Object.values(PACKAGES)) {
    if (!dirs.has(module)) dirs.set(module, moduleDir(module));
  }
  const goDir = (pkg: string): string => {
    const [module, sub] = PACKAGES[pkg] as [string, string];
    return join(dirs.get(module) as string, sub);
  };

  // generated.proto imports are "k8s.io/<module>/<dir>/generated.proto"
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => {
    for (const [module, sub] of Object.values(PACKAGES)) {
      if (target === `${module}/${sub}/generated.proto`) {
        return join(dirs.get(module) as string, sub, 'generated.proto');
      }
    }
    return target;
  };
  const files = Object.values(PACKAGES).map(([module, sub]) => `${module}/${sub}/generated.proto`);
  root.loadSync(files, { keepCase: true });
  root.resolveAll();

  // messages reachable from ROOTS
  const keep = new Set<string>();
  const todo = [...ROOTS];
  while (todo.length > 0) {
    const name = todo.pop() as string;
    if (keep.has(name)) continue;
    keep.add(name);
    const type = root.lookupType(name);
    for (const field of type.fieldsArray) {
      if (field.resolvedType instanceof protobuf.Type) {
        todo.push(field.resolvedType.fullName.slice(1));
      }
    }
  }

  const script = fileURLToPath(new URL('go-struct-tags.go', import.meta.url));
  const goDirs = Object.keys(PACKAGES).map(goDir);
  const go = JSON.parse(
    execFileSync('go', ['run', script, ...goDirs], {
      encoding: 'utf8',
      cwd: '/',
      maxBuffer: 1 << 28,
    }),
  ) as GoPackages;

  const fields: Record<string, FieldInfo[]> = {};
  const slices: Record<string, string> = {};
  const special: Record<string, string> = {};
  const exceptions: string[] = [];
  for (const name of [...keep].sort()) {
    const pkg = name.slice(0, name.lastIndexOf('.'));
    const short = name.slice(pkg.length + 1);
    const goPkg = go[goDir(pkg)];
    if (!goPkg) throw new Error(`no Go package for ${pkg}`);
    const type = root.lookupType(name);
    const struct = goPkg.structs[short];
    if (SPECIAL[name]) {
      special[name] = SPECIAL[name];
      continue;
    }
    if (!struct) {
      // a named non-struct Go type: a wrapped slice (`type Verbs []string` → message {items})
      slices[name] = goPkg.types[short] ?? '?';
      continue;
    }
    const byNumber = new Map(type.fieldsArray.map((f) => [f.id, f]));
    const infos: FieldInfo[] = [];
    for (const f of struct) {
      const [jsonName = '', ...opts] = (f.json ?? '').split(',');
      if (!f.protobuf || f.protobuf === '-') {
        if (jsonName !== '-' && f.name !== 'TypeMeta') {
          exceptions.push(`${name}.${f.name}: JSON-only field (${f.json ?? ''})`);
        }
        continue;
      }
      const number = Number(f.protobuf.split(',')[1]);
      const pf = byNumber.get(number);
      if (!pf) throw new Error(`${name}.${f.name}: proto field ${number} not in generated.proto`);
      byNumber.delete(number);
      const info: FieldInfo = { proto: pf.name };
      if (f.anonymous && jsonName === '') info.inline = true;
      else info.json = jsonName === '' ? f.name : jsonName;
      if (opts.includes('omitempty')) info.omitempty = true;
      if (opts.includes('omitzero')) info.omitzero = true;
      if (f.type.startsWith('*')) info.pointer = true;
      if (info.json !== undefined && info.json !== pf.name) {
        exceptions.push(`${name}.${pf.name}: JSON name ${info.json}`);
      }
      infos.push(info);
    }
    for (const pf of byNumber.values()) {
      throw new Error(`${name}.${pf.name}: proto field without a Go field`);
    }
    fields[name] = infos;
  }

  // protobufjs descriptor, pruned to the reachable messages
  type Ns = { nested?: Record<string, Ns>; fields?: unknown };
  const prune = (ns: Ns, path: string): Ns | undefined => {
    if (ns.fields !== undefined) {
      return keep.has(path) ? { ...ns, nested: undefined } : undefined;
    }
    const nested: Record<string, Ns> = {};
    for (const [key, child] of Object.entries(ns.nested ?? {})) {
      const kept = prune(child, path ? `${path}.${key}` : key);
      if (kept) nested[key] = kept;
    }
    return Object.keys(nested).length > 0 ? { ...ns, nested } : undefined;
  };
  const descriptor = prune(root.toJSON() as Ns, '');

  const out = {
    source: {
      modules: [...dirs.keys()].map((m) => `${m}@${VERSION}`),
      files,
      roots: ROOTS,
      note: 'generated by scripts/protobuf/capture-k8s-proto.ts; do not edit',
    },
    descriptor,
    fields,
    slices,
    special,
  };
  const target = fileURLToPath(
    new URL('../../packages/apiserver/src/protobuf/data/k8s-proto.json', import.meta.url),
  );
  writeFileSync(target, JSON.stringify(out) + '\n');
  execFileSync('npx', ['prettier', '--write', target], { stdio: 'inherit' });
  for (const line of exceptions) console.log(`note: ${line}`);
  console.log(`wrote ${keep.size} messages; wrapped slices: ${JSON.stringify(slices)}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();

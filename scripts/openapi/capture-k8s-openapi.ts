// Captures the Kubernetes OpenAPI v3 schemas this project embeds (core/v1 PodSpec,
// PersistentVolumeClaimSpec, NetworkPolicy rules, and the built-in kinds we serve) from the
// k8s.io/kubernetes Go module at a pinned version, into packages/kube-types/openapi/.
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

function main(): void {
  const dir = join(moduleDir(), 'api', 'openapi-spec', 'v3');
  const all: Record<string, Json> = {};
  for (const file of SPEC_FILES) {
    const doc = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
      components: { schemas: Record<string, Json> };
    };
    Object.assign(all, doc.components.schemas);
  }
  const keep = new Set<string>();
  const todo = [...ROOTS];
  while (todo.length > 0) {
    const name = todo.pop() as string;
    if (keep.has(name)) continue;
    const schema = all[name];
    if (schema === undefined) throw new Error(`schema ${name} is not in ${SPEC_FILES.join(', ')}`);
    keep.add(name);
    const refs = new Set<string>();
    collectRefs(schema, refs);
    todo.push(...refs);
  }
  const schemas = Object.fromEntries([...keep].sort().map((name) => [name, all[name] as Json]));
  const out = {
    source: {
      module: KUBERNETES_MODULE,
      version: KUBERNETES_VERSION,
      files: SPEC_FILES,
      roots: ROOTS,
    },
    schemas,
  };
  const target = new URL('../../packages/kube-types/openapi/k8s-openapi.json', import.meta.url);
  writeFileSync(target, JSON.stringify(out, null, 1) + '\n');
  console.log(`wrote ${keep.size} schemas from ${KUBERNETES_MODULE}@${KUBERNETES_VERSION}`);
}

main();

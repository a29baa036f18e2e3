// Every kind `validateObject` knows, keyed by apiVersion and kind: our four kinds from our CRDs,
// and the built-in kinds whose schemas we carry (packages/kube-types/openapi), which upstream's
// example manifests mix in (ConfigMap, NetworkPolicy, ...). Schemas compile on first use.
import type { JSONSchemaProps } from '@agent-sandbox/kube-types';
import openapi from '@agent-sandbox/kube-types/openapi/k8s-openapi.json' with { type: 'json' };
import { buildCrds } from '../crd/build-crds.ts';
import {
  embedCoreSchema,
  StructuralSchema,
  type OpenApiDefinitions,
} from '@agent-sandbox/crd-schema';
import type { KindName } from '../groups.ts';

export interface ServedKind {
  apiVersion: string;
  kind: string;
  /** Set for our own kinds; built-in kinds get schema checks only. */
  ours?: KindName;
  schema(): StructuralSchema;
}

function lazy(build: () => JSONSchemaProps): () => StructuralSchema {
  let compiled: StructuralSchema | undefined;
  return () => (compiled ??= StructuralSchema.compile(build()));
}

function ourKinds(): ServedKind[] {
  return buildCrds().flatMap((crd) =>
    crd.spec.versions.map((v) => ({
      apiVersion: `${crd.spec.group}/${v.name}`,
      kind: crd.spec.names.kind,
      ours: crd.spec.names.kind as KindName,
      schema: lazy(() => v.schema?.openAPIV3Schema ?? { type: 'object' }),
    })),
  );
}

interface GroupVersionKindTag {
  group: string;
  version: string;
  kind: string;
}

function builtinKinds(): ServedKind[] {
  const defs = openapi.schemas as unknown as OpenApiDefinitions;
  const out: ServedKind[] = [];
  for (const [name, def] of Object.entries(defs)) {
    const tags = def['x-kubernetes-group-version-kind'] as GroupVersionKindTag[] | undefined;
    for (const gvk of tags ?? []) {
      if (gvk.kind.endsWith('List')) continue;
      out.push({
        apiVersion: gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`,
        kind: gvk.kind,
        schema: lazy(() => embedCoreSchema(defs, name)),
      });
    }
  }
  return out;
}

let registry: Map<string, ServedKind> | undefined;

function all(): Map<string, ServedKind> {
  registry ??= new Map(
    [...ourKinds(), ...builtinKinds()].map((k) => [`${k.apiVersion}|${k.kind}`, k]),
  );
  return registry;
}

export function findServedKind(apiVersion: string, kind: string): ServedKind | undefined {
  return all().get(`${apiVersion}|${kind}`);
}

/** The apiVersions that serve `kind`, storage version first. */
export function apiVersionsOf(kind: string): string[] {
  return [...all().values()].filter((k) => k.kind === kind).map((k) => k.apiVersion);
}

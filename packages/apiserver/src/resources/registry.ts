// The resources the server serves right now: the built-in table plus one entry per established
// CRD. Lookups by group/version/plural (routing), by group (discovery) and by kind.
import openapi from '@agent-sandbox/kube-types/openapi/k8s-openapi.json' with { type: 'json' };
import { createHash } from 'node:crypto';
import {
  embedCoreSchema,
  StructuralSchema,
  type OpenApiDefinitions,
} from '@agent-sandbox/crd-schema';
import type { CustomResourceDefinition } from '@agent-sandbox/kube-types';
import { BUILTIN_RESOURCES, type BuiltinResource } from './builtin.ts';
import { groupVersion, type ResourceInfo, type SubresourceInfo, type Verb } from './resource.ts';
import { sortKubeVersions } from './version-order.ts';

// serverSchemas hold kinds served but not generated as types (EndpointSlice); the two sets are
// disjoint closures, so together they resolve every reference.
const definitions = {
  ...openapi.schemas,
  ...openapi.serverSchemas,
} as unknown as OpenApiDefinitions;

/** The verbs a CRD resource lists, in the order kube-apiserver lists them. */
const CRD_VERBS: Verb[] = [
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'create',
  'update',
  'watch',
];

/** base64(sha256("<group>/<storageVersion>/<Kind>")[0:8]), as discovery's storageVersionHash. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256')
    .update(`${group}/${version}/${kind}`)
    .digest()
    .subarray(0, 8)
    .toString('base64');
}

function lazySchema(build: () => StructuralSchema | undefined): () => StructuralSchema | undefined {
  let built = false;
  let value: StructuralSchema | undefined;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value;
  };
}

export function builtinResourceInfo(b: BuiltinResource): ResourceInfo {
  const schema = lazySchema(() =>
    b.openApiDefinition
      ? StructuralSchema.compile(embedCoreSchema(definitions, b.openApiDefinition))
      : undefined,
  );
  return {
    group: b.group,
    versions: [b.version],
    storageVersion: b.version,
    plural: b.plural,
    singular: b.singular,
    kind: b.kind,
    listKind: `${b.kind}List`,
    namespaced: b.namespaced,
    shortNames: b.shortNames ?? [],
    categories: b.categories ?? [],
    verbs: b.verbs,
    subresources: b.subresources ?? [],
    subresourcesByVersion: new Map([[b.version, b.subresources ?? []]]),
    hasStatus: (b.subresources ?? []).some((s) => s.name === 'status'),
    ...(b.openApiDefinition ? { openApiDefinition: b.openApiDefinition } : {}),
    schema: () => schema(),
    printerColumns: () => undefined,
    tracksGeneration: b.tracksGeneration ?? false,
    allowsUnconditionalUpdate: b.unconditionalUpdate ?? true,
    allowsCreateOnUpdate: b.createOnUpdate ?? false,
    deleteReturnsObject: b.deleteReturnsObject ?? false,
    deprecationWarnings: new Map(),
  };
}

export function crdResourceInfo(crd: CustomResourceDefinition): ResourceInfo {
  const { spec } = crd;
  const served = spec.versions.filter((v) => v.served);
  const versions = sortKubeVersions(served.map((v) => v.name));
  const storage = spec.versions.find((v) => v.storage)?.name ?? versions[0] ?? 'v1';
  const byName = new Map(spec.versions.map((v) => [v.name, v]));
  const schemas = new Map(
    spec.versions.map((v) => [
      v.name,
      lazySchema(() =>
        v.schema?.openAPIV3Schema ? StructuralSchema.compile(v.schema.openAPIV3Schema) : undefined,
      ),
    ]),
  );
  // Subresources may differ per version (v1alpha1 Sandbox has scale, v1beta1 does not);
  // apiextensions lists status before scale.
  const subresourcesByVersion = new Map<string, SubresourceInfo[]>(
    spec.versions.map((v) => {
      const list: SubresourceInfo[] = [];
      if (v.subresources?.status) {
        list.push({ name: 'status', kind: spec.names.kind, verbs: ['get', 'patch', 'update'] });
      }
      if (v.subresources?.scale) {
        list.push({
          name: 'scale',
          kind: 'Scale',
          group: 'autoscaling',
          version: 'v1',
          verbs: ['get', 'patch', 'update'],
        });
      }
      return [v.name, list];
    }),
  );
  const sub = byName.get(storage)?.subresources ?? {};
  const warnings = new Map<string, string>();
  for (const v of spec.versions) {
    if (v.deprecated) {
      warnings.set(
        v.name,
        v.deprecationWarning ?? `${spec.group}/${v.name} ${spec.names.kind} is deprecated`,
      );
    }
  }
  return {
    group: spec.group,
    versions,
    storageVersion: storage,
    plural: spec.names.plural,
    singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
    kind: spec.names.kind,
    listKind: spec.names.listKind ?? `${spec.names.kind}List`,
    namespaced: spec.scope === 'Namespaced',
    shortNames: spec.names.shortNames ?? [],
    categories: spec.names.categories ?? [],
    verbs: CRD_VERBS,
    subresources: subresourcesByVersion.get(storage) ?? [],
    subresourcesByVersion,
    hasStatus: sub.status !== undefined,
    ...(sub.scale ? { scale: sub.scale } : {}),
    crd,
    schema: (version) => schemas.get(version)?.(),
    printerColumns: (version) => byName.get(version)?.additionalPrinterColumns,
    tracksGeneration: true,
    allowsUnconditionalUpdate: false,
    allowsCreateOnUpdate: false,
    deleteReturnsObject: false,
    deprecationWarnings: warnings,
  };
}

/** kube-apiserver 1.36's order of its built-in groups in /apis (the ones we serve among them). */
const BUILTIN_GROUP_ORDER: readonly string[] = [
  'events.k8s.io',
  'authentication.k8s.io',
  'networking.k8s.io',
  'apiextensions.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
];

export class ResourceRegistry {
  #byPlural = new Map<string, ResourceInfo>();
  #crds = new Map<string, ResourceInfo>();

  constructor(builtins: readonly BuiltinResource[] = BUILTIN_RESOURCES) {
    for (const b of builtins) this.#add(builtinResourceInfo(b));
  }

  #add(r: ResourceInfo): void {
    for (const v of r.versions) this.#byPlural.set(`${groupVersion(r.group, v)}/${r.plural}`, r);
  }

  /** The resource served at /<group>/<version>/<plural>, if any. */
  lookup(group: string, version: string, plural: string): ResourceInfo | undefined {
    return this.#byPlural.get(`${groupVersion(group, version)}/${plural}`);
  }

  /** Installs or replaces the resource of an established CRD. */
  setCrd(crd: CustomResourceDefinition): ResourceInfo {
    this.removeCrd(crd.metadata.name ?? '');
    const info = crdResourceInfo(crd);
    this.#crds.set(crd.metadata.name ?? '', info);
    this.#add(info);
    return info;
  }

  removeCrd(name: string): void {
    const old = this.#crds.get(name);
    if (!old) return;
    this.#crds.delete(name);
    for (const v of old.versions)
      this.#byPlural.delete(`${groupVersion(old.group, v)}/${old.plural}`);
  }

  /** Every distinct resource. */
  all(): ResourceInfo[] {
    return [...new Set(this.#byPlural.values())];
  }

  /**
   * Groups in discovery order: core first (name ''), then built-in groups in kube-apiserver's
   * priority order, then CRD groups by name.
   */
  groups(): { name: string; versions: string[] }[] {
    const out = new Map<string, Set<string>>();
    for (const r of this.all()) {
      const set = out.get(r.group) ?? new Set<string>();
      r.versions.forEach((v) => set.add(v));
      out.set(r.group, set);
    }
    const rank = (name: string): number => {
      const i = BUILTIN_GROUP_ORDER.indexOf(name);
      return name === '' ? -1 : i < 0 ? BUILTIN_GROUP_ORDER.length : i;
    };
    return [...out.entries()]
      .map(([name, vs]) => ({ name, versions: sortKubeVersions([...vs]) }))
      .sort(
        (a, b) => rank(a.name) - rank(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
      );
  }

  /** Resources served in one group/version, sorted by plural. */
  inGroupVersion(group: string, version: string): ResourceInfo[] {
    return this.all()
      .filter((r) => r.group === group && r.versions.includes(version))
      .sort((a, b) => (a.plural < b.plural ? -1 : a.plural > b.plural ? 1 : 0));
  }
}

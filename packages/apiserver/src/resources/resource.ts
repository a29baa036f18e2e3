// What the server knows about one served resource (a group/version/plural). Built-in kinds come
// from builtin.ts, custom resources from their CRDs; handlers use only this shape.
import type { StructuralSchema } from '@agent-sandbox/crd-schema';
import type {
  CustomResourceColumnDefinition,
  CustomResourceDefinition,
  CustomResourceSubresourceScale,
} from '@agent-sandbox/kube-types';

export type Verb =
  'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

/** A subresource and the kind and verbs discovery lists for it. */
export interface SubresourceInfo {
  name: string;
  kind: string;
  group?: string;
  version?: string;
  verbs: readonly string[];
}

export interface ResourceInfo {
  group: string;
  /** Served versions in preference order; the first is preferred. */
  versions: readonly string[];
  storageVersion: string;
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: readonly string[];
  categories: readonly string[];
  verbs: readonly Verb[];
  /** Subresources of the storage version. */
  subresources: readonly SubresourceInfo[];
  /** Subresources of each served version, in discovery order. */
  subresourcesByVersion: ReadonlyMap<string, readonly SubresourceInfo[]>;
  /** Present when the status subresource is served (status changes are then kept out of the main resource). */
  hasStatus: boolean;
  scale?: CustomResourceSubresourceScale;
  /** Built-ins only: the OpenAPI definition name of the kind, for schema checks and strategic merge. */
  openApiDefinition?: string;
  /** The CRD this resource comes from. */
  crd?: CustomResourceDefinition;
  /** The structural schema of a version (custom resources; built-ins through their OpenAPI). */
  schema(version: string): StructuralSchema | undefined;
  printerColumns(version: string): CustomResourceColumnDefinition[] | undefined;
  /** metadata.generation is maintained (custom resources; some built-ins). */
  tracksGeneration: boolean;
  /** PUT without metadata.resourceVersion is allowed (built-ins; never custom resources). */
  allowsUnconditionalUpdate: boolean;
  /** PUT of a missing object creates it. */
  allowsCreateOnUpdate: boolean;
  /** DELETE answers with the deleted object (pods, PVCs, ...) instead of a Success Status. */
  deleteReturnsObject: boolean;
  /** Deprecation warning text per deprecated version. */
  deprecationWarnings: ReadonlyMap<string, string>;
}

export function groupVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** `<plural>.<group>` (or `<plural>` for the core group): how messages and CRD names refer to a resource. */
export function qualifiedResource(r: Pick<ResourceInfo, 'group' | 'plural'>): string {
  return r.group === '' ? r.plural : `${r.plural}.${r.group}`;
}

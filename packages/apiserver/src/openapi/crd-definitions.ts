// Component schemas for one served version of a CRD, as kube-apiserver's apiextensions OpenAPI
// builder renders them (k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder):
// `<reversed group>.<version>.<Kind>` and `...<ListKind>`, `metadata` pointing at ObjectMeta,
// TypeMeta's `apiVersion`/`kind`, and `x-kubernetes-group-version-kind` (semantics doc §1.5).
// The v2 form follows the same builder with V2, StripValueValidation and StripNullable set.
import type { CustomResourceDefinition } from '@agent-sandbox/kube-types';
import { isObject, LIST_META, OBJECT_META, type Json, type JsonObject } from './definitions.ts';

type Flavor = 'v2' | 'v3';

const API_VERSION_DESCRIPTION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DESCRIPTION =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const EMBEDDED_API_VERSION_DESCRIPTION =
  'apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const EMBEDDED_KIND_DESCRIPTION =
  'kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const METADATA_DESCRIPTION =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const LIST_METADATA_DESCRIPTION =
  'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** Value validations, which the v2 document leaves out (StripValueValidation). */
const VALUE_VALIDATIONS = [
  'format',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
];

/** `agents.x-k8s.io`, `v1beta1`, `Sandbox` → `io.x-k8s.agents.v1beta1.Sandbox`. */
export function crdDefinitionName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

function ref(name: string, flavor: Flavor, description?: string): JsonObject {
  const target = `${flavor === 'v3' ? '#/components/schemas/' : '#/definitions/'}${name}`;
  if (description === undefined) return { $ref: target };
  // OpenAPI 3.0 ignores siblings of $ref, so v3 wraps the reference in allOf (kube-openapi WrapRefs).
  return flavor === 'v3'
    ? { allOf: [{ $ref: target }], description }
    : { $ref: target, description };
}

function typeMeta(schema: JsonObject): void {
  const properties = isObject(schema['properties']) ? schema['properties'] : {};
  properties['apiVersion'] = { description: API_VERSION_DESCRIPTION, type: 'string' };
  properties['kind'] = { description: KIND_DESCRIPTION, type: 'string' };
  schema['properties'] = properties;
}

/** `x-kubernetes-selectable-fields` (v3 only: the builder sets IncludeSelectableFields there). */
function selectableFields(
  schema: JsonObject,
  crd: CustomResourceDefinition,
  version: string,
  flavor: Flavor,
): void {
  const fields = versionOf(crd, version).selectableFields ?? [];
  if (flavor !== 'v3' || fields.length === 0) return;
  schema['x-kubernetes-selectable-fields'] = fields.map((f) => ({
    fieldPath: f.jsonPath.replace(/^\./, ''),
  }));
}

/** Structural's Unfold: `x-kubernetes-int-or-string` gains its `anyOf: [integer, string]`. */
function unfold(node: Json): void {
  if (Array.isArray(node)) return node.forEach(unfold);
  if (!isObject(node)) return;
  for (const value of Object.values(node)) unfold(value);
  if (node['x-kubernetes-int-or-string'] !== true || node['anyOf'] !== undefined) return;
  const allOf = node['allOf'];
  const firstAnyOf = Array.isArray(allOf) && isObject(allOf[0]) ? allOf[0]['anyOf'] : undefined;
  if (firstAnyOf === undefined) node['anyOf'] = [{ type: 'integer' }, { type: 'string' }];
}

/** ToStructuralOpenAPIV2 after StripValueValidations and StripNullable. */
function toV2(node: JsonObject): void {
  for (const key of VALUE_VALIDATIONS) delete node[key];
  delete node['nullable'];
  const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
  if (preserve) {
    // kubectl's v2 validation rejects unknown fields wherever properties or items are listed.
    delete node['items'];
    delete node['properties'];
    if (node['type'] === 'object') delete node['type'];
  }
  if (node['type'] === 'array' && node['items'] === undefined) delete node['type'];
  for (const child of children(node)) toV2(child);
}

function children(node: JsonObject): JsonObject[] {
  const out: JsonObject[] = [];
  const props = node['properties'];
  if (isObject(props)) for (const v of Object.values(props)) if (isObject(v)) out.push(v);
  if (isObject(node['items'])) out.push(node['items']);
  if (isObject(node['additionalProperties'])) out.push(node['additionalProperties']);
  return out;
}

/** `x-kubernetes-embedded-resource` objects get TypeMeta and ObjectMeta (addEmbeddedProperties). */
function addEmbedded(node: JsonObject, flavor: Flavor): void {
  for (const child of children(node)) addEmbedded(child, flavor);
  if (flavor === 'v2' && node['x-kubernetes-preserve-unknown-fields'] === true) return;
  if (node['x-kubernetes-embedded-resource'] !== true) return;
  const properties = isObject(node['properties']) ? node['properties'] : {};
  properties['apiVersion'] = { description: EMBEDDED_API_VERSION_DESCRIPTION, type: 'string' };
  properties['kind'] = { description: EMBEDDED_KIND_DESCRIPTION, type: 'string' };
  properties['metadata'] = ref(OBJECT_META, flavor, METADATA_DESCRIPTION);
  node['properties'] = properties;
  const required = Array.isArray(node['required']) ? node['required'] : [];
  for (const field of ['kind', 'apiVersion']) if (!required.includes(field)) required.push(field);
  node['required'] = required;
}

function gvkExtension(group: string, version: string, kind: string): Json {
  return [{ group, kind, version }];
}

function versionOf(crd: CustomResourceDefinition, version: string) {
  const v = crd.spec.versions.find((x) => x.name === version);
  if (!v) throw new Error(`CRD ${crd.metadata.name ?? ''} has no version ${version}`);
  return v;
}

/** The kind's component schema for one CRD version. */
export function crdKindSchema(
  crd: CustomResourceDefinition,
  version: string,
  flavor: Flavor,
): JsonObject {
  const { group, names } = crd.spec;
  const v = versionOf(crd, version);
  const source = v.schema?.openAPIV3Schema as Json | undefined;
  let schema: JsonObject;
  if (!isObject(source)) schema = { type: 'object' };
  else if (
    flavor === 'v2' &&
    (source['x-kubernetes-preserve-unknown-fields'] === true ||
      crd.spec.preserveUnknownFields === true)
  ) {
    // kubectl would refuse every field not listed, so v2 publishes a bare object here.
    schema = { type: 'object' };
  } else {
    schema = structuredClone(source);
    if (flavor === 'v3') unfold(schema);
    else toV2(schema);
    const properties = isObject(schema['properties']) ? schema['properties'] : {};
    properties['metadata'] = ref(OBJECT_META, flavor, METADATA_DESCRIPTION);
    schema['properties'] = properties;
    typeMeta(schema);
    addEmbedded(schema, flavor);
  }
  schema['x-kubernetes-group-version-kind'] = gvkExtension(group, version, names.kind);
  selectableFields(schema, crd, version, flavor);
  return schema;
}

/** The list kind's component schema for one CRD version. */
export function crdListSchema(
  crd: CustomResourceDefinition,
  version: string,
  flavor: Flavor,
): JsonObject {
  const { group, names } = crd.spec;
  const listKind = names.listKind ?? `${names.kind}List`;
  const schema: JsonObject = {
    description: `${listKind} is a list of ${names.kind}`,
    properties: {
      items: {
        description: `List of ${names.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`,
        items: ref(crdDefinitionName(group, version, names.kind), flavor),
        type: 'array',
      },
      metadata: ref(LIST_META, flavor, LIST_METADATA_DESCRIPTION),
    },
    required: ['items'],
    type: 'object',
  };
  typeMeta(schema);
  schema['x-kubernetes-group-version-kind'] = gvkExtension(group, version, listKind);
  selectableFields(schema, crd, version, flavor);
  return schema;
}

/** Both component schemas of a CRD version, by definition name. */
export function crdDefinitions(
  crd: CustomResourceDefinition,
  version: string,
  flavor: Flavor,
): Record<string, JsonObject> {
  const { group, names } = crd.spec;
  return {
    [crdDefinitionName(group, version, names.kind)]: crdKindSchema(crd, version, flavor),
    [crdDefinitionName(group, version, names.listKind ?? `${names.kind}List`)]: crdListSchema(
      crd,
      version,
      flavor,
    ),
  };
}

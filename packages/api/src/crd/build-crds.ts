// Builds our four CustomResourceDefinitions from our TypeBox schemas (crd/kinds.ts) and the
// pinned Kubernetes OpenAPI definitions they embed. Pure: `npm run generate` writes the result
// to packages/api/crds/, and the embedded API server installs the same objects at startup.
import type { CustomResourceDefinition, JSONSchemaProps } from '@agent-sandbox/kube-types';
import openapi from '@agent-sandbox/kube-types/openapi/k8s-openapi.json' with { type: 'json' };
import type { TSchema } from '@sinclair/typebox';
import { deprecationWarning, STORAGE_VERSION } from '../groups.ts';
import { CORE_REF } from '../schema.ts';
import { embedCoreSchema, type OpenApiDefinitions } from '@agent-sandbox/crd-schema';
import { KIND_DEFINITIONS, type KindDefinition } from './kinds.ts';

/** Where kube-apiserver sends ConversionReviews: the controller's webhook Service (spec §1, §17). */
export const CONVERSION_WEBHOOK_SERVICE = {
  name: 'agent-sandbox-webhook-service',
  namespace: 'agent-sandbox-system',
  path: '/convert',
} as const;

const definitions = openapi.schemas as unknown as OpenApiDefinitions;

/** The Kubernetes release whose core/v1 schemas our CRDs embed. */
export const KUBERNETES_OPENAPI_SOURCE = `${openapi.source.module}@${openapi.source.version}`;

// JSON-schema keywords a structural schema may carry; TypeBox's own bookkeeping is left behind.
const SCHEMA_KEYS = new Set<string>([
  'description',
  'type',
  'format',
  'default',
  'enum',
  'nullable',
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
  'maxProperties',
  'minProperties',
  'required',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);

/** Converts one TypeBox schema into a CRD structural schema. */
export function toStructural(schema: TSchema): JSONSchemaProps {
  const record = schema as Record<string, unknown>;
  const ref = record[CORE_REF];
  const out: JSONSchemaProps = typeof ref === 'string' ? embedCoreSchema(definitions, ref) : {};
  for (const [key, value] of Object.entries(record)) {
    if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, TSchema>).map(([k, v]) => [k, toStructural(v)]),
      );
    } else if (key === 'items') out.items = toStructural(value as TSchema);
    else if (key === 'additionalProperties' && typeof value === 'object' && value !== null) {
      out.additionalProperties = toStructural(value as TSchema);
    } else if (key === 'required' && Array.isArray(value)) {
      if (value.length > 0) out.required = [...(value as string[])].sort();
    } else if (SCHEMA_KEYS.has(key)) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

export function buildCrd(def: KindDefinition): CustomResourceDefinition {
  const storage = STORAGE_VERSION;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${def.plural}.${def.group}` },
    spec: {
      group: def.group,
      names: {
        kind: def.kind,
        listKind: `${def.kind}List`,
        plural: def.plural,
        shortNames: def.shortNames,
        singular: def.singular,
      },
      scope: 'Namespaced',
      versions: def.versions.map((v) => ({
        ...(v.printerColumns ? { additionalPrinterColumns: v.printerColumns } : {}),
        ...(v.name === storage
          ? {}
          : { deprecated: true, deprecationWarning: deprecationWarning(def.kind) }),
        name: v.name,
        schema: { openAPIV3Schema: toStructural(v.schema) },
        served: true,
        storage: v.name === storage,
        ...(v.subresources ? { subresources: v.subresources } : {}),
      })),
      conversion: {
        strategy: 'Webhook',
        webhook: {
          conversionReviewVersions: ['v1', 'v1beta1'],
          clientConfig: { service: { ...CONVERSION_WEBHOOK_SERVICE } },
        },
      },
    },
  };
}

/** All four CRDs, in a stable order. */
export function buildCrds(): CustomResourceDefinition[] {
  return KIND_DEFINITIONS.map(buildCrd);
}

// Turns a Kubernetes OpenAPI v3 definition (as kube-apiserver publishes it) into the structural
// schema a CRD embeds, in the form controller-gen writes it, so that our CRDs validate embedded
// PodSpecs exactly as upstream's do. Each rewrite below names the difference it bridges.
import type { JSONSchemaProps } from '@agent-sandbox/kube-types';

export interface OpenApiDefinition extends Omit<
  JSONSchemaProps,
  'items' | 'properties' | 'additionalProperties' | 'allOf' | 'oneOf'
> {
  $ref?: string;
  items?: OpenApiDefinition;
  properties?: Record<string, OpenApiDefinition>;
  additionalProperties?: OpenApiDefinition | boolean;
  allOf?: OpenApiDefinition[];
  oneOf?: OpenApiDefinition[];
  [extension: `x-${string}`]: unknown;
}

export type OpenApiDefinitions = Record<string, OpenApiDefinition>;

// controller-gen's pattern for resource.Quantity (its +kubebuilder markers on the Go type).
const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

const INT_OR_STRING: JSONSchemaProps = {
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  'x-kubernetes-int-or-string': true,
};

/** Definitions whose CRD form is fixed by controller-gen rather than derived from OpenAPI. */
const SPECIAL: Record<string, JSONSchemaProps> = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': INT_OR_STRING,
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { ...INT_OR_STRING, pattern: QUANTITY_PATTERN },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': { type: 'string', format: 'date-time' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': { type: 'string', format: 'date-time' },
  // An ObjectMeta below the root is opaque to CRD schemas; kube-apiserver validates it itself.
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': { type: 'object' },
};

// OpenAPI-only annotations that a CRD schema does not carry (strategic-merge hints, unions), and
// descriptions: core/v1 prose is 450 KB per PodSpec, which would push a CRD past the 256 KiB
// last-applied-configuration limit of client-side `kubectl apply` (docs/adr/0002).
const DROPPED_KEYS = new Set([
  'description',
  'x-kubernetes-patch-merge-key',
  'x-kubernetes-patch-strategy',
  'x-kubernetes-unions',
  '$ref',
  'allOf',
]);

// Go types that embed LocalObjectReference inline. controller-gen carries the embedded type's
// +structType=atomic over to them; openapi-gen does not, so we restore it.
const INLINES_ATOMIC_REFERENCE = new Set([
  'io.k8s.api.core.v1.ConfigMapEnvSource',
  'io.k8s.api.core.v1.SecretEnvSource',
  'io.k8s.api.core.v1.ConfigMapProjection',
  'io.k8s.api.core.v1.SecretProjection',
  'io.k8s.api.core.v1.ConfigMapVolumeSource',
]);

// Fields whose Go default is written `+default=ref(SomeConstant)`: openapi-gen resolves the
// constant, controller-gen cannot and writes no default.
const DEFAULTS_FROM_CONSTANT_REFS: Record<string, string[]> = {
  'io.k8s.api.core.v1.AzureDiskVolumeSource': ['cachingMode', 'kind'],
};

export class CoreSchemaError extends Error {
  readonly code = 'CoreSchemaError';
}

function refName(ref: string): string {
  return ref.split('/').pop() ?? ref;
}

/** The structural schema of the named definition, with every reference inlined. */
export function embedCoreSchema(defs: OpenApiDefinitions, name: string): JSONSchemaProps {
  return convert(defs, { $ref: name }, [name]);
}

function convert(
  defs: OpenApiDefinitions,
  node: OpenApiDefinition,
  stack: string[],
): JSONSchemaProps {
  const ref = node.$ref ?? (node.allOf?.length === 1 ? node.allOf[0]?.$ref : undefined);
  let base: JSONSchemaProps = {};
  if (ref !== undefined) {
    const name = refName(ref);
    if (stack.filter((n) => n === name).length > 1) {
      throw new CoreSchemaError(`definition ${name} is recursive; a CRD schema cannot embed it`);
    }
    const special = SPECIAL[name];
    if (special) base = structuredClone(special);
    else {
      const def = defs[name];
      if (!def) throw new CoreSchemaError(`definition ${name} is missing from the OpenAPI source`);
      base = convert(defs, def, [...stack, name]);
      if (INLINES_ATOMIC_REFERENCE.has(name)) base['x-kubernetes-map-type'] = 'atomic';
      for (const field of DEFAULTS_FROM_CONSTANT_REFS[name] ?? []) {
        const prop = base.properties?.[field];
        if (prop) delete prop.default;
      }
    }
  }
  const out: JSONSchemaProps = { ...base };
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED_KEYS.has(key)) continue;
    switch (key) {
      case 'properties':
        out.properties = Object.fromEntries(
          Object.entries(value as Record<string, OpenApiDefinition>).map(([k, v]) => {
            const child = convert(defs, v, stack);
            // openapi-gen gives required (non-omitempty) fields their zero value as default;
            // controller-gen only writes +default markers, which never sit on required fields.
            if (node.required?.includes(k)) dropZeroDefault(child);
            return [k, child];
          }),
        );
        break;
      case 'items':
        out.items = dropZeroDefault(convert(defs, value as OpenApiDefinition, stack));
        break;
      case 'additionalProperties':
        out.additionalProperties =
          typeof value === 'boolean'
            ? value
            : dropZeroDefault(convert(defs, value as OpenApiDefinition, stack));
        break;
      case 'default':
        // OpenAPI gives every non-pointer struct field `default: {}`; controller-gen emits only
        // explicit +default markers, and an empty-object default changes what pruning keeps.
        if (!isEmptyObject(value)) out.default = value;
        break;
      default:
        (out as Record<string, unknown>)[key] = value;
    }
  }
  if (out.properties && out.type === undefined) out.type = 'object';
  return out;
}

/** Removes an implicit zero-value default ("", 0, false) that openapi-gen adds and controller-gen does not. */
function dropZeroDefault(schema: JSONSchemaProps): JSONSchemaProps {
  if (schema.default === '' || schema.default === 0 || schema.default === false)
    delete schema.default;
  return schema;
}

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 0
  );
}

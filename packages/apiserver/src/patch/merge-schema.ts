// The merge schema: for any node of an object, how strategic merge patch and server-side apply
// treat it. Built lazily from the Kubernetes OpenAPI definitions we carry (resolving $ref/allOf on
// demand, so recursive types are fine) or from a CRD's structural schema. The list/map rules
// follow kube-openapi's schemaconv (the OpenAPI → structured-merge-diff converter): lists are
// atomic unless `x-kubernetes-list-type` (or, failing that, a `merge` patch strategy) says
// otherwise; maps are granular unless `x-kubernetes-map-type: atomic`; untyped and
// preserve-unknown subtrees are "deduced" (maps granular, lists atomic, as the value suggests).
import type { JSONSchemaProps } from '@agent-sandbox/kube-types';
import openapi from '@agent-sandbox/kube-types/openapi/k8s-openapi.json' with { type: 'json' };
import { isObject } from './json-value.ts';

export type MergeSchemaKind = 'scalar' | 'map' | 'list' | 'deduced';
export type ListType = 'atomic' | 'set' | 'map';
export type MapType = 'granular' | 'atomic';
export type PatchStrategy = 'merge' | 'replace' | 'retainKeys';
/** structured-merge-diff's scalar types; `untyped` accepts any scalar (int-or-string, Quantity). */
export type ScalarType = 'string' | 'numeric' | 'boolean' | 'untyped';

/**
 * One node of a merge schema. Nodes are immutable and resolved lazily; asking for a child never
 * fails on recursive types. `kind: 'deduced'` means "no schema": the value's own shape decides
 * (objects are granular maps of deduced values, arrays atomic lists, everything else a scalar).
 */
export interface MergeSchema {
  readonly kind: MergeSchemaKind;
  /** For maps: `atomic` maps are replaced and owned as a whole. */
  readonly mapType: MapType;
  /** For lists: `atomic` (replaced), `set` (scalars merged by value), `map` (merged by keys). */
  readonly listType: ListType;
  /** For `map` lists: the key fields, in the schema's order. */
  readonly listMapKeys: readonly string[];
  /** `x-kubernetes-patch-strategy`, split on commas (strategic merge patch only). */
  readonly patchStrategies: readonly PatchStrategy[];
  /** `x-kubernetes-patch-merge-key` (strategic merge patch only). */
  readonly patchMergeKey: string | undefined;
  /**
   * A non-pointer struct field of a built-in type: Go serialises it even when zero (`"spec":{}`),
   * so it is present in the empty object kube compares a create against. OpenAPI marks these
   * with `default: {}`.
   */
  readonly presentWhenZero: boolean;
  /** The schema's `default`, used for list-map key fields the value omits. */
  readonly defaultValue: unknown;
  /**
   * Required struct fields of built-ins: the Go fields without `omitempty`, which serialise as
   * `null` in the zero object kube compares a create against. Empty for custom resources, whose
   * zero object (an empty Unstructured) has no fields at all.
   */
  readonly required: readonly string[];
  /** For scalars: the JSON type a value must have. */
  readonly scalarType: ScalarType;
  /** Whether strategic merge patch is allowed (built-in kinds only; CRs answer 415). */
  readonly strategicMergePatch: boolean;
  /** Declared struct fields, in schema order. */
  fieldNames(): readonly string[];
  /** A declared struct field, or undefined. */
  field(name: string): MergeSchema | undefined;
  /** The type of map values that are not declared fields; undefined when none are allowed. */
  elements(): MergeSchema | undefined;
  /** The list item type. */
  items(): MergeSchema;
}

/** The subset of OpenAPI v3 / JSONSchemaProps the merge schema reads. */
interface RawSchema {
  type?: string | string[];
  required?: string[];
  format?: string;
  default?: unknown;
  properties?: Record<string, RawSchema>;
  additionalProperties?: RawSchema | boolean;
  items?: RawSchema;
  allOf?: RawSchema[];
  oneOf?: RawSchema[];
  anyOf?: RawSchema[];
  $ref?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
}

interface Context {
  readonly defs: Readonly<Record<string, RawSchema>>;
  readonly strategicMergePatch: boolean;
  /** Whether `default: {}` marks Go value-struct fields (true for built-in OpenAPI). */
  readonly goZero: boolean;
  readonly cache: WeakMap<RawSchema, MergeSchema>;
}

const captured = openapi as unknown as {
  schemas: Record<string, RawSchema>;
  serverSchemas: Record<string, RawSchema>;
};
/** Generated kinds plus the served-only ones (EndpointSlice); disjoint closures. */
const BUILTIN_DEFS = { ...captured.schemas, ...captured.serverSchemas };
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const REF_PREFIX = '#/components/schemas/';

const NONE: readonly never[] = [];

class DeducedNode implements MergeSchema {
  readonly kind = 'deduced';
  readonly mapType = 'granular';
  readonly listType = 'atomic';
  readonly listMapKeys = NONE;
  readonly patchStrategies = NONE;
  readonly patchMergeKey = undefined;
  readonly presentWhenZero = false;
  readonly defaultValue = undefined;
  readonly required = NONE;
  readonly scalarType = 'untyped';
  constructor(readonly strategicMergePatch: boolean) {}
  fieldNames(): readonly string[] {
    return [];
  }
  field(): MergeSchema | undefined {
    return undefined;
  }
  elements(): MergeSchema {
    return this;
  }
  items(): MergeSchema {
    return this;
  }
}

/** A schema-less node: what unknown and preserve-unknown-fields subtrees get. */
export const DEDUCED: MergeSchema = new DeducedNode(true);

class SchemaNode implements MergeSchema {
  readonly kind: MergeSchemaKind;
  readonly mapType: MapType;
  readonly listType: ListType;
  readonly listMapKeys: readonly string[];
  readonly patchStrategies: readonly PatchStrategy[];
  readonly patchMergeKey: string | undefined;
  readonly presentWhenZero: boolean;
  readonly defaultValue: unknown;
  readonly required: readonly string[];
  readonly scalarType: ScalarType;
  readonly strategicMergePatch: boolean;
  private readonly raw: RawSchema;
  private readonly fields = new Map<string, MergeSchema>();

  constructor(
    original: RawSchema,
    private readonly ctx: Context,
    private readonly extraFields?: () => Record<string, MergeSchema>,
  ) {
    const raw = resolve(original, ctx.defs);
    this.raw = raw;
    this.strategicMergePatch = ctx.strategicMergePatch;
    this.kind = kindOf(raw, extraFields !== undefined);
    this.mapType = raw['x-kubernetes-map-type'] === 'atomic' ? 'atomic' : 'granular';
    this.patchStrategies = (raw['x-kubernetes-patch-strategy'] ?? '')
      .split(',')
      .filter((s): s is PatchStrategy => s === 'merge' || s === 'replace' || s === 'retainKeys');
    this.patchMergeKey = raw['x-kubernetes-patch-merge-key'];
    this.defaultValue = raw.default;
    this.required = ctx.goZero ? (raw.required ?? []) : [];
    this.scalarType = scalarTypeOf(raw);
    this.presentWhenZero =
      ctx.goZero &&
      this.kind === 'map' &&
      isObject(raw.default) &&
      Object.keys(raw.default).length === 0 &&
      raw.properties !== undefined;
    // schemaconv: an explicit list type wins; otherwise a `merge` patch strategy makes the list
    // associative (keyed by the merge key, or a set without one); otherwise atomic.
    const listType = raw['x-kubernetes-list-type'];
    const merges = this.patchStrategies.includes('merge');
    if (listType === 'set' || listType === 'map' || listType === 'atomic') this.listType = listType;
    else if (merges) this.listType = this.patchMergeKey === undefined ? 'set' : 'map';
    else this.listType = 'atomic';
    this.listMapKeys =
      raw['x-kubernetes-list-map-keys'] ??
      (this.listType === 'map' && this.patchMergeKey !== undefined ? [this.patchMergeKey] : []);
  }

  fieldNames(): readonly string[] {
    const names = Object.keys(this.raw.properties ?? {});
    for (const extra of Object.keys(this.extraFields?.() ?? {})) {
      if (!names.includes(extra)) names.push(extra);
    }
    return names;
  }

  field(name: string): MergeSchema | undefined {
    const cached = this.fields.get(name);
    if (cached !== undefined) return cached;
    const extra = this.extraFields?.()[name];
    const prop = this.raw.properties?.[name];
    const node = extra ?? (prop === undefined ? undefined : nodeFor(prop, this.ctx));
    if (node !== undefined) this.fields.set(name, node);
    return node;
  }

  elements(): MergeSchema | undefined {
    const ap = this.raw.additionalProperties;
    if (isObject(ap)) return nodeFor(ap as RawSchema, this.ctx);
    if (ap === true || this.raw['x-kubernetes-preserve-unknown-fields'] === true) {
      return deducedFor(this.ctx);
    }
    return undefined;
  }

  items(): MergeSchema {
    return this.raw.items === undefined ? deducedFor(this.ctx) : nodeFor(this.raw.items, this.ctx);
  }
}

const DEDUCED_NO_SMP: MergeSchema = new DeducedNode(false);

function deducedFor(ctx: Context): MergeSchema {
  return ctx.strategicMergePatch ? DEDUCED : DEDUCED_NO_SMP;
}

function nodeFor(raw: RawSchema, ctx: Context): MergeSchema {
  const cached = ctx.cache.get(raw);
  if (cached !== undefined) return cached;
  const resolved = resolve(raw, ctx.defs);
  let node: MergeSchema;
  if (resolved['x-kubernetes-embedded-resource'] === true) {
    let fields: Record<string, MergeSchema> | undefined;
    node = new SchemaNode(raw, ctx, () => (fields ??= objectFields(ctx)));
  } else if (kindOf(resolved, false) === 'deduced') node = deducedFor(ctx);
  else node = new SchemaNode(raw, ctx);
  ctx.cache.set(raw, node);
  return node;
}

function kindOf(raw: RawSchema, isObjectRoot: boolean): MergeSchemaKind {
  const type = Array.isArray(raw.type) ? raw.type[0] : raw.type;
  if (raw['x-kubernetes-int-or-string'] === true || raw.format === 'int-or-string') {
    return 'scalar';
  }
  if (type === 'array') return 'list';
  if (type === 'object' || raw.properties !== undefined || isObjectRoot) {
    if (raw.properties === undefined && raw.additionalProperties === undefined && !isObjectRoot) {
      return 'deduced';
    }
    return 'map';
  }
  if (type === 'string' || type === 'integer' || type === 'number' || type === 'boolean') {
    return 'scalar';
  }
  // Quantity and friends are `oneOf` scalars.
  if (raw.oneOf !== undefined || raw.anyOf !== undefined) return 'scalar';
  return 'deduced';
}

function scalarTypeOf(raw: RawSchema): ScalarType {
  if (raw['x-kubernetes-int-or-string'] === true || raw.format === 'int-or-string')
    return 'untyped';
  const type = Array.isArray(raw.type) ? raw.type[0] : raw.type;
  if (type === 'string') return 'string';
  if (type === 'integer' || type === 'number') return 'numeric';
  if (type === 'boolean') return 'boolean';
  return 'untyped';
}

/** Follow `$ref` and single-entry `allOf` wrappers; the wrapper's own extensions win. */
function resolve(raw: RawSchema, defs: Readonly<Record<string, RawSchema>>): RawSchema {
  let current = raw;
  for (let depth = 0; depth < 16; depth++) {
    const ref = current.$ref ?? (current.allOf?.length === 1 ? current.allOf[0]?.$ref : undefined);
    if (ref === undefined) return current;
    const name = ref.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : ref;
    const target = defs[name];
    if (target === undefined) throw new Error(`merge schema: unknown OpenAPI definition ${name}`);
    const overrides: RawSchema = {};
    for (const [k, v] of Object.entries(current)) {
      if (k.startsWith('x-kubernetes-') || k === 'default') {
        (overrides as Record<string, unknown>)[k] = v;
      }
    }
    current = { ...target, ...overrides };
  }
  return current;
}

const builtinContext: Context = {
  defs: BUILTIN_DEFS,
  strategicMergePatch: true,
  goZero: true,
  cache: new WeakMap(),
};
const builtinRoots = new Map<string, MergeSchema>();

/** The names of the OpenAPI definitions we carry, e.g. `io.k8s.api.core.v1.Pod`. */
export function builtinDefinitionNames(): readonly string[] {
  return Object.keys(BUILTIN_DEFS);
}

/**
 * The merge schema of a built-in kind, by OpenAPI definition name
 * (`io.k8s.api.core.v1.Pod`). Throws for an unknown name.
 */
export function builtinMergeSchema(definition: string): MergeSchema {
  const cached = builtinRoots.get(definition);
  if (cached !== undefined) return cached;
  const raw = BUILTIN_DEFS[definition];
  if (raw === undefined) throw new Error(`merge schema: unknown OpenAPI definition ${definition}`);
  const node = nodeFor(raw, builtinContext);
  builtinRoots.set(definition, node);
  return node;
}

function objectFields(ctx: Context): Record<string, MergeSchema> {
  const scalar: RawSchema = { type: 'string' };
  return {
    apiVersion: nodeFor(scalar, ctx),
    kind: nodeFor(scalar, ctx),
    // The CRD OpenAPI builder always types metadata as ObjectMeta.
    metadata: new SchemaNode(BUILTIN_DEFS[OBJECT_META] as RawSchema, {
      ...builtinContext,
      strategicMergePatch: ctx.strategicMergePatch,
      cache: new WeakMap(),
    }),
  };
}

/**
 * The merge schema of a custom resource version from its CRD structural schema
 * (`spec.versions[].schema.openAPIV3Schema`). `apiVersion`, `kind` and `metadata` (ObjectMeta)
 * are added as the CRD OpenAPI builder does. Strategic merge patch is not supported.
 */
export function crdMergeSchema(schema: JSONSchemaProps): MergeSchema {
  const ctx: Context = {
    defs: BUILTIN_DEFS,
    strategicMergePatch: false,
    goZero: false,
    cache: new WeakMap(),
  };
  let fields: Record<string, MergeSchema> | undefined;
  return new SchemaNode(schema as RawSchema, ctx, () => (fields ??= objectFields(ctx)));
}

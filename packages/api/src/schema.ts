// Small builders over TypeBox that emit only what a Kubernetes structural schema allows.
// TypeBox's own literal unions (anyOf/const) and records (patternProperties) are not
// structural, so enums, string maps and int-or-string get dedicated helpers here.
import type { ObjectMeta } from '@agent-sandbox/kube-types';
import { Type, type TSchema, type TUnsafe, type SchemaOptions } from '@sinclair/typebox';

/** Marks a schema node that build-crds replaces with a Kubernetes OpenAPI definition. */
export const CORE_REF = 'x-agent-sandbox-core-ref';

interface Described {
  description?: string;
}

export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Described & { default?: T[number] } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export function Int32(options: SchemaOptions & { minimum?: number; maximum?: number } = {}) {
  return Type.Integer({ format: 'int32', ...options });
}

export function Int64(options: SchemaOptions & { minimum?: number; maximum?: number } = {}) {
  return Type.Integer({ format: 'int64', ...options });
}

export function DateTime(options: Described = {}) {
  return Type.String({ format: 'date-time', ...options });
}

export function StringMap(options: Described = {}): TUnsafe<Record<string, string>> {
  return Type.Unsafe<Record<string, string>>({
    type: 'object',
    additionalProperties: { type: 'string' },
    ...options,
  });
}

/** A list with Kubernetes merge semantics `atomic` (replaced whole by apply and merge patches). */
export function AtomicList<T extends TSchema>(items: T, options: Described = {}) {
  return Type.Array(items, { 'x-kubernetes-list-type': 'atomic', ...options });
}

/** A field whose schema is the named Kubernetes OpenAPI definition (e.g. core/v1 PodSpec). */
export function CoreRef<T>(definition: string, options: Described = {}): TUnsafe<T> {
  return Type.Unsafe<T>({ [CORE_REF]: definition, ...options });
}

/** The root `metadata` of a custom resource: kube-apiserver owns its schema. */
export function RootMetadata() {
  return Type.Unsafe<ObjectMeta>({ type: 'object' });
}

/** apiVersion, kind and metadata of a custom resource's root schema. */
export function rootProperties() {
  return {
    apiVersion: Type.Optional(
      Type.String({ description: 'The versioned schema of this representation of an object.' }),
    ),
    kind: Type.Optional(
      Type.String({ description: 'The REST resource this object represents, in CamelCase.' }),
    ),
    metadata: Type.Optional(RootMetadata()),
  };
}

// The compiled form of a structural schema: one SchemaNode per JSONSchemaProps node, with
// regular expressions and CEL programs prepared once at compile time so that per-object work
// is only walking. Mirrors apiextensions-apiserver/pkg/apiserver/schema.Structural.
import type { JSONSchemaProps } from '@agent-sandbox/kube-types';
import type { CompiledRule } from './cel-rules.ts';

export type SchemaType = NonNullable<JSONSchemaProps['type']>;

export interface SchemaNode {
  /** The source node, for keyword values (enum, minimum, ...) read during validation. */
  readonly props: JSONSchemaProps;
  readonly type: SchemaType | undefined;
  /**
   * The type list kube-openapi checks: `[type]`, or `["integer","string"]` when
   * x-kubernetes-int-or-string (validation.go ConvertJSONSchemaProps).
   */
  readonly openAPITypes: readonly string[];
  readonly nullable: boolean;
  readonly hasDefault: boolean;
  readonly properties: ReadonlyMap<string, SchemaNode> | undefined;
  readonly additionalProperties: SchemaNode | undefined;
  readonly items: SchemaNode | undefined;
  readonly preserveUnknownFields: boolean;
  readonly embeddedResource: boolean;
  readonly intOrString: boolean;
  readonly listType: 'atomic' | 'set' | 'map' | undefined;
  readonly listMapKeys: readonly string[];
  readonly allOf: readonly SchemaNode[];
  readonly anyOf: readonly SchemaNode[];
  readonly oneOf: readonly SchemaNode[];
  readonly not: SchemaNode | undefined;
  readonly pattern: RegExp | undefined;
  readonly rules: readonly CompiledRule[];
  /** Whether this node or any descendant carries x-kubernetes-validations (skip CEL walks). */
  readonly hasRulesBelow: boolean;
  /** Whether this node or any descendant is a list-type set/map (skip list-type walks). */
  readonly hasListChecksBelow: boolean;
  /** Whether this node or any descendant is an embedded resource. */
  readonly hasEmbeddedBelow: boolean;
}

/** Plain JSON object check used by every walker (arrays and null are not objects here). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// The public face of the engine: a compiled structural schema and the write-path pipeline.
import type { JSONSchemaProps } from '@agent-sandbox/kube-types';
import { validateRules } from './cel-validate.ts';
import { compileSchema } from './compile.ts';
import { defaultValue, pruneNonNullableNullsWithoutDefaults } from './defaults.ts';
import { validateEmbeddedResources } from './embedded.ts';
import { invalid, type FieldIssue } from './field-issue.ts';
import { validateListTypes } from './list-type.ts';
import type { SchemaNode } from './node.ts';
import { validateOpenAPI } from './openapi-validate.ts';
import { NIL_PATH } from './paths.ts';
import { pruneResource } from './prune.ts';

/**
 * Errors after which kube-apiserver skips CEL (customResourceStrategy hasBlockingErr):
 * rules could otherwise see values of the wrong type or missing required fields.
 */
const BLOCKING = new Set<FieldIssue['type']>([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

/** The detail of the notice kube appends when blocking errors kept CEL rules from running. */
const RULES_SKIPPED =
  'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

/**
 * Whether an issue is that notice (`<nil>: Invalid value: null: some validation rules were not
 * checked ...`) rather than a problem of its own, e.g. for callers that drop Required
 * errors when checking partial objects.
 */
export function isRulesSkippedIssue(i: FieldIssue): boolean {
  return i.field === NIL_PATH && i.detail === RULES_SKIPPED;
}

/**
 * A custom resource's openAPIV3Schema, checked for structural-ness and compiled once (regular
 * expressions, CEL programs). Every method is pure apart from mutating the object passed in
 * where the method says so; one instance can be shared freely.
 */
export class StructuralSchema {
  readonly #root: SchemaNode;

  private constructor(root: SchemaNode) {
    this.#root = root;
  }

  /**
   * Whether any node of the schema has x-kubernetes-validations rules. kube-apiserver appends the
   * "some validation rules were not checked" notice for blocking errors only when there are
   * rules to skip, including blocking errors found outside this engine (ObjectMeta's).
   */
  get hasValidationRules(): boolean {
    return this.#root.hasRulesBelow;
  }

  /** Throws SchemaError (code NonStructuralSchema, InvalidPattern or InvalidValidationRule). */
  static compile(schema: JSONSchemaProps): StructuralSchema {
    return new StructuralSchema(compileSchema(schema));
  }

  /**
   * Remove unknown fields in place and return their paths (`spec.foo`, `metadata.bar`), as
   * fieldValidation=Warn reports them. apiVersion/kind/metadata of the resource and of embedded
   * resources are kept; metadata is coerced to ObjectMeta.
   */
  prune(obj: unknown): string[] {
    return pruneResource(obj, this.#root);
  }

  /**
   * Drop nulls of non-nullable fields without default, then fill in defaults for missing fields
   * at every level, in place (§8.3).
   */
  applyDefaults(obj: unknown): void {
    pruneNonNullableNullsWithoutDefaults(obj, this.#root);
    defaultValue(obj, this.#root);
  }

  /**
   * Validate a pruned and defaulted object: OpenAPI, embedded resources, list types, then CEL
   * rules. `old` is the stored object on update (enables transition rules); omit it on create.
   * Does not mutate `obj` or `old`.
   */
  validate(obj: unknown, old?: unknown): FieldIssue[] {
    const issues = [
      ...validateOpenAPI(this.#root, obj, old === undefined ? undefined : { value: old }),
      ...validateEmbeddedResources(this.#root, obj),
      ...validateListTypes(this.#root, obj),
    ];
    if (!this.#root.hasRulesBelow) return issues;
    if (issues.some((i) => BLOCKING.has(i.type))) {
      issues.push(invalid(NIL_PATH, null, RULES_SKIPPED));
      return issues;
    }
    return [...issues, ...validateRules(this.#root, obj, old)];
  }
}

export interface AdmitResult {
  /** The pruned and defaulted copy; the input is left untouched. */
  object: unknown;
  /** Paths of removed unknown fields. */
  pruned: string[];
  issues: FieldIssue[];
}

/** The order kube-apiserver applies on create/update: clone, prune, default, validate. */
export function admit(schema: StructuralSchema, obj: unknown, old?: unknown): AdmitResult {
  const object = structuredClone(obj);
  const pruned = schema.prune(object);
  schema.applyDefaults(object);
  return { object, pruned, issues: schema.validate(object, old) };
}

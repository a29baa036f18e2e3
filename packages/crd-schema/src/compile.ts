// JSONSchemaProps -> SchemaNode, done once per schema: structural check, regular expressions,
// CEL programs. Per-object operations only walk the result.
import type { JSONSchemaProps } from '@agent-sandbox/kube-types';
import { CelEnvironments } from './cel-env.ts';
import { compileRules } from './cel-rules.ts';
import { defaultProblems } from './default-checks.ts';
import { SchemaError } from './errors.ts';
import { formatFieldIssue } from './field-issue.ts';
import type { SchemaNode } from './node.ts';
import { child, index, key } from './paths.ts';
import { compileRE2 } from './regex.ts';
import { structuralProblems } from './structural-checks.ts';

function hasRules(s: JSONSchemaProps): boolean {
  if ((s['x-kubernetes-validations'] ?? []).length > 0) return true;
  if (Object.values(s.properties ?? {}).some(hasRules)) return true;
  if (typeof s.additionalProperties === 'object' && hasRules(s.additionalProperties)) return true;
  return s.items !== undefined && hasRules(s.items);
}

function build(s: JSONSchemaProps, path: string, env: CelEnvironments | undefined): SchemaNode {
  const propsPath = child(path, 'properties');
  const properties =
    s.properties === undefined
      ? undefined
      : new Map(
          Object.entries(s.properties).map(([k, p]) => [k, build(p, key(propsPath, k), env)]),
        );
  const additionalProperties =
    typeof s.additionalProperties === 'object'
      ? build(s.additionalProperties, child(path, 'additionalProperties'), env)
      : s.additionalProperties === true
        ? // A bare `true` has no structural schema: pruning then drops every key below it
          // (pruning/algorithm.go prune with s == nil), which an empty node reproduces.
          build({}, child(path, 'additionalProperties'), env)
        : undefined;
  const items = s.items === undefined ? undefined : build(s.items, child(path, 'items'), env);
  const many = (list: JSONSchemaProps[] | undefined, name: string): SchemaNode[] =>
    (list ?? []).map((x, i) => build(x, index(child(path, name), i), env));
  const rules = env !== undefined ? compileRules(env, s, path) : [];
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const children = [...(properties?.values() ?? []), additionalProperties, items].filter(
    (n): n is SchemaNode => n !== undefined,
  );
  const listType = s['x-kubernetes-list-type'];
  const embeddedResource = s['x-kubernetes-embedded-resource'] === true;
  return {
    props: s,
    type: s.type,
    openAPITypes: intOrString ? ['integer', 'string'] : s.type !== undefined ? [s.type] : [],
    nullable: s.nullable === true,
    hasDefault: s.default !== undefined,
    properties,
    additionalProperties,
    items,
    preserveUnknownFields: s['x-kubernetes-preserve-unknown-fields'] === true,
    embeddedResource,
    intOrString,
    listType,
    listMapKeys: s['x-kubernetes-list-map-keys'] ?? [],
    allOf: many(s.allOf, 'allOf'),
    anyOf: many(s.anyOf, 'anyOf'),
    oneOf: many(s.oneOf, 'oneOf'),
    not: s.not === undefined ? undefined : build(s.not, child(path, 'not'), env),
    pattern: s.pattern === undefined ? undefined : compileRE2(s.pattern, path),
    rules,
    hasRulesBelow: rules.length > 0 || children.some((c) => c.hasRulesBelow),
    hasListChecksBelow:
      listType === 'set' || listType === 'map' || children.some((c) => c.hasListChecksBelow),
    hasEmbeddedBelow: embeddedResource || children.some((c) => c.hasEmbeddedBelow),
  };
}

/** Check and compile; throws SchemaError naming every offending schema path. */
export function compileSchema(schema: JSONSchemaProps): SchemaNode {
  const problems = structuralProblems(schema);
  if (problems.length > 0) {
    throw new SchemaError(
      'NonStructuralSchema',
      `schema is not structural: ${problems.map(formatFieldIssue).join(', ')}`,
      { paths: problems.map((p) => p.field) },
    );
  }
  const root = build(schema, '', hasRules(schema) ? new CelEnvironments() : undefined);
  const badDefaults = defaultProblems(root);
  if (badDefaults.length > 0) {
    throw new SchemaError(
      'InvalidDefault',
      `invalid default: ${badDefaults.map(formatFieldIssue).join(', ')}`,
      { paths: badDefaults.map((p) => p.field) },
    );
  }
  return root;
}

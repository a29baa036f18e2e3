// Compilation of x-kubernetes-validations rules, once per schema node
// (apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go). Evaluation lives in
// cel-validate.ts.
import type { Environment, ParseResult } from '@marcbachmann/cel-js';
import type { CelEnvironments } from './cel-env.ts';
import type { JSONSchemaProps, ValidationRule } from '@agent-sandbox/kube-types';
import { SchemaError } from './errors.ts';
import { child, key } from './paths.ts';

export interface CompiledRule {
  readonly rule: ValidationRule;
  readonly program: ParseResult;
  readonly messageProgram: ParseResult | undefined;
  /** A transition rule: mentions `oldSelf` (compilation.go `UsesOldSelf`). */
  readonly usesOldSelf: boolean;
  /** `fieldPath` normalised to a field path relative to the node, '' when absent. */
  readonly fieldPath: string;
}

/** Whether any identifier node in the AST is `oldSelf` (the AST is plain nested objects). */
function mentionsOldSelf(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(mentionsOldSelf);
  if (typeof node !== 'object' || node === null) return false;
  const n = node as { op?: unknown; args?: unknown };
  if (n.op === 'id' && n.args === 'oldSelf') return true;
  return n.op !== undefined && mentionsOldSelf(n.args);
}

function compileExpression(env: Environment, expr: string, where: string): ParseResult {
  try {
    return env.parse(expr);
  } catch (err: unknown) {
    const summary = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new SchemaError(
      'InvalidValidationRule',
      `compile x-kubernetes-validations rule at ${where || '<root>'}: ${summary}`,
      { cause: err, paths: [where] },
    );
  }
}

/**
 * Normalise a rule's `fieldPath` (`.spec.foo`, `.labels['app']`) into a field path the way
 * apiextensions `ValidFieldPath` does: a segment naming a declared property is a Child, a
 * segment into additionalProperties is a Key (so it renders as `labels[app]`).
 */
export function normalizeFieldPath(
  fieldPath: string,
  schema: JSONSchemaProps,
  where: string,
): string {
  const fail = (why: string): never => {
    throw new SchemaError(
      'InvalidValidationRule',
      `invalid fieldPath ${fieldPath} at ${where}: ${why}`,
      {
        paths: [where],
      },
    );
  };
  let rest = fieldPath.trim();
  let out = '';
  let node: JSONSchemaProps | undefined = schema;
  while (rest.length > 0) {
    let name: string;
    const dot = /^\.([a-zA-Z_$][a-zA-Z0-9_$-]*)/.exec(rest);
    const bracket = /^\[(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]/.exec(rest);
    if (dot) {
      name = dot[1] ?? '';
      rest = rest.slice(dot[0].length);
    } else if (bracket) {
      name = (bracket[1] ?? bracket[2] ?? '').replace(/\\(.)/g, '$1');
      rest = rest.slice(bracket[0].length);
    } else {
      return fail("expected .name or ['key']");
    }
    const prop: JSONSchemaProps | undefined = node?.properties?.[name];
    if (prop) {
      out = child(out, name);
      node = prop;
    } else if (node && typeof node.additionalProperties === 'object') {
      out = key(out, name);
      node = node.additionalProperties;
    } else if (node?.['x-kubernetes-preserve-unknown-fields']) {
      out = child(out, name);
      node = undefined;
    } else {
      return fail(`does not refer to a valid field: ${name}`);
    }
  }
  return out;
}

export function compileRules(
  envs: CelEnvironments,
  schema: JSONSchemaProps,
  where: string,
): CompiledRule[] {
  const rules = schema['x-kubernetes-validations'] ?? [];
  return rules.map((rule) => {
    const env = envs.forRule(rule.optionalOldSelf === true);
    const program = compileExpression(env, rule.rule, where);
    const messageProgram =
      rule.messageExpression !== undefined && rule.messageExpression !== ''
        ? compileExpression(env, rule.messageExpression, where)
        : undefined;
    return {
      rule,
      program,
      messageProgram,
      usesOldSelf: mentionsOldSelf(program.ast),
      fieldPath:
        rule.fieldPath !== undefined && rule.fieldPath !== ''
          ? normalizeFieldPath(rule.fieldPath, schema, where)
          : '',
    };
  });
}

// Evaluation of x-kubernetes-validations, after apiextensions-apiserver
// pkg/apiserver/schema/cel/validation.go (Validator.validate / validateExpressions):
// rules run at every schema node whose value is present and not null; transition rules
// (those mentioning oldSelf) run only when the old value exists, unless optionalOldSelf.
import { Optional } from '@marcbachmann/cel-js';
import type { CompiledRule } from './cel-rules.ts';
import { toCelValue } from './cel-value.ts';
import {
  OMIT_VALUE,
  duplicate,
  forbidden,
  invalid,
  required,
  type FieldIssue,
} from './field-issue.ts';
import { canonicalJSON, jsonEqual } from './json.ts';
import { isObject, type SchemaNode } from './node.ts';
import { child, index, key } from './paths.ts';

/** ruleErrorString: the trimmed message if set, else the trimmed rule. */
function ruleErrorString(r: CompiledRule): string {
  const message = r.rule.message?.trim() ?? '';
  return message !== '' ? message : r.rule.rule.trim();
}

/** ruleMessageOrDefault. */
function ruleMessageOrDefault(r: CompiledRule): string {
  const message = r.rule.message?.trim() ?? '';
  return message !== '' ? message : `failed rule: ${r.rule.rule.trim()}`;
}

/**
 * The bad value of a rule's error. Up to 1.34 kube passed the schema type (`Invalid value:
 * "object": ...`); since kubernetes/kubernetes#132798 and #133832 (1.35, "show simple values
 * and NO types") a string, number or bool is shown and objects and lists are left out
 * (field.OmitValueType), which the 1.36 server we are compared with prints as
 * `spec: Invalid value: volumeClaimTemplates is immutable`.
 */
function displayValue(obj: unknown): unknown {
  switch (typeof obj) {
    case 'string':
    case 'number':
    case 'bigint':
    case 'boolean':
      return obj;
    default:
      return OMIT_VALUE;
  }
}

/** fieldErrorForReason: the rule's `reason` chooses the cause type. */
function fieldErrorForReason(
  path: string,
  value: unknown,
  detail: string,
  r: CompiledRule,
): FieldIssue {
  switch (r.rule.reason) {
    case 'FieldValueForbidden':
      return forbidden(path, detail);
    case 'FieldValueRequired':
      return required(path, detail);
    case 'FieldValueDuplicate':
      return duplicate(path, value);
    default:
      return invalid(path, value, detail);
  }
}

/**
 * The one-line error text. cel-js capitalises ("No such key: x") where cel-go, whose text kube
 * prints, does not ("no such key: x"), so the first letter is lowered.
 */
function errorSummary(err: unknown): string {
  let text = String(err);
  if (err instanceof Error) {
    const summary = (err as Error & { summary?: unknown }).summary;
    text = typeof summary === 'string' ? summary : (err.message.split('\n')[0] ?? '');
  }
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** celconfig.MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_MESSAGE_BYTES = 5 * 1024;

/** messageExpression must give a non-empty single-line string; otherwise the static message. */
function failureMessage(r: CompiledRule, ctx: Record<string, unknown>): string {
  if (r.messageProgram !== undefined) {
    try {
      const m: unknown = r.messageProgram(ctx);
      // evalMessageExpression: trimmed, at most 5 KiB, one line, not empty.
      const trimmed = typeof m === 'string' ? m.trim() : '';
      if (trimmed !== '' && trimmed.length <= MAX_MESSAGE_BYTES && !trimmed.includes('\n')) {
        return trimmed;
      }
    } catch {
      // Evaluation errors of messageExpression fall back to the static message (validation.go).
    }
  }
  return ruleMessageOrDefault(r);
}

/**
 * Evaluate the rules of one node. `unchanged` is the ratcheting decision (KEP-4008): on an
 * update, failures of non-transition rules on a value equal to its old value (or, for values
 * that cannot be correlated, whose nearest correlated ancestor is unchanged) are warnings in
 * kube, not errors; we have no warning channel, so they are dropped.
 */
function evaluateRules(
  s: SchemaNode,
  obj: unknown,
  old: unknown,
  unchanged: boolean,
  path: string,
  out: FieldIssue[],
): void {
  const hasOld = old !== undefined && old !== null;
  const shown = displayValue(obj);
  const self = toCelValue(obj, s);
  let oldSelf: unknown;
  for (const r of s.rules) {
    if (r.usesOldSelf && !hasOld && r.rule.optionalOldSelf !== true) continue;
    const ctx: Record<string, unknown> = { self };
    if (r.usesOldSelf) {
      if (hasOld && oldSelf === undefined) oldSelf = toCelValue(old, s);
      if (r.rule.optionalOldSelf === true) {
        ctx['oldSelf'] = hasOld ? Optional.of(oldSelf) : Optional.none();
      } else {
        ctx['oldSelf'] = oldSelf;
      }
    }
    let result: unknown;
    try {
      result = r.program(ctx);
    } catch (err: unknown) {
      out.push(invalid(path, shown, evaluationErrorDetail(err, r)));
      continue;
    }
    if (result === true || (unchanged && !r.usesOldSelf)) continue;
    const at = r.fieldPath === '' ? path : child(path, r.fieldPath);
    out.push(fieldErrorForReason(at, shown, failureMessage(r, ctx), r));
  }
}

/**
 * validation.go: overload errors get a longer explanation (they only happen at run time for
 * dynamically typed values such as int-or-string); everything else is "<err> evaluating rule".
 */
function evaluationErrorDetail(err: unknown, r: CompiledRule): string {
  const summary = errorSummary(err);
  if (summary.startsWith('found no matching overload') || summary.startsWith('no such overload')) {
    return `'no such overload': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(r)}`;
  }
  return `${summary} evaluating rule: ${ruleErrorString(r)}`;
}

/** Old list-map items correlate with new ones by their map keys (validation.go makeMapList). */
function correlate(s: SchemaNode, old: unknown): ((item: unknown) => unknown) | undefined {
  if (s.listType !== 'map' || !Array.isArray(old)) return undefined;
  const id = (x: unknown): string | undefined =>
    isObject(x) ? s.listMapKeys.map((k) => canonicalJSON(x[k] ?? null)).join('\u0000') : undefined;
  const byKey = new Map<string, unknown>();
  for (const item of old) {
    const k = id(item);
    if (k !== undefined && !byKey.has(k)) byKey.set(k, item);
  }
  return (item) => {
    const k = id(item);
    return k === undefined ? undefined : byKey.get(k);
  };
}

function walk(
  s: SchemaNode | undefined,
  obj: unknown,
  old: unknown,
  inheritedUnchanged: boolean,
  path: string,
  out: FieldIssue[],
): void {
  if (s === undefined || !s.hasRulesBelow || obj === null || obj === undefined) return;
  // A value without an old counterpart ratchets with its nearest correlated ancestor.
  const unchanged = old !== undefined ? jsonEqual(old, obj) : inheritedUnchanged;
  if (s.rules.length > 0) evaluateRules(s, obj, old, unchanged, path, out);
  if (Array.isArray(obj)) {
    const items = s.items;
    if (items === undefined) return;
    const oldOf = correlate(s, old);
    obj.forEach((v, i) => walk(items, v, oldOf?.(v), unchanged, index(path, i), out));
    return;
  }
  if (!isObject(obj)) return;
  const oldMap = isObject(old) ? old : undefined;
  const oldOf = (k: string): unknown =>
    oldMap !== undefined && Object.hasOwn(oldMap, k) ? oldMap[k] : undefined;
  if (s.additionalProperties !== undefined) {
    for (const [k, v] of Object.entries(obj)) {
      walk(s.additionalProperties, v, oldOf(k), unchanged, key(path, k), out);
    }
  }
  if (s.properties !== undefined) {
    for (const [k, v] of Object.entries(obj)) {
      const prop = s.properties.get(k);
      if (prop !== undefined) walk(prop, v, oldOf(k), unchanged, child(path, k), out);
    }
  }
}

/** Run every rule under `root`; `old` is the stored object on update, undefined on create. */
export function validateRules(root: SchemaNode, obj: unknown, old: unknown): FieldIssue[] {
  const out: FieldIssue[] = [];
  walk(root, obj, old, false, '', out);
  return out;
}

// Admission wherever objects enter (the CLI now, the embedded API server later): kind and
// version resolution, ObjectMeta, the structural schema (pruning, defaulting, validation, CEL)
// and, for our kinds, the semantic checks — in kube-apiserver's order.
import type { KubeObject } from '@agent-sandbox/kube-types';
import {
  admit,
  invalid,
  isRulesSkippedIssue,
  notSupported,
  required,
  validateObjectMeta,
  type FieldIssue,
} from '@agent-sandbox/crd-schema';
import { deprecationWarning } from '../groups.ts';

import { apiVersionsOf, findServedKind } from './registry.ts';
import { semanticIssues, type SemanticOptions } from './semantic.ts';

export interface ValidateOptions extends SemanticOptions {
  /** The stored object on update: enables transition rules such as volumeClaimTemplates immutability. */
  old?: unknown;
  /** Unknown fields are errors (kubectl's default `--validate=strict`); false only prunes them. */
  strictFields?: boolean;
  /**
   * Validate a partial object, such as a kustomize patch: missing required fields are not
   * reported, everything present is checked.
   */
  partial?: boolean;
}

export interface ValidateResult {
  /** kind/name as kubectl prints it, e.g. `Sandbox/my-sandbox`. */
  ref: string;
  /** The object after pruning and defaulting, when its kind and version are known. */
  object?: KubeObject;
  issues: FieldIssue[];
  warnings: string[];
}

const KNOWN_KINDS =
  'Sandbox (agents.x-k8s.io), SandboxTemplate, SandboxClaim and SandboxWarmPool (extensions.agents.x-k8s.io)';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refOf(obj: Record<string, unknown>): string {
  const kind = typeof obj['kind'] === 'string' && obj['kind'] !== '' ? obj['kind'] : '<no kind>';
  const meta = obj['metadata'];
  const name = isRecord(meta) && typeof meta['name'] === 'string' ? meta['name'] : '<no name>';
  return `${kind}/${name}`;
}

export function validateObject(input: unknown, options: ValidateOptions = {}): ValidateResult {
  if (!isRecord(input)) {
    const issue = invalid(
      '<document>',
      input,
      'a manifest must be a mapping with apiVersion, kind and metadata',
    );
    return { ref: '<document>', issues: [issue], warnings: [] };
  }
  const ref = refOf(input);
  const { apiVersion, kind } = input;
  const head: FieldIssue[] = [];
  if (typeof apiVersion !== 'string' || apiVersion === '') head.push(required('apiVersion'));
  if (typeof kind !== 'string' || kind === '') head.push(required('kind'));
  if (head.length > 0) return { ref, issues: head, warnings: [] };

  const served = findServedKind(apiVersion as string, kind as string);
  if (!served) {
    const versions = apiVersionsOf(kind as string);
    const issue =
      versions.length === 0
        ? invalid('kind', kind, `unknown kind; agent-sandbox serves ${KNOWN_KINDS}`)
        : notSupported('apiVersion', apiVersion, versions);
    return { ref, issues: [issue], warnings: [] };
  }

  const result = admit(served.schema(), input, options.old);
  const object = result.object as KubeObject;
  const issues: FieldIssue[] = [];
  if (options.strictFields !== false) {
    for (const path of result.pruned) {
      issues.push({
        type: 'FieldValueNotFound',
        field: path,
        message: `Not found: unknown field "${path}"`,
      });
    }
  }
  if (!options.partial) issues.push(...validateObjectMeta(object.metadata));
  const warnings: string[] = [];
  for (const issue of result.issues) {
    // kube-apiserver lists "rules not checked" among the errors; for a person it is advice.
    if (isRulesSkippedIssue(issue)) {
      if (!options.partial) warnings.push(issue.detail ?? issue.message);
    } else if (!(options.partial && issue.type === 'FieldValueRequired')) issues.push(issue);
  }
  if (served.ours && result.issues.length === 0) {
    issues.push(...semanticIssues(served.ours, object, options));
  }
  if (served.ours && (apiVersion as string).endsWith('/v1alpha1')) {
    warnings.push(deprecationWarning(served.ours));
  }
  return { ref, object, issues, warnings };
}

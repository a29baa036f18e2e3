// Admission of a written object: pruning, defaulting and schema validation (custom resources,
// and built-ins through their OpenAPI schema), ObjectMeta rules, and fieldValidation reporting
// of unknown fields (semantics doc §3.5, §8.3).
import {
  admit,
  invalid as invalidField,
  isRulesSkippedIssue,
  isDNS1123Label,
  isValidPathSegmentName,
  validateObjectMeta,
  type FieldIssue,
  type NameRule,
} from '@agent-sandbox/crd-schema';
import { badRequest, invalid, statusError } from '../errors.ts';
import { isConfigMap, validateConfigMapSize } from '../resources/configmap-validation.ts';
import { isEndpointSlice, validateEndpointSlice } from '../resources/endpointslice-strategy.ts';
import { generateName } from '../objects.ts';
import { objectKey } from '../resource-store.ts';
import { defaultBuiltin } from '../resources/kind-defaults.ts';
import { admitPodCreate } from '../resources/pods-admission.ts';
import { defaultPodSpec } from '../resources/pods-defaults.ts';
import { isPod, podCreateWarnings } from '../resources/pods-strategy.ts';
import { validatePodSpecUpdate } from '../resources/pods-update-validation.ts';
import { isPodSpecPathCheckedHere, validatePodSpec } from '../resources/pods-validation.ts';
import { readPath } from './field-path.ts';
import type { KubeObject } from '../objects.ts';
import type { Call, ServerParts } from './context.ts';
import type { WriteOptions } from './options.ts';
import { normalizeGoTimes } from '../resources/go-times.ts';

/**
 * RBAC objects are named like `system:controller:x`: kube checks only that their names fit a
 * path segment (ValidateRBACName); every other kind keeps the DNS-subdomain rule.
 */
function nameRuleOf(r: Call['r']): NameRule | undefined {
  if (r.group !== 'rbac.authorization.k8s.io') return undefined;
  return isValidPathSegmentName;
}

/**
 * Prunes and defaults `obj` in place-equivalent and returns the admitted object; throws 422
 * Invalid (or 400 for Strict unknown fields on POST/PUT) as kube-apiserver would.
 */
export function admitObject(
  call: Call,
  obj: KubeObject,
  old: KubeObject | undefined,
  opts: WriteOptions,
  verb: 'create' | 'update' | 'patch',
): KubeObject {
  const { r } = call;
  const schema = r.schema(call.version);
  let admitted = obj;
  const schemaIssues: FieldIssue[] = [];
  let pruned: string[] = [];
  if (schema) {
    const result = admit(schema, obj, old);
    admitted = result.object as KubeObject;
    pruned = result.pruned;
    // A Pod's required and duplicate checks are kube's handwritten ones (pods-validation.ts).
    schemaIssues.push(
      ...(isPod(r) ? result.issues.filter(isSchemaIssueKeptForPods) : result.issues),
    );
  }
  // kube defaults a built-in object when it decodes it, before validation (pods-defaults.ts).
  // Copied first: a patched object may share nested values with the stored one.
  if (isPod(r) || !r.crd) admitted = structuredClone(admitted);
  if (isPod(r)) defaultPodSpec(admitted['spec']);
  else if (!r.crd) defaultBuiltin(r, admitted);
  const badTime =
    !r.crd && r.openApiDefinition ? normalizeGoTimes(r.openApiDefinition, admitted) : undefined;
  if (badTime !== undefined)
    throw badRequest(
      `${r.kind} in version "${call.version}" cannot be handled as a ${r.kind}: ${badTime}`,
    );
  if (pruned.length > 0 && opts.fieldValidation === 'Strict') {
    const list = pruned.map((p) => `unknown field "${p}"`).join(', ');
    if (verb === 'patch') {
      throw statusError(
        422,
        'Invalid',
        ` "" is invalid: patch: Invalid value: "${JSON.stringify(obj).replace(/"/g, '\\"')}": strict decoding error: ${list}`,
        {
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: `Invalid value: "...": strict decoding error: ${list}`,
              field: 'patch',
            },
          ],
        },
      );
    }
    throw badRequest(
      `${r.kind} in version "${call.version}" cannot be handled as a ${r.kind}: strict decoding error: ${list}`,
    );
  }
  if (pruned.length > 0 && opts.fieldValidation === 'Warn') {
    call.warnings.push(...pruned.map((p) => `unknown field "${p}"`));
  }
  call.admit?.(admitted, old, 'before-validation');
  // kube-apiserver's order: ObjectMeta, then the schema, then the scale subresource's check.
  const issues: FieldIssue[] = [...validateObjectMeta(admitted.metadata, nameRuleOf(r))];
  // Blocking ObjectMeta errors (required, type, enum, too long/many) also stop CEL rules, and
  // kube says so once (semantics doc §7.3); a merely invalid value does not.
  if (
    issues.some(isBlocking) &&
    schema?.hasValidationRules &&
    !schemaIssues.some(isRulesSkippedIssue)
  ) {
    schemaIssues.push(rulesSkippedIssue());
  }
  const name = admitted.metadata.name;
  if (r.plural === 'namespaces' && name) {
    // Namespace names are DNS-1123 labels, stricter than the subdomain rule for other kinds (§2).
    for (const msg of isDNS1123Label(name)) issues.push(invalidField('metadata.name', name, msg));
  }
  issues.push(...schemaIssues, ...scaleReplicasIssues(call, admitted));
  // Built-in kinds' own validation (kube's Validate<Kind>) after the generic checks.
  if (isEndpointSlice(r)) issues.push(...validateEndpointSlice(admitted, old));
  if (isConfigMap(r)) issues.push(...validateConfigMapSize(admitted));
  if (isPod(r) && call.req.subresource === undefined) {
    issues.push(
      ...(old
        ? validatePodSpecUpdate(admitted['spec'], old['spec'])
        : validatePodSpec(admitted['spec'])),
    );
  }
  if (issues.length > 0) {
    const name = admitted.metadata.name ?? admitted.metadata.generateName ?? '';
    throw invalid(
      r,
      name,
      issues.map((i) => ({ field: i.field, message: i.message, type: i.type })),
    );
  }
  call.admit?.(admitted, old, 'after-validation');
  if (isPod(r) && !old) call.warnings.push(...podCreateWarnings(admitted));
  return admitted;
}

/**
 * kube's mutating admission plugins on create (pods-admission.ts). They run after managedFields
 * are tracked, as in kube-apiserver, so what they add belongs to no manager.
 */
export function admitCreateMutations(parts: ServerParts, call: Call, obj: KubeObject): void {
  if (!isPod(call.r) || call.req.subresource !== undefined) return;
  const spec = obj['spec'] as Record<string, unknown> | undefined;
  const saName = typeof spec?.['serviceAccountName'] === 'string' && spec['serviceAccountName'];
  const saInfo = parts.registry.lookup('', 'v1', 'serviceaccounts');
  const stored =
    saInfo && parts.store.get(objectKey(saInfo, call.req.namespace, saName || 'default'));
  const refusal = admitPodCreate(obj, {
    serviceAccount: stored ? (JSON.parse(stored.value) as Record<string, unknown>) : undefined,
    suffix: generateName('', parts.ctx.random),
  });
  if (refusal === undefined) return;
  // kube's admission runs before a generateName becomes a name, and names the prefix.
  const { name = '', generateName: prefix } = obj.metadata;
  const shown =
    prefix && name.startsWith(prefix) && name.length === prefix.length + 5 ? prefix : name;
  throw statusError(403, 'Forbidden', `pods "${shown}" is forbidden: ${refusal}`, {
    name: shown,
    kind: 'pods',
  });
}

/** apiextensions checks the scale subresource's spec replicas path on every write (§6.2). */
function scaleReplicasIssues(call: Call, obj: KubeObject): FieldIssue[] {
  const path = call.r.scale?.specReplicasPath;
  if (!path) return [];
  const cur = readPath(obj, path);
  if (typeof cur === 'number' && cur < 0) {
    return [
      {
        type: 'FieldValueInvalid',
        field: path,
        badValue: cur,
        message: `Invalid value: ${cur}: should be a non-negative integer`,
      },
    ];
  }
  return [];
}

/** kube's "<nil>: Invalid value: null: some validation rules were not checked ..." notice. */
function rulesSkippedIssue(): FieldIssue {
  const detail =
    'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
  return invalidField('<nil>', null, detail);
}

const BLOCKING: ReadonlySet<string> = new Set([
  'FieldValueRequired',
  'FieldValueTypeInvalid',
  'FieldValueNotSupported',
  'FieldValueTooLong',
  'FieldValueTooMany',
]);

function isBlocking(issue: FieldIssue): boolean {
  return BLOCKING.has(issue.type);
}

function isSchemaIssueKeptForPods(issue: FieldIssue): boolean {
  if (issue.type === 'FieldValueDuplicate') return false;
  return !(issue.type === 'FieldValueRequired' && isPodSpecPathCheckedHere(issue.field));
}

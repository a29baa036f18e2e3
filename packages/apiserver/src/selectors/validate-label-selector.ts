// Validation of metav1.LabelSelector fields inside objects (NetworkPolicy podSelector,
// namespaceSelector, ...), as k8s.io/apimachinery/pkg/apis/meta/v1/validation does it:
// ValidateLabelSelector → one field.Error per message, in kube's order (operator, key, values).
import { forbidden, invalid, required, type FieldIssue } from '@agent-sandbox/crd-schema';
import type { LabelSelectorObject } from './label-selector.ts';
import { labelValueErrors, qualifiedNameErrors } from './label-validation.ts';

export interface ValidateLabelSelectorOptions {
  /** LabelSelectorValidationOptions.AllowInvalidLabelValueInSelector. @default false */
  allowInvalidLabelValueInSelector?: boolean;
}

/** ValidateLabelName: one Invalid per IsQualifiedName message. */
export function validateLabelName(name: string, path: string): FieldIssue[] {
  return qualifiedNameErrors(name).map((msg) => invalid(path, name, msg));
}

/** ValidateLabels (matchLabels, metadata.labels): keys in sorted order, kube walks a map. */
export function validateLabels(
  labels: Readonly<Record<string, string>> | null | undefined,
  path: string,
): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const key of Object.keys(labels ?? {}).sort()) {
    out.push(...validateLabelName(key, path));
    const value = labels?.[key] ?? '';
    out.push(...labelValueErrors(value).map((msg) => invalid(path, value, msg)));
  }
  return out;
}

/**
 * ValidateLabelSelector at `path` (e.g. `spec.podSelector`). A null selector is valid.
 * Returns kube's field errors; the registry turns them into a 422 Invalid Status.
 */
export function validateLabelSelector(
  selector: LabelSelectorObject | null | undefined,
  path: string,
  opts: ValidateLabelSelectorOptions = {},
): FieldIssue[] {
  if (selector === null || selector === undefined) return [];
  const out = validateLabels(selector.matchLabels, `${path}.matchLabels`);
  (selector.matchExpressions ?? []).forEach((expr, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const values = expr.values ?? [];
    switch (expr.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) {
          out.push(
            required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"),
          );
        }
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) {
          out.push(
            forbidden(
              `${at}.values`,
              "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            ),
          );
        }
        break;
      default:
        out.push(invalid(`${at}.operator`, expr.operator, 'not a valid selector operator'));
    }
    out.push(...validateLabelName(expr.key, `${at}.key`));
    if (opts.allowInvalidLabelValueInSelector !== true) {
      values.forEach((v, j) => {
        out.push(...labelValueErrors(v).map((msg) => invalid(`${at}.values[${j}]`, v, msg)));
      });
    }
  });
  return out;
}

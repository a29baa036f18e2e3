// ObjectMeta checks kube-apiserver applies to every custom resource
// (apimachinery/pkg/api/validation/objectmeta.go, with NameIsDNSSubdomain for CRs).
import type { FieldIssue } from './field-issue.ts';
import { invalid, required, tooLong } from './field-issue.ts';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from './names.ts';

const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A kind's name check (kube's ValidateNameFunc); `prefix` is true for a generateName, which is
 * checked without the random suffix kube appends.
 */
export type NameRule = (value: string, prefix: boolean) => string[];

/** NameIsDNSSubdomain, the rule of custom resources and most built-in kinds. */
export const dnsSubdomainName: NameRule = (value, prefix) =>
  // A generateName is checked after trimming a trailing '-' (its suffix follows it).
  isDNS1123Subdomain(prefix ? value.replace(/-$/, '') : value);

export function validateObjectMeta(
  metadata: unknown,
  nameRule: NameRule = dnsSubdomainName,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (!isRecord(metadata)) return [required('metadata')];
  const { name, generateName, namespace, labels, annotations } = metadata;
  const hasName = typeof name === 'string' && name !== '';
  const hasGenerateName = typeof generateName === 'string' && generateName !== '';
  // kube checks both: a server has made the name from the generateName by now.
  if (hasGenerateName) {
    for (const msg of nameRule(generateName, true)) {
      issues.push(invalid('metadata.generateName', generateName, msg));
    }
  }
  if (hasName) {
    for (const msg of nameRule(name, false)) issues.push(invalid('metadata.name', name, msg));
  } else if (!hasGenerateName) {
    issues.push(required('metadata.name', 'name or generateName is required'));
  }
  if (typeof namespace === 'string' && namespace !== '') {
    for (const msg of isDNS1123Label(namespace))
      issues.push(invalid('metadata.namespace', namespace, msg));
  }
  if (isRecord(labels)) {
    for (const [key, value] of Object.entries(labels)) {
      for (const msg of isQualifiedName(key)) issues.push(invalid('metadata.labels', key, msg));
      if (typeof value === 'string') {
        for (const msg of isValidLabelValue(value))
          issues.push(invalid('metadata.labels', value, msg));
      }
    }
  }
  if (isRecord(annotations)) {
    let size = 0;
    for (const [key, value] of Object.entries(annotations)) {
      for (const msg of isQualifiedName(key.toLowerCase())) {
        issues.push(invalid('metadata.annotations', key, msg));
      }
      size += key.length + (typeof value === 'string' ? value.length : 0);
    }
    if (size > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) {
      issues.push(tooLong('metadata.annotations', '', TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
    }
  }
  return issues;
}

// Helpers shared by this package's tests (not exported from the package).
import type { JSONSchemaProps } from '@agent-sandbox/kube-types';
import { formatFieldIssue, type FieldIssue } from './field-issue.ts';
import { StructuralSchema } from './structural-schema.ts';

/** A root schema whose `spec` has the given properties. */
export function specSchema(
  properties: Record<string, JSONSchemaProps>,
  spec: Omit<JSONSchemaProps, 'properties'> = {},
): JSONSchemaProps {
  return {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: { type: 'object', ...spec, properties },
    },
  };
}

export function compileSpec(
  properties: Record<string, JSONSchemaProps>,
  spec: Omit<JSONSchemaProps, 'properties'> = {},
): StructuralSchema {
  return StructuralSchema.compile(specSchema(properties, spec));
}

export function messages(issues: FieldIssue[]): string[] {
  return issues.map(formatFieldIssue);
}

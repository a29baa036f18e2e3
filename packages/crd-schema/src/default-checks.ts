// kube-apiserver refuses a CRD whose defaults would not survive admission: a default must
// not contain fields pruning would drop, and must validate against the schema it sits on
// (apiextensions pkg/apis/apiextensions/validation: validateStructuralDefaults, which runs the
// OpenAPI validator on the default with the path `<schema path>.default`).
import { invalid, type FieldIssue } from './field-issue.ts';
import type { SchemaNode } from './node.ts';
import { validateValueAt } from './openapi-validate.ts';
import { child, key, NIL_PATH } from './paths.ts';
import { pruneAt } from './prune.ts';

function under(base: string, field: string): string {
  if (field === '' || field === NIL_PATH) return base;
  return field.startsWith('[') ? `${base}${field}` : `${base}.${field}`;
}

function check(s: SchemaNode, path: string, out: FieldIssue[]): void {
  if (s.hasDefault) {
    const at = child(path, 'default');
    const value = structuredClone(s.props.default);
    const unknown = pruneAt(value, s);
    if (unknown.length > 0) {
      out.push(invalid(at, s.props.default, `must not have unknown fields: ${unknown.join(', ')}`));
    } else {
      for (const i of validateValueAt(s, value, '')) out.push({ ...i, field: under(at, i.field) });
    }
  }
  for (const [k, p] of s.properties ?? []) check(p, key(child(path, 'properties'), k), out);
  if (s.additionalProperties !== undefined)
    check(s.additionalProperties, child(path, 'additionalProperties'), out);
  if (s.items !== undefined) check(s.items, child(path, 'items'), out);
}

/** Problems with the defaults in a compiled schema; empty when every default is admissible. */
export function defaultProblems(root: SchemaNode): FieldIssue[] {
  const out: FieldIssue[] = [];
  check(root, '', out);
  return out;
}

// Validation of x-kubernetes-embedded-resource values, after apiextensions-apiserver
// pkg/apiserver/schema/objectmeta/validation.go (validateEmbeddedResource): apiVersion and kind
// are required strings, kind must be a DNS-1035 label up to case, and metadata must be valid
// ObjectMeta with path-segment names.
import { invalid, required, type FieldIssue } from './field-issue.ts';
import { isObject, type SchemaNode } from './node.ts';
import { validateEmbeddedObjectMeta } from './embedded-object-meta.ts';
import { child, index, key } from './paths.ts';

const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

function validateEmbeddedResource(
  path: string,
  x: Record<string, unknown>,
  out: FieldIssue[],
): void {
  // apiVersion and kind are required, metadata is not.
  if (!Object.hasOwn(x, 'apiVersion')) out.push(required(child(path, 'apiVersion')));
  if (!Object.hasOwn(x, 'kind')) out.push(required(child(path, 'kind')));
  if (Object.hasOwn(x, 'apiVersion')) {
    const v = x['apiVersion'];
    if (typeof v !== 'string') out.push(invalid(child(path, 'apiVersion'), v, 'must be a string'));
    else if (v === '') out.push(invalid(child(path, 'apiVersion'), v, 'must not be empty'));
    else if (v.split('/').length > 2)
      // schema.ParseGroupVersion
      out.push(invalid(child(path, 'apiVersion'), v, `unexpected GroupVersion string: ${v}`));
  }
  if (Object.hasOwn(x, 'kind')) {
    const v = x['kind'];
    if (typeof v !== 'string') out.push(invalid(child(path, 'kind'), v, 'must be a string'));
    else if (v === '') out.push(invalid(child(path, 'kind'), v, 'must not be empty'));
    else {
      const errs: string[] = [];
      if (v.length > 63) errs.push('must be no more than 63 characters');
      if (!DNS1035.test(v.toLowerCase())) errs.push(DNS1035_MSG);
      if (errs.length > 0)
        out.push(
          invalid(
            child(path, 'kind'),
            v,
            `may have mixed case, but should otherwise match: ${errs.join(',')}`,
          ),
        );
    }
  }
  if (Object.hasOwn(x, 'metadata')) {
    out.push(...validateEmbeddedObjectMeta(x['metadata'], child(path, 'metadata')));
  }
}

function walk(path: string, s: SchemaNode | undefined, x: unknown, out: FieldIssue[]): void {
  if (s === undefined || !s.hasEmbeddedBelow) return;
  if (Array.isArray(x)) {
    x.forEach((v, i) => walk(index(path, i), s.items, v, out));
    return;
  }
  if (!isObject(x)) return;
  if (s.embeddedResource) validateEmbeddedResource(path, x, out);
  for (const [k, v] of Object.entries(x)) {
    const prop = s.properties?.get(k);
    if (prop !== undefined) walk(child(path, k), prop, v, out);
    else if (s.additionalProperties !== undefined)
      walk(key(path, k), s.additionalProperties, v, out);
  }
}

/** schemaobjectmeta.Validate(nil, obj, schema, isResourceRoot=false). */
export function validateEmbeddedResources(root: SchemaNode, obj: unknown): FieldIssue[] {
  const out: FieldIssue[] = [];
  walk('', root, obj, out);
  return out;
}

// ObjectMeta checks for the metadata of an x-kubernetes-embedded-resource, as
// apiextensions-apiserver pkg/apiserver/schema/objectmeta/validation.go runs them:
// metavalidation.ValidateObjectMeta with path.ValidatePathSegmentName for names, the namespace
// checked only when set, and an empty name replaced by "fakename" (so it is not required).
// The root resource's metadata is validated by the API server's registry, not here.
import { invalid, tooLong, type FieldIssue } from './field-issue.ts';
import { isDNS1123Label, isQualifiedName, isValidLabelValue } from './names.ts';
import { isObject } from './node.ts';
import { child } from './paths.ts';

/** objectmeta.go TotalAnnotationSizeLimitB. */
const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

/** path.ValidatePathSegmentName (name.go). */
function isValidPathSegmentName(name: string, prefix: boolean): string[] {
  if (!prefix && (name === '.' || name === '..')) return [`may not be '${name}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function byteLength(s: string): number {
  return new TextEncoder().encode(s).length;
}

export function validateEmbeddedObjectMeta(meta: unknown, path: string): FieldIssue[] {
  const m = isObject(meta) ? meta : {};
  const out: FieldIssue[] = [];
  const generateName = str(m['generateName']);
  for (const msg of generateName === '' ? [] : isValidPathSegmentName(generateName, true)) {
    out.push(invalid(child(path, 'generateName'), generateName, msg));
  }
  const name = str(m['name']);
  for (const msg of name === '' ? [] : isValidPathSegmentName(name, false)) {
    out.push(invalid(child(path, 'name'), name, msg));
  }
  const namespace = str(m['namespace']);
  for (const msg of namespace === '' ? [] : isDNS1123Label(namespace)) {
    out.push(invalid(child(path, 'namespace'), namespace, msg));
  }
  const generation = m['generation'];
  if (typeof generation === 'number' && generation < 0) {
    out.push(invalid(child(path, 'generation'), generation, 'must be greater than or equal to 0'));
  }
  const labelsPath = child(path, 'labels');
  for (const [k, v] of Object.entries(isObject(m['labels']) ? m['labels'] : {})) {
    for (const msg of isQualifiedName(k)) out.push(invalid(labelsPath, k, msg));
    for (const msg of isValidLabelValue(str(v))) out.push(invalid(labelsPath, str(v), msg));
  }
  const annotationsPath = child(path, 'annotations');
  let size = 0;
  for (const [k, v] of Object.entries(isObject(m['annotations']) ? m['annotations'] : {})) {
    // Annotation keys are qualified names in which case does not matter.
    for (const msg of isQualifiedName(k.toLowerCase())) out.push(invalid(annotationsPath, k, msg));
    size += byteLength(k) + byteLength(str(v));
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) {
    out.push(tooLong(annotationsPath, '', TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  }
  return out;
}

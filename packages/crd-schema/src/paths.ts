// Field paths exactly as k8s.io/apimachinery/pkg/util/validation/field.Path renders them:
// `Child` joins with ".", `Index` appends "[i]", `Key` appends "[key]" (no quoting). The root
// (a nil *field.Path) renders as "<nil>" when an error is attached to it.

/** A field path already rendered; "" is the root. */
export type FieldPath = string;

export const ROOT: FieldPath = '';

/** What `(*field.Path)(nil).String()` prints, used by kube for errors without a field. */
export const NIL_PATH = '<nil>';

export function child(parent: FieldPath, name: string): FieldPath {
  return parent === '' ? name : `${parent}.${name}`;
}

export function index(parent: FieldPath, i: number): FieldPath {
  return `${parent}[${i}]`;
}

export function key(parent: FieldPath, k: string): FieldPath {
  return `${parent}[${k}]`;
}

/**
 * kube-openapi's validator names a value by joining with "." even for additionalProperties keys
 * (object_validator.go: `o.Path+"."+key`), and apiextensions then trims one leading "."
 * (validation.go `kubeOpenAPIResultToFieldErrors`). So a map entry reads `metadata.labels.foo`
 * in OpenAPI errors but `metadata.labels[foo]` in CEL and list-type errors.
 */
export function openAPIChild(parent: FieldPath, name: string): FieldPath {
  return `${parent}.${name}`;
}

/** Strip the leading "." kube-openapi leaves on root-level names (see `openAPIChild`). */
export function openAPIFieldName(path: FieldPath): FieldPath {
  return path.startsWith('.') ? path.slice(1) : path;
}

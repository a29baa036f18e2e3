// Is a schema structural? A subset of apiextensions-apiserver's
// pkg/apiserver/schema/validation.go (`validateStructuralInvariants`, `validateNestedValueValidation`)
// and of the CRD API validation in pkg/apis/apiextensions/validation (uniqueItems,
// additionalProperties vs properties, list-map keys). Paths are relative to openAPIV3Schema.
import type { JSONSchemaProps } from '@agent-sandbox/kube-types';
import { forbidden, invalid, required, type FieldIssue } from './field-issue.ts';
import { child, index, key } from './paths.ts';

type Level = 'root' | 'field' | 'item';

const EXTENSIONS = [
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
] as const;

/** anyOf: [{type: integer}, {type: string}] — the int-or-string exception (validation.go). */
function isIntOrStringAnyOf(anyOf: JSONSchemaProps[] | undefined): boolean {
  return (
    anyOf !== undefined &&
    anyOf.length === 2 &&
    anyOf[0]?.type === 'integer' &&
    anyOf[1]?.type === 'string' &&
    Object.keys(anyOf[0]).length === 1 &&
    Object.keys(anyOf[1]).length === 1
  );
}

/** Inside allOf/anyOf/oneOf/not only value validations are allowed ("to be structural"). */
function checkNested(
  s: JSONSchemaProps,
  path: string,
  out: FieldIssue[],
  allowType: boolean,
): void {
  if (s.type !== undefined && !allowType)
    out.push(forbidden(child(path, 'type'), 'must be empty to be structural'));
  if (s.additionalProperties !== undefined)
    out.push(forbidden(child(path, 'additionalProperties'), 'must be undefined to be structural'));
  if (s.default !== undefined)
    out.push(forbidden(child(path, 'default'), 'must be undefined to be structural'));
  if (s.nullable) out.push(forbidden(child(path, 'nullable'), 'must be false to be structural'));
  for (const ext of EXTENSIONS) {
    if (s[ext] !== undefined && s[ext] !== false)
      out.push(forbidden(child(path, ext), 'must be undefined to be structural'));
  }
  for (const [k, p] of Object.entries(s.properties ?? {}))
    checkNested(p, key(child(path, 'properties'), k), out, false);
  if (s.items) checkNested(s.items, child(path, 'items'), out, false);
  walkLogical(s, path, out, false);
}

function walkLogical(
  s: JSONSchemaProps,
  path: string,
  out: FieldIssue[],
  intOrString: boolean,
): void {
  const allowAnyOfType = intOrString && isIntOrStringAnyOf(s.anyOf);
  (s.anyOf ?? []).forEach((x, i) =>
    checkNested(x, index(child(path, 'anyOf'), i), out, allowAnyOfType),
  );
  (s.allOf ?? []).forEach((x, i) => {
    // allOf: [{anyOf: [{type: integer}, {type: string}]}, ...] is the second exception.
    const p = index(child(path, 'allOf'), i);
    if (intOrString && i === 0 && isIntOrStringAnyOf(x.anyOf)) {
      (x.anyOf ?? []).forEach((y, j) => checkNested(y, index(child(p, 'anyOf'), j), out, true));
      checkNested({ ...x, anyOf: undefined }, p, out, false);
    } else checkNested(x, p, out, false);
  });
  (s.oneOf ?? []).forEach((x, i) => checkNested(x, index(child(path, 'oneOf'), i), out, false));
  if (s.not) checkNested(s.not, child(path, 'not'), out, false);
}

function checkNode(s: JSONSchemaProps, level: Level, path: string, out: FieldIssue[]): void {
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const intOrString = s['x-kubernetes-int-or-string'] === true;

  if (s.type === 'array' && s.items === undefined)
    out.push(required(child(path, 'items'), 'must be specified'));
  if (embedded && s.type !== 'object') {
    if (s.type === undefined)
      out.push(
        required(child(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true'),
      );
    else
      out.push(
        invalid(
          child(path, 'type'),
          s.type,
          'must be object if x-kubernetes-embedded-resource is true',
        ),
      );
  } else if (s.type === undefined && !embedded && !intOrString) {
    if (level === 'root') out.push(required(child(path, 'type'), 'must not be empty at the root'));
    else if (!preserve)
      out.push(
        required(
          child(path, 'type'),
          level === 'item'
            ? 'must not be empty for specified array items'
            : 'must not be empty for specified object fields',
        ),
      );
  }
  if (level === 'root' && s.type !== undefined && s.type !== 'object')
    out.push(invalid(child(path, 'type'), s.type, 'must be object at the root'));
  if (level === 'root' && s.default !== undefined)
    out.push(forbidden(child(path, 'default'), 'must not be set at the root'));
  if (intOrString && preserve)
    out.push(
      invalid(
        child(path, 'x-kubernetes-preserve-unknown-fields'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  if (intOrString && embedded)
    out.push(
      invalid(
        child(path, 'x-kubernetes-embedded-resource'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  if (s['x-kubernetes-preserve-unknown-fields'] === false)
    out.push(
      invalid(
        child(path, 'x-kubernetes-preserve-unknown-fields'),
        false,
        'must be true or undefined',
      ),
    );
  if (embedded && !preserve && Object.keys(s.properties ?? {}).length === 0)
    out.push(
      required(
        child(path, 'properties'),
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  if (s.uniqueItems === true)
    out.push(
      forbidden(
        child(path, 'uniqueItems'),
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  if (s.additionalProperties === false)
    out.push(
      forbidden(child(path, 'additionalProperties'), 'additionalProperties cannot be set to false'),
    );
  if (s.additionalProperties !== undefined && s.properties !== undefined)
    out.push(
      forbidden(
        child(path, 'additionalProperties'),
        'additionalProperties and properties are mutual exclusive',
      ),
    );

  const listType = s['x-kubernetes-list-type'];
  if (listType !== undefined && s.type !== 'array')
    out.push(
      invalid(child(path, 'x-kubernetes-list-type'), listType, 'must only be used on type array'),
    );
  if (listType === 'map') {
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    if (keys.length === 0)
      out.push(
        required(
          child(path, 'x-kubernetes-list-map-keys'),
          'must not be empty if x-kubernetes-list-type is map',
        ),
      );
    if (s.items && s.items.type !== 'object')
      out.push(
        invalid(
          child(child(path, 'items'), 'type'),
          s.items.type ?? '',
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    for (const k of keys) {
      const p = s.items?.properties?.[k];
      if (p === undefined)
        out.push(
          invalid(
            child(path, 'x-kubernetes-list-map-keys'),
            keys,
            `entries must all be names of item properties`,
          ),
        );
      else if (p.type === 'object' || p.type === 'array')
        out.push(
          invalid(
            child(path, 'x-kubernetes-list-map-keys'),
            keys,
            `entries must all be names of scalar item properties`,
          ),
        );
    }
  } else if (s['x-kubernetes-list-map-keys'] !== undefined && listType !== undefined) {
    out.push(
      forbidden(
        child(path, 'x-kubernetes-list-map-keys'),
        'must be empty if x-kubernetes-list-type is not map',
      ),
    );
  }

  // Root metadata may only constrain name and generateName (validation.go).
  const metadata = s.properties?.['metadata'];
  if (level === 'root' && metadata) {
    const rest = Object.keys(metadata).filter(
      (k) => k !== 'type' && k !== 'properties' && k !== 'description',
    );
    const properties = metadata.properties;
    const names = Object.keys(properties ?? {}).filter((n) => n !== 'name' && n !== 'generateName');
    if (names.length > 0 || rest.length > 0)
      out.push(
        forbidden(
          key(child(path, 'properties'), 'metadata'),
          'must not specify anything other than name and generateName, but metadata is implicitly specified',
        ),
      );
  }

  for (const [k, p] of Object.entries(s.properties ?? {}))
    checkNode(p, 'field', key(child(path, 'properties'), k), out);
  if (typeof s.additionalProperties === 'object')
    checkNode(s.additionalProperties, 'field', child(path, 'additionalProperties'), out);
  if (s.items) checkNode(s.items, 'item', child(path, 'items'), out);
  walkLogical(s, path, out, intOrString);
}

/** Every reason the schema is not structural; empty when it is. */
export function structuralProblems(schema: JSONSchemaProps): FieldIssue[] {
  const out: FieldIssue[] = [];
  checkNode(schema, 'root', '', out);
  return out;
}

// Compares two CustomResourceDefinitions field path by field path, ignoring descriptions,
// and lists every difference in a form a person can act on.
import type { CustomResourceDefinition, JSONSchemaProps } from '@agent-sandbox/kube-types';
import { isDeepStrictEqual } from 'node:util';

/** The schema keywords compared at every node (everything but descriptions and children). */
const COMPARED_KEYWORDS = [
  'type',
  'format',
  'enum',
  'default',
  'nullable',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'multipleOf',
  'minProperties',
  'maxProperties',
  'anyOf',
  'allOf',
  'oneOf',
  'not',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
] as const;

function show(value: unknown): string {
  return value === undefined ? '(unset)' : JSON.stringify(value);
}

function compareValue(out: string[], path: string, ours: unknown, theirs: unknown): void {
  if (!isDeepStrictEqual(ours, theirs))
    out.push(`${path}: ours=${show(ours)} upstream=${show(theirs)}`);
}

export function diffSchemas(
  ours: JSONSchemaProps,
  theirs: JSONSchemaProps,
  path: string,
): string[] {
  const out: string[] = [];
  for (const key of COMPARED_KEYWORDS) compareValue(out, `${path} ${key}`, ours[key], theirs[key]);
  const sortedRequired = (s: JSONSchemaProps) => (s.required ? [...s.required].sort() : undefined);
  compareValue(out, `${path} required`, sortedRequired(ours), sortedRequired(theirs));

  const ourProps = ours.properties ?? {};
  const theirProps = theirs.properties ?? {};
  for (const name of new Set([...Object.keys(ourProps), ...Object.keys(theirProps)])) {
    const a = ourProps[name];
    const b = theirProps[name];
    if (!a) out.push(`${path}.${name}: missing in ours`);
    else if (!b) out.push(`${path}.${name}: only in ours`);
    else out.push(...diffSchemas(a, b, `${path}.${name}`));
  }
  if (ours.items || theirs.items) {
    if (!ours.items || !theirs.items)
      compareValue(out, `${path}[] items`, !!ours.items, !!theirs.items);
    else out.push(...diffSchemas(ours.items, theirs.items, `${path}[]`));
  }
  const ap = (s: JSONSchemaProps) => s.additionalProperties;
  const oa = ap(ours);
  const ta = ap(theirs);
  if (typeof oa === 'object' && typeof ta === 'object')
    out.push(...diffSchemas(oa, ta, `${path}{}`));
  else compareValue(out, `${path} additionalProperties`, oa, ta);
  return out;
}

export function diffCrds(
  ours: CustomResourceDefinition,
  theirs: CustomResourceDefinition,
): string[] {
  const name = theirs.metadata.name ?? '?';
  const out: string[] = [];
  const top = (key: string, a: unknown, b: unknown) => compareValue(out, `${name} ${key}`, a, b);
  top('group', ours.spec.group, theirs.spec.group);
  top('names', ours.spec.names, theirs.spec.names);
  top('scope', ours.spec.scope, theirs.spec.scope);
  top('conversion', ours.spec.conversion, theirs.spec.conversion);
  top('preserveUnknownFields', ours.spec.preserveUnknownFields, theirs.spec.preserveUnknownFields);
  top(
    'version order',
    ours.spec.versions.map((v) => v.name),
    theirs.spec.versions.map((v) => v.name),
  );
  for (const theirVersion of theirs.spec.versions) {
    const v = `${name} ${theirVersion.name}`;
    const ourVersion = ours.spec.versions.find((x) => x.name === theirVersion.name);
    if (!ourVersion) {
      out.push(`${v}: version missing in ours`);
      continue;
    }
    for (const key of [
      'served',
      'storage',
      'deprecated',
      'deprecationWarning',
      'subresources',
      'additionalPrinterColumns',
      'selectableFields',
    ] as const) {
      compareValue(out, `${v} ${key}`, ourVersion[key], theirVersion[key]);
    }
    const a = ourVersion.schema?.openAPIV3Schema;
    const b = theirVersion.schema?.openAPIV3Schema;
    if (!a || !b) compareValue(out, `${v} schema`, !!a, !!b);
    else out.push(...diffSchemas(a, b, `${v} `));
  }
  for (const ourVersion of ours.spec.versions) {
    if (!theirs.spec.versions.some((x) => x.name === ourVersion.name))
      out.push(`${name} ${ourVersion.name}: only in ours`);
  }
  return out;
}

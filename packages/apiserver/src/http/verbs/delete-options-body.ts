// A DELETE body checked as kube decodes it into DeleteOptions, with Go's encoding/json words:
// first its type meta (apiVersion and kind must be strings, the kind DeleteOptions if any), then
// each known field's type.
// Unknown fields are ignored, as kube's non-strict decoder does. Pure.
import { badRequest } from '../../errors.ts';
import { goNotAnObject } from '../go-json-errors.ts';

type GoKind = 'string' | 'number' | 'bool' | 'array' | 'object';

/** Each DeleteOptions field with the JSON kind it takes and the Go type kube names. */
const FIELDS: Record<string, { json: GoKind; goType: string; items?: GoKind }> = {
  gracePeriodSeconds: { json: 'number', goType: 'int64' },
  preconditions: { json: 'object', goType: 'v1.Preconditions' },
  orphanDependents: { json: 'bool', goType: 'bool' },
  propagationPolicy: { json: 'string', goType: 'v1.DeletionPropagation' },
  dryRun: { json: 'array', goType: '[]string', items: 'string' },
  ignoreStoreReadErrorWithClusterBreakingPotential: { json: 'bool', goType: 'bool' },
};

function jsonKind(value: unknown): GoKind {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string') return 'string';
  return 'object';
}

function typeError(value: unknown, field: string, goType: string): string {
  return `json: cannot unmarshal ${jsonKind(value)} into Go struct field ${field} of type ${goType}`;
}

/** The body as DeleteOptions fields, or kube's 400 for the first value of the wrong type. */
export function deleteOptionsBody(parsed: unknown): Record<string, unknown> {
  if (parsed === null) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed))
    throw badRequest(`couldn't get version/kind; json parse error: ${goNotAnObject(parsed)}`);
  const body = parsed as Record<string, unknown>;
  for (const key of ['apiVersion', 'kind']) {
    const value = body[key];
    if (value !== undefined && value !== null && typeof value !== 'string')
      throw badRequest(
        `couldn't get version/kind; json parse error: ${typeError(value, `.${key}`, 'string')}`,
      );
  }
  const kind = body['kind'];
  // kube decodes the body with its options scheme, which knows no other kind.
  if (typeof kind === 'string' && kind !== '' && kind !== 'DeleteOptions') {
    const version = typeof body['apiVersion'] === 'string' ? body['apiVersion'] : '';
    throw badRequest(
      `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(version)} in scheme "pkg/runtime/scheme.go:111"`,
    );
  }
  for (const [key, value] of Object.entries(body)) {
    const field = FIELDS[key];
    if (field === undefined || value === null) continue;
    if (jsonKind(value) !== field.json)
      throw badRequest(typeError(value, `DeleteOptions.${key}`, field.goType));
    if (field.items !== undefined)
      for (const item of value as unknown[])
        if (item !== null && jsonKind(item) !== field.items)
          throw badRequest(typeError(item, `DeleteOptions.${key}`, field.items));
  }
  return body;
}

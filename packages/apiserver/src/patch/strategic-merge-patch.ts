// Strategic merge patch (application/strategic-merge-patch+json; spec §5.3), after
// k8s.io/apimachinery/pkg/util/strategicpatch's mergeMap with the server's options
// (MergeParallelList, IgnoreUnmatchedNulls). Lists merge per `x-kubernetes-patch-strategy` and
// `x-kubernetes-patch-merge-key`; lists without a strategy are replaced.
import { GENERIC_422_MESSAGE, PatchError } from './errors.ts';
import { deepClone, deepEqual, goFormat, isObject, type JsonObject } from './json-value.ts';
import { DEDUCED, type MergeSchema } from './merge-schema.ts';
import { normalizeElementOrder, partitionByPresence, validateSetOrder } from './smp-order.ts';

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';
const SET_ELEMENT_ORDER = '$setElementOrder/';

const UNSUPPORTED_MESSAGE =
  'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';

/** An error the real server passes through untyped: 500, no reason, the raw message. */
function smpFailure(message: string): PatchError {
  return new PatchError('StrategicMergePatchFailed', message, { statusCode: 500, reason: '' });
}

/** The errors interpretStrategicMergePatchError turns into 400 BadRequest. */
function smpBadRequest(message: string): PatchError {
  return new PatchError('StrategicMergePatchFailed', message, {
    statusCode: 400,
    reason: 'BadRequest',
  });
}

/** The errors interpretStrategicMergePatchError turns into a generic 422. */
function smpUnprocessable(message: string): PatchError {
  return new PatchError('StrategicMergePatchFailed', GENERIC_422_MESSAGE, {
    statusCode: 422,
    reason: 'Invalid',
    emptyDetails: true,
    cause: new Error(message),
  });
}

/**
 * Apply a strategic merge patch to `target` (not modified) and return the result.
 * Throws PatchError `StrategicMergePatchUnsupported` (415) when the schema has no patch metadata
 * (custom resources), and `StrategicMergePatchFailed` with the status the real server uses:
 * 400 for malformed `$retainKeys`/`$setElementOrder` or a non-object patch, 422 for lists of
 * lists, 500 (no reason, raw message) for the rest (missing merge key, unknown `$patch`, …).
 */
export function applyStrategicMergePatch(
  target: unknown,
  patch: unknown,
  schema: MergeSchema,
): unknown {
  if (!schema.strategicMergePatch) {
    throw new PatchError('StrategicMergePatchUnsupported', UNSUPPORTED_MESSAGE, {
      statusCode: 415,
      reason: 'UnsupportedMediaType',
    });
  }
  if (!isObject(patch)) {
    const kind = Array.isArray(patch) ? 'array' : patch === null ? 'null' : typeof patch;
    throw smpBadRequest(
      `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`,
    );
  }
  const original = isObject(target) ? deepClone(target) : {};
  return mergeMap(original, deepClone(patch), schema);
}

function childSchema(schema: MergeSchema, key: string): MergeSchema {
  if (schema.kind === 'deduced') return DEDUCED;
  return schema.field(key) ?? schema.elements() ?? DEDUCED;
}

function goKind(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'slice';
  if (isObject(v)) return 'map';
  return typeof v === 'number' ? 'float64' : typeof v;
}

function mergeMap(
  original: JsonObject | undefined,
  patch: JsonObject,
  schema: MergeSchema,
): JsonObject {
  if (Object.hasOwn(patch, DIRECTIVE)) {
    const directive = patch[DIRECTIVE];
    if (directive === 'replace') {
      // `$patch: replace` in a map: the patch (minus the directive) is the new map.
      const rest = { ...patch };
      delete rest[DIRECTIVE];
      return mergeMap({}, rest, schema);
    }
    // `$patch: delete` in a map: the map becomes empty.
    if (directive === 'delete') return {};
    throw smpFailure(`unknown patch type: ${goFormat(directive)} in map: ${goFormat(patch)}`);
  }
  const out = original ?? {};
  applyRetainKeys(out, patch);
  mergeSetElementOrder(out, patch, schema);

  for (const [rawKey, patchV] of Object.entries(patch)) {
    let key = rawKey;
    const isDeleteList = rawKey.startsWith(DELETE_FROM_PRIMITIVE_LIST);
    if (isDeleteList) key = rawKey.slice(DELETE_FROM_PRIMITIVE_LIST.length);
    if (patchV === null) {
      delete out[key];
      continue;
    }
    const sub = childSchema(schema, key);
    if (!Object.hasOwn(out, key)) {
      if (!isDeleteList) out[key] = fresh(patchV, sub);
      continue;
    }
    const originalV = out[key];
    if (goKind(originalV) !== goKind(patchV)) {
      if (!isDeleteList) out[key] = fresh(patchV, sub);
      continue;
    }
    if (isObject(originalV) && isObject(patchV)) {
      out[key] = sub.patchStrategies.includes('replace')
        ? fresh(patchV, sub)
        : mergeMap(originalV, patchV, sub);
    } else if (Array.isArray(originalV) && Array.isArray(patchV)) {
      out[key] = mergeSliceHandler(originalV, patchV, sub, isDeleteList);
    } else {
      out[key] = patchV;
    }
  }
  return out;
}

/** A patch value with nothing to merge into: directives are interpreted, nulls dropped. */
function fresh(v: unknown, schema: MergeSchema): unknown {
  if (isObject(v)) return mergeMap({}, v, schema);
  if (Array.isArray(v)) {
    // kube stores such a list as sent; only directive items (which would decode as empty
    // structs) are dropped here.
    const items = schema.items();
    return v
      .filter((item) => !(isObject(item) && Object.hasOwn(item, DIRECTIVE)))
      .map((item) => fresh(item, items));
  }
  return v;
}

/** `$retainKeys`: keys of the original not in the list are cleared (applyRetainKeysDirective). */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const retain = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(retain)) throw smpBadRequest('invalid patch format of retainKeys');
  const keep = new Set(retain.filter((k): k is string => typeof k === 'string'));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) {
      continue;
    }
    if (!keep.has(k)) throw smpBadRequest('invalid patch format of retainKeys');
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/**
 * `$setElementOrder/<field>` (mergePatchIntoOriginal): merge the field's patch list, then order
 * the result by the directive's list, falling back to the live order for server-only items.
 */
function mergeSetElementOrder(original: JsonObject, patch: JsonObject, schema: MergeSchema): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    const field = key.slice(SET_ELEMENT_ORDER.length);
    if (!Array.isArray(order)) throw badArgType(order);
    const inOriginal = Object.hasOwn(original, field);
    const inPatch = Object.hasOwn(patch, field);
    const originalV = original[field] ?? [];
    const patchV = patch[field] ?? [];
    if (!Array.isArray(originalV)) throw badArgType(originalV);
    if (!Array.isArray(patchV)) throw badArgType(patchV);
    if (!inOriginal && !inPatch) continue;
    const sub = childSchema(schema, field);
    const mergeKey = sub.patchMergeKey ?? '';
    const problem = validateSetOrder(patchV, order, mergeKey);
    if (problem !== undefined) throw smpFailure(problem);
    let merged: unknown[];
    if (!inPatch) merged = originalV;
    else if (!inOriginal) merged = fresh(patchV, sub) as unknown[];
    else merged = mergeSliceHandler(originalV, patchV, sub, false);
    sliceElementKind(originalV, patchV);
    const { present, absent } = partitionByPresence(merged, order, mergeKey);
    original[field] = normalizeElementOrder(present, absent, order, originalV, mergeKey);
    delete patch[field];
  }
}

/** mergepatch.ErrBadArgType: a `$setElementOrder` list, or its field, is not a list. */
function badArgType(actual: unknown): PatchError {
  const type =
    actual === null || actual === undefined
      ? '%!s(<nil>)'
      : Array.isArray(actual)
        ? '[]interface {}'
        : isObject(actual)
          ? 'map[string]interface {}'
          : goKind(actual);
  return smpFailure(`expected a []interface {}, but received a ${type}`);
}

function mergeSliceHandler(
  original: unknown[],
  patch: unknown[],
  schema: MergeSchema,
  isDeleteList: boolean,
): unknown[] {
  // Lists without the merge strategy are replaced — even by a `$deleteFromPrimitiveList` list,
  // as mergeSliceHandler does.
  if (!schema.patchStrategies.includes('merge')) {
    return patch.map((item) => fresh(item, schema.items()));
  }
  return mergeSlice(original, patch, schema, isDeleteList);
}

function sliceElementKind(original: unknown[], patch: unknown[]): string {
  let kind: string | undefined;
  for (const v of [...original, ...patch]) {
    const k = goKind(v);
    if (kind === undefined) {
      if (k === 'slice') throw smpUnprocessable('lists of lists are not supported');
      kind = k;
    } else if (kind !== k) {
      throw smpFailure(`list element types are not identical: ${goFormat([original, patch])}`);
    }
  }
  if (kind === undefined) throw smpFailure('no elements in any of the given slices');
  return kind;
}

function mergeSlice(
  original: unknown[],
  patch: unknown[],
  schema: MergeSchema,
  isDeleteList: boolean,
): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementKind(original, patch);
  if (kind !== 'map') {
    if (isDeleteList) return original.filter((v) => !patch.some((p) => deepEqual(p, v)));
    const merged: unknown[] = [];
    for (const v of [...original, ...patch]) {
      if (!merged.some((m) => deepEqual(m, v))) merged.push(v);
    }
    const { present, absent } = partitionByPresence(merged, patch, '');
    return normalizeElementOrder(present, absent, patch, original, '');
  }
  const mergeKey = schema.patchMergeKey;
  if (mergeKey === undefined || mergeKey === '') {
    throw smpFailure('cannot merge lists without merge key for ');
  }
  let base = original as JsonObject[];
  let items: JsonObject[] = [];
  let replace = false;
  for (const v of patch as JsonObject[]) {
    if (!Object.hasOwn(v, DIRECTIVE)) {
      items.push(v);
      continue;
    }
    const directive = v[DIRECTIVE];
    if (directive === 'delete') {
      if (!Object.hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
      base = base.filter((o) => !deepEqual(o[mergeKey], v[mergeKey]));
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw smpFailure('merging lists cannot yet be specified in the patch');
    } else {
      throw smpFailure(`unknown patch type: ${goFormat(directive)} in map: ${goFormat(v)}`);
    }
  }
  if (replace) {
    base = items.map((i) => fresh(i, schema.items()) as JsonObject);
    items = [];
  }
  const merged = [...base];
  for (const v of items) {
    if (!Object.hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
    const at = merged.findIndex((o) => isObject(o) && deepEqual(o[mergeKey], v[mergeKey]));
    if (at >= 0) merged[at] = mergeMap(merged[at], v, schema.items());
    else merged.push(fresh(v, schema.items()) as JsonObject);
  }
  const { present, absent } = partitionByPresence(merged, items, mergeKey);
  return normalizeElementOrder(present, absent, items, base, mergeKey);
}

function noMergeKey(m: JsonObject, key: string): PatchError {
  return smpFailure(`map: ${goFormat(m)} does not contain declared merge key: ${key}`);
}

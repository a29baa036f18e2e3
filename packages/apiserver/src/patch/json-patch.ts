// JSON patch, RFC 6902 (application/json-patch+json; spec §5.2), applied with fast-json-patch.
// kube-apiserver answers any failed operation with a generic 422 and drops the operation error;
// we keep that error as `cause` for logs.
import fastJsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { GENERIC_422_MESSAGE, PatchError, badRequest } from './errors.ts';
import { isObject } from './json-value.ts';

/** kube-apiserver's `maxJSONPatchOperations`. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

/**
 * Apply RFC 6902 operations to `target` and return the result; `target` is not modified.
 * Throws PatchError: `MalformedPatch` (400) when `ops` is not an array of objects,
 * `TooManyOperations` (413) beyond 10000 operations, `JsonPatchFailed` (422, generic message)
 * when an operation fails (missing path, failed `test`, unknown `op`, bad index).
 */
export function applyJsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) {
    throw badRequest(
      `json: cannot unmarshal ${goJsonKind(ops)} into Go value of type jsonpatch.Patch`,
    );
  }
  for (const op of ops) {
    if (!isObject(op)) {
      throw badRequest(
        `json: cannot unmarshal ${goJsonKind(op)} into Go value of type jsonpatch.Operation`,
      );
    }
  }
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new PatchError(
      'TooManyOperations',
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`,
      { statusCode: 413, reason: 'RequestEntityTooLarge' },
    );
  }
  try {
    let doc: unknown = structuredClone(target);
    (structuredClone(ops) as Operation[]).forEach((op, index) => {
      // evanphx/json-patch (what kube uses) lets `test` of a missing path against null pass.
      if (op.op === 'test' && (op.value ?? null) === null && isMissing(doc, op.path)) return;
      doc = fastJsonPatch.applyOperation(
        doc,
        op,
        /* validateOperation */ true,
        /* mutateDocument */ true,
        /* banPrototypeModifications */ true,
        index,
      ).newDocument;
    });
    return doc;
  } catch (err: unknown) {
    if (err instanceof fastJsonPatch.JsonPatchError) {
      throw new PatchError('JsonPatchFailed', GENERIC_422_MESSAGE, {
        statusCode: 422,
        reason: 'Invalid',
        emptyDetails: true,
        cause: err,
      });
    }
    throw err;
  }
}

function isMissing(doc: unknown, path: string): boolean {
  try {
    return fastJsonPatch.getValueByPointer(doc, path) === undefined;
  } catch {
    return true;
  }
}

/** The JSON kind name Go's decoder prints in "cannot unmarshal <kind> into …". */
function goJsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

// PUT of an object or of its status subresource (semantics doc §3.1, §6.1, §7.2).
import { badRequest, conflict, detailsFor, statusError, type ApiError } from '../../errors.ts';
import { qualifiedResource } from '../../resources/resource.ts';
import { readObject } from '../body.ts';
import type { Call, ServerParts } from '../context.ts';
import { managerName, writeOptions } from '../options.ts';
import { jsonResponse } from '../response.ts';
import { checkNamespace, checkTypeMeta, create } from './create.ts';
import { objectKey } from '../../resource-store.ts';
import type { ServerParts as Parts } from '../context.ts';
import { loadCurrent, writeUpdate } from './write-path.ts';

function resourceVersionRequired(call: Call, name: string): ApiError {
  const message = 'Invalid value: 0: must be specified for an update';
  return statusError(
    422,
    'Invalid',
    `${qualifiedResource(call.r)} "${name}" is invalid: metadata.resourceVersion: ${message}`,
    {
      ...detailsFor(call.r, name, call.r.plural),
      causes: [{ reason: 'FieldValueInvalid', message, field: 'metadata.resourceVersion' }],
    },
  );
}

export async function update(parts: ServerParts, call: Call): Promise<Response> {
  const { r } = call;
  const name = call.req.name ?? '';
  const opts = writeOptions(call.url, 'UpdateOptions');
  const obj = await readObject(call.http, r.kind);
  checkTypeMeta(call, obj);
  checkNamespace(call, obj);
  if (obj.metadata.name !== undefined && obj.metadata.name !== name) {
    throw badRequest(
      `the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`,
    );
  }
  obj.metadata.name = name;
  const rv = obj.metadata.resourceVersion;
  if (!rv && !r.allowsUnconditionalUpdate) throw resourceVersionRequired(call, name);
  if (r.allowsCreateOnUpdate && !exists(parts, call)) {
    delete obj.metadata.resourceVersion;
    return create(parts, call, obj);
  }
  const current = loadCurrent(parts, call);
  if (obj.metadata.uid && obj.metadata.uid !== current.obj.metadata.uid) {
    throw conflict(
      r,
      name,
      `Precondition failed: UID in precondition: ${obj.metadata.uid}, UID in object meta: ${current.obj.metadata.uid ?? ''}`,
    );
  }
  const expected = rv ? Number(rv) : undefined;
  if (
    expected !== undefined &&
    (!Number.isInteger(expected) || expected !== current.stored.revision)
  ) {
    throw conflict(r, name);
  }
  const result = writeUpdate(
    parts,
    call,
    current,
    obj,
    opts,
    'update',
    expected,
    managerName(opts, call.http),
  );
  return jsonResponse(result.body, result.status, call.warnings);
}

function exists(parts: Parts, call: Call): boolean {
  return parts.store.get(objectKey(call.r, call.req.namespace, call.req.name ?? '')) !== undefined;
}

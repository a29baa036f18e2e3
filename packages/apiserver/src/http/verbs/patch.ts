// PATCH with the four patch types (semantics doc §5): JSON patch, JSON merge patch, strategic
// merge patch (built-in kinds only) and server-side apply, which may create the object.
import { parse } from 'yaml';
import { ApiError, badRequest, notFound, statusError, unsupportedMediaType } from '../../errors.ts';
import { prepareCreate, formatTime, type KubeObject } from '../../objects.ts';
import {
  apply,
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
} from '../../patch/index.ts';
import { encode, objectKey } from '../../resource-store.ts';
import { groupVersion } from '../../resources/resource.ts';
import { allocateService } from '../../resources/service-allocation.ts';
import { isService } from '../../resources/service-strategy.ts';
import { admitCreateMutations, admitObject } from '../admission.ts';
import { checkNesting, readText } from '../body.ts';
import type { Call, ServerParts } from '../context.ts';
import { ignoredFieldsFor, mergeSchemaFor } from '../managed-fields.ts';
import { invalidOptions, managerName, writeOptions } from '../options.ts';
import { jsonResponse } from '../response.ts';
import { requireNamespace } from './namespaces.ts';
import { loadCurrent, writeUpdate } from './write-path.ts';

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC_PATCH = 'application/strategic-merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';
const APPLY_PATCH_CBOR_FREE = 'application/apply-patch+json';

function decodePatch(text: string, type: string): unknown {
  try {
    return type === APPLY_PATCH ? parse(text) : JSON.parse(text);
  } catch (err: unknown) {
    throw badRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export async function patch(parts: ServerParts, call: Call): Promise<Response> {
  const { r } = call;
  const name = call.req.name ?? '';
  const type =
    (call.http.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const isApply = type === APPLY_PATCH || type === APPLY_PATCH_CBOR_FREE;
  if (![JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH].includes(type) && !isApply) {
    // Built-in kinds answer an unknown patch type with Go's bare 415 text; custom resources
    // list the patch types they accept (§7).
    if (r.crd) throw unsupportedMediaType([JSON_PATCH, MERGE_PATCH, APPLY_PATCH]);
    throw statusError(415, 'UnsupportedMediaType', '415: Unsupported Media Type');
  }
  const opts = writeOptions(call.url, 'PatchOptions');
  const force = call.url.searchParams.get('force');
  if (force !== null && !isApply)
    throw invalidOptions(
      'PatchOptions',
      'force',
      'Forbidden: may not be specified for non-apply patch',
      'FieldValueForbidden',
    );
  if (isApply && !opts.fieldManager)
    throw invalidOptions(
      'PatchOptions',
      'fieldManager',
      'Required value: is required for apply patch',
      'FieldValueRequired',
    );
  const body = decodePatch(await readText(call.http), type);
  checkNesting(body, 'the patch');
  const manager = managerName(opts, call.http);
  const schema = mergeSchemaFor(r, call.version);

  let current: ReturnType<typeof loadCurrent> | undefined;
  try {
    current = loadCurrent(parts, call);
  } catch (err: unknown) {
    if (!(isApply && err instanceof ApiError && err.status.code === 404)) throw err;
  }

  if (!current)
    return applyCreate(parts, call, body, manager, force !== null && force !== 'false', opts);

  let next: KubeObject;
  if (isApply) {
    next = apply(current.obj, body as KubeObject, {
      manager,
      force: force !== null && force !== 'false',
      apiVersion: groupVersion(r.group, call.version),
      schema,
      now: formatTime(parts.ctx.now()),
      ...(call.req.subresource === 'status' ? { subresource: 'status' } : {}),
      ...ignoredOption(call),
      kind: r.kind,
    }).object as KubeObject;
  } else {
    const patched =
      type === JSON_PATCH
        ? applyJsonPatch(current.obj, body)
        : type === MERGE_PATCH
          ? applyMergePatch(current.obj, body)
          : applyStrategicMergePatch(current.obj, body, schema);
    next = patched as KubeObject;
  }
  if (typeof next.metadata !== 'object' || next.metadata === null) next.metadata = {};
  next.metadata.name = name;
  const rv = next.metadata.resourceVersion;
  const expected = rv && rv !== current.obj.metadata.resourceVersion ? Number(rv) : undefined;
  const result = writeUpdate(
    parts,
    call,
    current,
    next,
    opts,
    'patch',
    expected,
    isApply ? undefined : manager,
  );
  return jsonResponse(result.body, result.status, call.warnings);
}

/** Server-side apply of an object that does not exist yet creates it (201). */
function applyCreate(
  parts: ServerParts,
  call: Call,
  body: unknown,
  manager: string,
  force: boolean,
  opts: ReturnType<typeof writeOptions>,
): Response {
  const { r } = call;
  const name = call.req.name ?? '';
  if (call.req.subresource !== undefined) throw notFound(r, name);
  if (r.namespaced) requireNamespace(parts, call.req.namespace ?? '', r, name);
  const obj = apply(undefined, body as KubeObject, {
    manager,
    force,
    apiVersion: groupVersion(r.group, call.version),
    schema: mergeSchemaFor(r, call.version),
    now: formatTime(parts.ctx.now()),
    kind: r.kind,
  }).object as KubeObject;
  obj.apiVersion = groupVersion(r.group, call.version);
  obj.kind = r.kind;
  obj.metadata.name = name;
  const managedFields = obj.metadata.managedFields;
  prepareCreate(r, obj, call.req.namespace, parts.ctx);
  if (managedFields) obj.metadata.managedFields = managedFields;
  const admitted = admitObject(call, obj, undefined, opts, 'patch');
  admitCreateMutations(parts, call, admitted);
  if (isService(r)) allocateService(r, admitted, parts.store, parts.ctx.random);
  if (opts.dryRun) return jsonResponse(admitted, 201, call.warnings);
  const written = parts.store.create(
    objectKey(r, call.req.namespace, name),
    encode(parts.codec.toVersion(r, admitted, r.storageVersion)),
  );
  return jsonResponse(parts.codec.decode(r, written, call.version), 201, call.warnings);
}

function ignoredOption(call: Call): {
  ignoredFields?: NonNullable<ReturnType<typeof ignoredFieldsFor>>;
} {
  const ignored = ignoredFieldsFor(call);
  return ignored ? { ignoredFields: ignored } : {};
}

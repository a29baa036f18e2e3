// The request side of namespace deletion (semantics doc §9.2), as kube-apiserver's namespace
// storage does it: the first DELETE only marks the namespace (deletionTimestamp, phase
// Terminating) and the namespace controller removes its content; `PUT .../namespaces/<n>/finalize`
// edits spec.finalizers, and the write that leaves no finalizers at all deletes the namespace.
// Also the 403 for creates in a terminating namespace.
import { ApiError, badRequest, conflict, forbidden, invalid, notFound } from '../errors.ts';
import { readObject } from '../http/body.ts';
import type { Call, ServerParts } from '../http/context.ts';
import { writeOptions } from '../http/options.ts';
import { jsonResponse } from '../http/response.ts';
import { checkTypeMeta } from '../http/verbs/create.ts';
import type { ResourceRequest } from '../http/request-info.ts';
import { formatTime, type KubeObject } from '../objects.ts';
import {
  FOREGROUND_FINALIZER,
  ORPHAN_FINALIZER,
  type DeleteOptions,
} from '../operations/delete-object.ts';
import { encode, objectKey } from '../resource-store.ts';
import type { ResourceInfo } from '../resources/resource.ts';
import { isStorageError } from '../storage/errors.ts';
import type { StoredObject } from '../storage/store.ts';
import {
  isNamespaces,
  namespaceFinalizers,
  readStored,
  shouldDeleteDuringUpdate,
} from './stored-objects.ts';

/** The finalizer in `spec.finalizers` that the namespace controller owns. */
export const KUBERNETES_FINALIZER = 'kubernetes';
/** Namespaces the NamespaceLifecycle admission plugin never lets anyone delete. */
export const IMMORTAL_NAMESPACES: readonly string[] = ['default', 'kube-system', 'kube-public'];
// Literals, not the imported constants: delete-object.ts imports this module, and a module-level
// use of its exports here would run before they are initialised.
const STANDARD_FINALIZERS = new Set([KUBERNETES_FINALIZER, 'orphan', 'foregroundDeletion']);
const MAX_WRITE_ATTEMPTS = 10;

function forbiddenNamespaceDeletion(name: string): ApiError {
  const e = forbidden(`namespaces "${name}" is forbidden: this namespace may not be deleted`);
  return new ApiError({ ...e.status, details: { name, kind: 'namespaces' } });
}

/** kube's shouldHaveOrphanFinalizer / shouldHaveDeleteDependentsFinalizer for namespaces. */
function wantsFinalizer(opts: DeleteOptions, finalizer: string, has: boolean): boolean {
  if (opts.orphanDependents !== undefined)
    return finalizer === ORPHAN_FINALIZER ? opts.orphanDependents : !opts.orphanDependents;
  if (opts.propagationPolicy !== undefined)
    return opts.propagationPolicy === (finalizer === ORPHAN_FINALIZER ? 'Orphan' : 'Foreground');
  return has;
}

function checkPreconditions(r: ResourceInfo, obj: KubeObject, opts: DeleteOptions): void {
  const name = obj.metadata.name ?? '';
  const uid = opts.preconditions?.uid;
  if (uid && uid !== obj.metadata.uid)
    throw conflict(
      r,
      name,
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${obj.metadata.uid ?? ''}`,
    );
  const rv = opts.preconditions?.resourceVersion;
  if (rv && rv !== obj.metadata.resourceVersion)
    throw conflict(
      r,
      name,
      `Precondition failed: ResourceVersion in precondition: ${rv}, ResourceVersion in object meta: ${obj.metadata.resourceVersion ?? ''}`,
    );
}

/**
 * What DELETE does to a namespace. Returns the response for a namespace that is not yet
 * terminating (marked, 200 with the namespace); throws 409 while `spec.finalizers` remain;
 * returns `undefined` for a terminating namespace with no `spec.finalizers`, which the generic
 * delete path then removes (subject to `metadata.finalizers`). `deleteOne` calls it first for the
 * namespaces resource.
 */
export function startNamespaceDeletion(
  parts: ServerParts,
  r: ResourceInfo,
  version: string,
  name: string,
  opts: DeleteOptions,
): { body: unknown; status: number } | undefined {
  if (IMMORTAL_NAMESPACES.includes(name)) throw forbiddenNamespaceDeletion(name);
  const key = objectKey(r, undefined, name);
  for (let attempt = 1; ; attempt++) {
    const stored = parts.store.get(key);
    if (!stored) throw notFound(r, name);
    const obj = parts.codec.decode(r, stored, version);
    checkPreconditions(r, obj, opts);
    if (obj.metadata.deletionTimestamp !== undefined) {
      if (namespaceFinalizers(obj).length === 0) return undefined;
      throw conflict(
        r,
        name,
        'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.',
      );
    }
    const next = markTerminating(parts, obj, opts);
    if (opts.dryRun) return { body: next, status: 200 };
    try {
      const written = parts.store.update(key, encode(next), stored.revision);
      const body = written === 'unchanged' ? obj : parts.codec.decode(r, written, version);
      return { body, status: 200 };
    } catch (err: unknown) {
      if (isStorageError(err, 'Conflict') && attempt < MAX_WRITE_ATTEMPTS) continue;
      if (isStorageError(err, 'NotFound')) throw notFound(r, name);
      throw err;
    }
  }
}

function markTerminating(parts: ServerParts, obj: KubeObject, opts: DeleteOptions): KubeObject {
  const next = structuredClone(obj);
  next.metadata.deletionTimestamp = formatTime(parts.ctx.now());
  const status = (next['status'] ?? {}) as Record<string, unknown>;
  next['status'] = { ...status, phase: 'Terminating' };
  let finalizers = [...(next.metadata.finalizers ?? [])];
  for (const f of [ORPHAN_FINALIZER, FOREGROUND_FINALIZER]) {
    const want = wantsFinalizer(opts, f, finalizers.includes(f));
    if (want && !finalizers.includes(f)) finalizers.push(f);
    if (!want) finalizers = finalizers.filter((x) => x !== f);
  }
  if (finalizers.length > 0) next.metadata.finalizers = finalizers;
  else delete next.metadata.finalizers;
  return next;
}

/** Whether a request is `PUT /api/v1/namespaces/<n>/finalize` (route it to finalizeNamespace). */
export function isNamespaceFinalize(req: ResourceRequest, r: ResourceInfo): boolean {
  return isNamespaces(r) && req.subresource === 'finalize' && req.verb === 'update';
}

function validateFinalizers(r: ResourceInfo, name: string, finalizers: readonly string[]): void {
  const causes = finalizers.flatMap((f, i) =>
    f.includes('/') || STANDARD_FINALIZERS.has(f)
      ? []
      : [
          {
            field: `spec.finalizers[${i}]`,
            type: 'FieldValueInvalid',
            message: `Invalid value: "${f}": name is neither a standard finalizer name nor is it fully qualified`,
          },
        ],
  );
  if (causes.length > 0) throw invalid(r, name, causes);
}

/**
 * `PUT /api/v1/namespaces/<n>/finalize`: replaces `spec.finalizers` and nothing else (kube's
 * FinalizeREST). The write that leaves a terminating namespace without any finalizer deletes it;
 * the response is then the namespace's last state and watchers see DELETED.
 */
export async function finalizeNamespace(parts: ServerParts, call: Call): Promise<Response> {
  const { r } = call;
  const name = call.req.name ?? '';
  const opts = writeOptions(call.url, 'UpdateOptions');
  const body = await readObject(call.http, r.kind);
  checkTypeMeta(call, body);
  if (body.metadata.name !== undefined && body.metadata.name !== name) {
    throw badRequest(
      `the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`,
    );
  }
  const finalizers = namespaceFinalizers(body);
  validateFinalizers(r, name, finalizers);
  const key = objectKey(r, undefined, name);
  const expectedRv = body.metadata.resourceVersion;
  for (let attempt = 1; ; attempt++) {
    const current = readStored(parts.store, key);
    if (!current) throw notFound(r, name);
    if (expectedRv && expectedRv !== String(current.stored.revision)) throw conflict(r, name);
    const uid = body.metadata.uid;
    if (uid && uid !== current.obj.metadata.uid)
      throw conflict(
        r,
        name,
        `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.obj.metadata.uid ?? ''}`,
      );
    const next = structuredClone(current.obj);
    const spec = { ...((next['spec'] ?? {}) as Record<string, unknown>) };
    if (finalizers.length > 0) spec['finalizers'] = [...new Set(finalizers)];
    else delete spec['finalizers'];
    next['spec'] = spec;
    const asStored = (s: StoredObject): StoredObject => ({ ...s, value: encode(next) });
    if (opts.dryRun)
      return jsonResponse(
        parts.codec.decode(r, asStored(current.stored), call.version),
        200,
        call.warnings,
      );
    try {
      if (shouldDeleteDuringUpdate(r, next)) {
        const deleted = parts.store.delete(key, current.stored.revision);
        return jsonResponse(
          parts.codec.decode(r, asStored(deleted), call.version),
          200,
          call.warnings,
        );
      }
      const written = parts.store.update(key, encode(next), current.stored.revision);
      const out = written === 'unchanged' ? current.stored : written;
      return jsonResponse(parts.codec.decode(r, out, call.version), 200, call.warnings);
    } catch (err: unknown) {
      if (isStorageError(err, 'Conflict') && !expectedRv && attempt < MAX_WRITE_ATTEMPTS) continue;
      if (isStorageError(err, 'Conflict')) throw conflict(r, name);
      if (isStorageError(err, 'NotFound')) throw notFound(r, name);
      throw err;
    }
  }
}

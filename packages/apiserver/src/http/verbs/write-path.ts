// The shared tail of update and patch: admit the new object against the stored one, then write
// it with optimistic concurrency, deleting it instead when an update removes the last finalizer
// of an object whose deletion has started (semantics doc §2).
import { shouldDeleteDuringUpdate } from '../../controllers/stored-objects.ts';
import { conflict, invalid, notFound } from '../../errors.ts';
import { prepareUpdate, type KubeObject, type UpdateTarget } from '../../objects.ts';
import { encode, objectKey } from '../../resource-store.ts';
import { StorageError } from '../../storage/errors.ts';
import type { StoredObject } from '../../storage/store.ts';
import { allocateServiceUpdate } from '../../resources/service-allocation.ts';
import { isService } from '../../resources/service-strategy.ts';
import { admitObject } from '../admission.ts';
import { trackUpdate } from '../managed-fields.ts';
import type { Call, ServerParts } from '../context.ts';
import type { WriteOptions } from '../options.ts';

export function target(call: Call): UpdateTarget {
  return call.req.subresource === 'status' ? 'status' : 'main';
}

/** The stored object and its decoded form in the client's version. */
export function loadCurrent(
  parts: ServerParts,
  call: Call,
): { stored: StoredObject; obj: KubeObject } {
  const name = call.req.name ?? '';
  const stored = parts.store.get(objectKey(call.r, call.req.namespace, name));
  if (!stored) throw notFound(call.r, name);
  return { stored, obj: parts.codec.decode(call.r, stored, call.version) };
}

function newFinalizers(old: KubeObject, next: KubeObject): string[] {
  const before = new Set(old.metadata.finalizers ?? []);
  return (next.metadata.finalizers ?? []).filter((f) => !before.has(f));
}

/**
 * Writes `next` over `current` (both in the client's version). `expectedRevision` is the
 * client's precondition, if any. Returns the object to answer with and its status code.
 */
export function writeUpdate(
  parts: ServerParts,
  call: Call,
  current: { stored: StoredObject; obj: KubeObject },
  next: KubeObject,
  opts: WriteOptions,
  verb: 'update' | 'patch',
  expectedRevision?: number,
  /** The Update manager to record in managedFields; unset when the caller (apply) already did. */
  manager?: string,
): { body: KubeObject; status: number } {
  const { r } = call;
  const name = call.req.name ?? '';
  const prepared = prepareUpdate(r, current.obj, next, target(call));
  let admitted = admitObject(call, prepared, current.obj, opts, verb);
  if (manager !== undefined) admitted = trackUpdate(parts, call, current.obj, admitted, manager);
  // Like kube's registry, after managedFields: allocated values belong to no manager.
  if (isService(r) && target(call) === 'main')
    allocateServiceUpdate(r, current.obj, admitted, parts.store, parts.ctx.random);
  if (current.obj.metadata.deletionTimestamp) {
    const added = newFinalizers(current.obj, admitted);
    if (added.length > 0) {
      const cause = {
        field: 'metadata.finalizers',
        type: 'FieldValueForbidden',
        message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => `"${f}"`).join(', ')}}`,
      };
      // kube-apiserver validates ObjectMeta on update twice and lists this cause twice (§7).
      throw invalid(r, name, [cause, cause]);
    }
  }
  const key = objectKey(r, call.req.namespace, name);
  const finished = shouldDeleteDuringUpdate(r, admitted);
  if (opts.dryRun) return { body: admitted, status: 200 };
  const expected = expectedRevision ?? current.stored.revision;
  try {
    if (finished) {
      const deleted = parts.store.delete(key, expected);
      return {
        body: parts.codec.decode(
          r,
          { ...deleted, value: encode(parts.codec.toVersion(r, admitted, r.storageVersion)) },
          call.version,
        ),
        status: 200,
      };
    }
    const written = parts.store.update(
      key,
      encode(parts.codec.toVersion(r, admitted, r.storageVersion)),
      expected,
    );
    if (written === 'unchanged') return { body: current.obj, status: 200 };
    return { body: parts.codec.decode(r, written, call.version), status: 200 };
  } catch (err: unknown) {
    if (err instanceof StorageError && err.code === 'Conflict') throw conflict(r, name);
    if (err instanceof StorageError && err.code === 'NotFound') throw notFound(r, name);
    throw err;
  }
}

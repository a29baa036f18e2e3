// Deleting one object (semantics doc §3.1, §9): preconditions, finalizers, propagation
// policies (the garbage collector acts on the finalizers this sets), dryRun. Shared by the
// DELETE verbs and the in-server garbage collector and namespace controller.
import { isNamespaces } from '../controllers/stored-objects.ts';
import { startNamespaceDeletion } from '../controllers/namespace-deletion.ts';
import { ApiError, conflict, notFound } from '../errors.ts';
import type { ServerParts } from '../http/context.ts';
import { successStatus } from '../http/response.ts';
import { formatTime, type KubeObject } from '../objects.ts';
import { encode, objectKey } from '../resource-store.ts';
import { isPod } from '../resources/pods-strategy.ts';
import type { ResourceInfo } from '../resources/resource.ts';
import { StorageError } from '../storage/errors.ts';
import type { StoredObject } from '../storage/store.ts';
import { gracefulStep, podDeletionGrace, type GraceStep } from './graceful-deletion.ts';

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy;
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Seconds before the object should be deleted (Pods only); undefined: the object's default. */
  gracePeriodSeconds?: number;
  dryRun: boolean;
}

export const FOREGROUND_FINALIZER = 'foregroundDeletion';
export const ORPHAN_FINALIZER = 'orphan';

/** The finalizer a propagation policy adds; Background (and the CR default) adds none. */
function policyFinalizer(opts: DeleteOptions): string | undefined {
  if (opts.propagationPolicy === 'Foreground') return FOREGROUND_FINALIZER;
  if (opts.propagationPolicy === 'Orphan' || opts.orphanDependents === true)
    return ORPHAN_FINALIZER;
  return undefined;
}

/**
 * Deletes, or starts deleting, one object as a client of `version` sees it; returns what the
 * response carries. Retries its own optimistic writes; throws ApiError for NotFound and failed
 * preconditions.
 */
export function deleteOne(
  parts: ServerParts,
  r: ResourceInfo,
  version: string,
  namespace: string | undefined,
  name: string,
  opts: DeleteOptions,
): { body: unknown; status: number } {
  // A namespace's first DELETE only marks it Terminating; its controller does the rest (§9.2).
  const marked = isNamespaces(r)
    ? startNamespaceDeletion(parts, r, version, name, opts)
    : undefined;
  if (marked) return marked;
  const key = objectKey(r, namespace, name);
  const stored = parts.store.get(key);
  if (!stored) throw notFound(r, name);
  const obj = parts.codec.decode(r, stored, version);
  const qk = `${r.group ? `${r.kind}.${r.group}` : r.kind}`;
  if (opts.preconditions?.uid && opts.preconditions.uid !== obj.metadata.uid) {
    throw new ApiError({
      ...conflict(r, name).status,
      message: `Operation cannot be fulfilled on ${qk} "${name}": the UID in the precondition (${opts.preconditions.uid}) does not match the UID in record (${obj.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
    });
  }
  if (
    opts.preconditions?.resourceVersion &&
    opts.preconditions.resourceVersion !== obj.metadata.resourceVersion
  ) {
    throw new ApiError({
      ...conflict(r, name).status,
      message: `Operation cannot be fulfilled on ${qk} "${name}": the ResourceVersion in the precondition (${opts.preconditions.resourceVersion}) does not match the ResourceVersion in record (${obj.metadata.resourceVersion ?? ''}). The object might have been modified`,
    });
  }
  const step: GraceStep = isPod(r)
    ? gracefulStep(obj, opts.gracePeriodSeconds, (g) => podDeletionGrace(obj, g), parts.ctx.now())
    : { kind: 'ordinary' };
  // Finalizers cannot be changed through DeleteOptions once a graceful deletion is pending.
  if (step.kind === 'pending') return { body: obj, status: 200 };
  const finalizers = [...(obj.metadata.finalizers ?? [])];
  const extra = policyFinalizer(opts);
  if (extra && !finalizers.includes(extra)) finalizers.push(extra);
  if (step.kind === 'mark') {
    const retry = () => deleteOne(parts, r, version, namespace, name, opts);
    return markGraceful(parts, { r, version, key, stored, obj, opts, retry }, step, finalizers);
  }

  if (finalizers.length === 0) {
    if (opts.dryRun)
      return { body: r.deleteReturnsObject ? obj : successStatus(details(r, obj)), status: 200 };
    try {
      const deleted = parts.store.delete(key, stored.revision);
      const last = parts.codec.decode(r, deleted, version);
      return { body: r.deleteReturnsObject ? last : successStatus(details(r, last)), status: 200 };
    } catch (err: unknown) {
      if (err instanceof StorageError && (err.code === 'Conflict' || err.code === 'NotFound'))
        return deleteOne(parts, r, version, namespace, name, opts);
      throw err;
    }
  }
  // Deletion with finalizers: mark it and let their owners finish (§2, §9.1).
  if (
    obj.metadata.deletionTimestamp &&
    finalizers.length === (obj.metadata.finalizers ?? []).length
  ) {
    return { body: obj, status: 200 };
  }
  const next: KubeObject = structuredClone(obj);
  next.metadata.finalizers = finalizers;
  if (!next.metadata.deletionTimestamp) {
    next.metadata.deletionTimestamp = formatTime(parts.ctx.now());
    next.metadata.deletionGracePeriodSeconds = 0;
    if (r.tracksGeneration && next.metadata.generation !== undefined) next.metadata.generation += 1;
  }
  if (opts.dryRun) return { body: next, status: 200 };
  try {
    const written = parts.store.update(
      key,
      encode(parts.codec.toVersion(r, next, r.storageVersion)),
      stored.revision,
    );
    const body = written === 'unchanged' ? obj : parts.codec.decode(r, written, version);
    return { body, status: 200 };
  } catch (err: unknown) {
    if (err instanceof StorageError && err.code === 'Conflict')
      return deleteOne(parts, r, version, namespace, name, opts);
    throw err;
  }
}

/**
 * Writes a graceful deletion's mark (kube updates before it removes, so watchers see MODIFIED
 * with the grace); with grace 0 and no finalizers the marked object is then removed at once.
 */
function markGraceful(
  parts: ServerParts,
  at: {
    r: ResourceInfo;
    version: string;
    key: string;
    stored: StoredObject;
    obj: KubeObject;
    opts: DeleteOptions;
    retry: () => { body: unknown; status: number };
  },
  step: Extract<GraceStep, { kind: 'mark' }>,
  finalizers: string[],
): { body: unknown; status: number } {
  const { r, version, key, stored, opts } = at;
  const next: KubeObject = structuredClone(at.obj);
  next.metadata.deletionTimestamp = step.deletionTimestamp;
  next.metadata.deletionGracePeriodSeconds = step.grace;
  if (finalizers.length > 0) next.metadata.finalizers = finalizers;
  if (step.firstMark && r.tracksGeneration && (next.metadata.generation ?? 0) > 0)
    next.metadata.generation = (next.metadata.generation ?? 0) + 1;
  const removeNow = step.grace === 0 && finalizers.length === 0;
  if (opts.dryRun) return { body: next, status: 200 };
  try {
    const written = parts.store.update(
      key,
      encode(parts.codec.toVersion(r, next, r.storageVersion)),
      stored.revision,
    );
    if (written === 'unchanged') return { body: next, status: 200 };
    if (!removeNow) return { body: parts.codec.decode(r, written, version), status: 200 };
    const deleted = parts.store.delete(key, written.revision);
    return { body: parts.codec.decode(r, deleted, version), status: 200 };
  } catch (err: unknown) {
    // Another writer came between the reads and the writes: decide again on what is stored now.
    if (err instanceof StorageError && (err.code === 'Conflict' || err.code === 'NotFound'))
      return at.retry();
    throw err;
  }
}

function details(r: ResourceInfo, obj: KubeObject): Record<string, unknown> {
  const d: Record<string, unknown> = { name: obj.metadata.name };
  if (r.group) d['group'] = r.group;
  d['kind'] = r.plural;
  d['uid'] = obj.metadata.uid;
  return d;
}

// Server-side apply (application/apply-patch+yaml; spec §5.4), after kube's fieldmanager and
// structured-merge-diff's Updater.Apply: merge the applied configuration into the live object,
// prune what this manager applied before and nobody owns now, detect conflicts with other
// managers, and record the applied field set as the manager's Apply entry.
import type { ManagedFieldsEntry } from '@agent-sandbox/kube-types';
import { PatchError } from './errors.ts';
import type { FieldSet } from './field-set.ts';
import { deepEqual, goJson, isObject, type JsonObject } from './json-value.ts';
import {
  BEFORE_FIRST_APPLY_MANAGER,
  STRIPPED_FIELDS,
  decodeManagedFields,
  encodeManagedFields,
  managerIdentifier,
  managerName,
  sameEntriesIgnoringTime,
  type ManagerMap,
} from './managed-fields.ts';
import type { MergeSchema } from './merge-schema.ts';
import {
  ApplyConflictError,
  transferOwnership,
  withManagedFields,
  withoutManagedFields,
} from './ownership.ts';
import { mergeValues, pruneFields } from './typed-merge.ts';
import { compare, toFieldSet, zeroObject } from './typed.ts';

export interface ApplyOptions {
  /** The `fieldManager` query parameter (required for apply; the HTTP layer checks). */
  manager: string;
  /** The `force` query parameter: take ownership of conflicting fields instead of failing. */
  force: boolean;
  /** The request's `<group>/<version>` (`v1` for core). */
  apiVersion: string;
  schema: MergeSchema;
  /** RFC 3339 timestamp, whole seconds (metav1.Time). */
  now: string;
  /** `status` when applying through the status subresource. */
  subresource?: string;
  /** Fields this endpoint resets and nobody owns through it (strategy reset fields). */
  ignoredFields?: FieldSet;
  /** The resource's kind; when given, a body of another kind is rejected (versionCheckManager). */
  kind?: string;
}

export interface ApplyResult {
  /** The merged object with `metadata.managedFields` set. */
  object: JsonObject;
  managedFields: ManagedFieldsEntry[];
}

/** `<namespace>/<name>; <group>/<version>, Kind=<kind>` as kube's objectGVKNN prints it. */
function describeObject(obj: JsonObject): string {
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const gv = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  return `${String(meta.namespace ?? '')}/${String(meta.name ?? '')}; ${gv}, Kind=${kind}`;
}

/**
 * Apply `applied` for `opts.manager` to `live` (undefined when the apply creates the object).
 *
 * Throws PatchError: `InvalidApply` 400 when the body's apiVersion is not `opts.apiVersion`, its
 * kind is not `opts.kind` (when given), or it carries `metadata.managedFields`;
 * `InvalidApply` 500 (no reason, like the real server) when the body does not fit the schema
 * (undeclared field, list-map item without its keys, duplicate keys); ApplyConflictError (409)
 * when another manager owns a field the apply would change and `force` is false.
 *
 * A re-apply that changes nothing returns the live managedFields untouched (timestamps included),
 * so storage can treat the write as a no-op.
 */
export function apply(
  live: JsonObject | undefined,
  applied: JsonObject,
  opts: ApplyOptions,
): ApplyResult {
  const patchVersion = typeof applied.apiVersion === 'string' ? applied.apiVersion : '';
  if (patchVersion !== opts.apiVersion) {
    throw new PatchError(
      'InvalidApply',
      `Incorrect version specified in apply patch. Specified patch version: ${patchVersion}, expected: ${opts.apiVersion}`,
      { statusCode: 400, reason: 'BadRequest' },
    );
  }
  const appliedKind = typeof applied.kind === 'string' ? applied.kind : '';
  if (opts.kind !== undefined && appliedKind !== opts.kind) {
    const gv = patchVersion.includes('/') ? patchVersion : `/${patchVersion}`;
    throw new PatchError('InvalidApply', `invalid object type: ${gv}, Kind=${appliedKind}`, {
      statusCode: 400,
      reason: 'BadRequest',
    });
  }
  const appliedMeta = applied.metadata;
  if (isObject(appliedMeta) && appliedMeta.managedFields != null) {
    throw new PatchError('InvalidApply', 'metadata.managedFields must be nil', {
      statusCode: 400,
      reason: 'BadRequest',
    });
  }
  const { set: configFields, errors } = toFieldSet(applied, opts.schema, { strict: true });
  if (errors.length > 0) {
    const detail =
      errors.length === 1 ? errors[0] : ['errors:', ...errors.map((e) => '  ' + e)].join('\n');
    throw new PatchError(
      'InvalidApply',
      `failed to create typed patch object (${describeObject(applied)}): ${detail}`,
      { statusCode: 500, reason: '' },
    );
  }

  let result: { merged: JsonObject; managers: ManagerMap };
  try {
    result = mergeAndOwn(live, applied, configFields, opts, opts.force);
  } catch (err: unknown) {
    // lastAppliedManager: kubectl's first server-side apply over a client-side-applied object
    // may take the fields its last-applied-configuration still describes, without --force.
    if (!(err instanceof ApplyConflictError) || opts.manager !== 'kubectl') throw err;
    const allowed = allowedByLastApplied(live, opts);
    if (allowed === undefined) throw err;
    const remaining = err.conflicts.filter((c) => !allowed.has(c.path));
    if (remaining.length > 0) throw new ApplyConflictError(remaining);
    result = mergeAndOwn(live, applied, configFields, opts, true);
  }
  const { merged, managers } = result;
  syncLastApplied(merged, applied, opts.manager);
  // capManagersManager passes applies through: only updates collapse into ancient-changes.
  let managedFields = encodeManagedFields(managers);

  // IgnoreManagedFieldsTimestampsTransformer: if only timestamps moved, keep the stored entries.
  const liveEntries = isObject(live?.metadata) ? live.metadata.managedFields : undefined;
  if (
    live !== undefined &&
    deepEqual(withoutManagedFields(live), merged) &&
    sameEntriesIgnoringTime(managedFields, liveEntries)
  ) {
    managedFields = liveEntries as ManagedFieldsEntry[];
  }
  return { object: withManagedFields(merged, managedFields), managedFields };
}

/** Updater.Apply with the field manager's wrappers around it (before-first-apply, strip meta). */
function mergeAndOwn(
  live: JsonObject | undefined,
  applied: JsonObject,
  configFields: FieldSet,
  opts: ApplyOptions,
  force: boolean,
): { merged: JsonObject; managers: ManagerMap } {
  const liveObj = live === undefined ? {} : withoutManagedFields(live);
  const liveEntries = isObject(live?.metadata) ? live.metadata.managedFields : undefined;
  // kube fails the apply when the stored managedFields do not decode; we start afresh instead.
  const managers: ManagerMap = decodeManagedFields(liveEntries) ?? new Map();

  // skipNonAppliedManager: an existing object nobody manages is first owned, as an Update, by
  // `before-first-apply`, so a partial apply cannot silently delete its fields.
  if (live !== undefined && managers.size === 0) {
    const c = compare(zeroObject(opts.schema), liveObj, opts.schema);
    const owned = c.added.union(c.modified).difference(STRIPPED_FIELDS);
    if (!owned.isEmpty()) {
      const record = {
        manager: BEFORE_FIRST_APPLY_MANAGER,
        operation: 'Update' as const,
        apiVersion: opts.apiVersion,
        ...(opts.subresource === undefined ? {} : { subresource: opts.subresource }),
      };
      managers.set(managerIdentifier(record), { ...record, time: opts.now, set: owned });
    }
  }

  const applier = {
    manager: managerName(opts.manager),
    operation: 'Apply' as const,
    apiVersion: opts.apiVersion,
    ...(opts.subresource === undefined ? {} : { subresource: opts.subresource }),
  };
  const self = managerIdentifier(applier);
  const previous = managers.get(self);
  let fields = configFields;
  if (opts.ignoredFields !== undefined) fields = fields.recursiveDifference(opts.ignoredFields);
  managers.set(self, { ...applier, time: opts.now, set: fields });

  let merged = mergeValues(liveObj, applied, opts.schema) as JsonObject;
  if (previous !== undefined && !previous.set.isEmpty()) {
    let owned = fields;
    for (const r of managers.values()) owned = owned.union(r.set);
    const pruned = pruneFields(
      merged,
      previous.set.ensureNamedFieldsAreMembers(opts.schema),
      owned.ensureNamedFieldsAreMembers(opts.schema),
      opts.schema,
    );
    merged = isObject(pruned) ? pruned : {};
  }

  transferOwnership(liveObj, merged, opts.schema, managers, self, force, opts.ignoredFields);

  const mine = managers.get(self);
  if (mine !== undefined) {
    mine.set = mine.set.difference(STRIPPED_FIELDS);
    if (mine.set.isEmpty()) managers.delete(self);
  }
  return { merged, managers };
}

/**
 * The fields kubectl may take over without conflict (allowedConflictsFromLastApplied): those in
 * the live object's last-applied-configuration whose values still match the live object.
 * Undefined when there is no usable annotation.
 */
function allowedByLastApplied(
  live: JsonObject | undefined,
  opts: ApplyOptions,
): FieldSet | undefined {
  const annotations = isObject(live?.metadata) ? live.metadata.annotations : undefined;
  const text = isObject(annotations) ? annotations[LAST_APPLIED] : undefined;
  if (live === undefined || typeof text !== 'string' || text === '') return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(lastApplied) || lastApplied.apiVersion !== opts.apiVersion) return undefined;
  const { set, errors } = toFieldSet(lastApplied, opts.schema, { strict: true });
  if (errors.length > 0) return undefined;
  const c = compare(lastApplied, live, opts.schema);
  return set.difference(c.modified).difference(c.added).difference(c.removed);
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * lastAppliedUpdater: when `kubectl` applies server-side to an object that carries the
 * client-side-apply annotation, the annotation is rewritten to the applied configuration (as
 * UnstructuredJSONScheme encodes it: sorted keys, trailing newline), so a later client-side
 * apply still computes the right patch. Mutates `merged`.
 */
function syncLastApplied(merged: JsonObject, applied: JsonObject, manager: string): void {
  if (manager !== 'kubectl') return;
  const meta = merged.metadata;
  if (!isObject(meta) || !isObject(meta.annotations) || !(LAST_APPLIED in meta.annotations)) return;
  const config = structuredClone(applied);
  if (isObject(config.metadata) && isObject(config.metadata.annotations)) {
    delete config.metadata.annotations[LAST_APPLIED];
  }
  meta.annotations = { ...meta.annotations, [LAST_APPLIED]: goJson(config) + '\n' };
}

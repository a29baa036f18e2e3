// managedFields for ordinary writes (create, update, and non-apply patches): the fieldmanager's
// Update path. The fields the write changed go to the writing manager (operation Update) and are
// taken from everyone else; removed fields are taken from everyone.
import type { ManagedFieldsEntry } from '@agent-sandbox/kube-types';
import type { FieldSet } from './field-set.ts';
import { deepEqual, isObject, type JsonObject } from './json-value.ts';
import {
  STRIPPED_FIELDS,
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  managerIdentifier,
  managerName,
  type ManagerMap,
} from './managed-fields.ts';
import type { MergeSchema } from './merge-schema.ts';
import { transferOwnership, withManagedFields, withoutManagedFields } from './ownership.ts';
import { zeroObject } from './typed.ts';

export interface UpdateManagedFieldsOptions {
  /** The fieldManager (or User-Agent derived) name. */
  manager: string;
  operation?: 'Update';
  /** The request's `<group>/<version>` (`v1` for core). */
  apiVersion: string;
  schema: MergeSchema;
  /** RFC 3339 timestamp, whole seconds (metav1.Time). */
  now: string;
  /** `status` for writes through the status subresource. */
  subresource?: string;
  /** Fields this endpoint resets and nobody owns through it (strategy reset fields). */
  ignoredFields?: FieldSet;
}

export interface UpdateManagedFieldsResult {
  /** `next` with `metadata.managedFields` replaced (or removed when empty). */
  object: JsonObject;
  managedFields: ManagedFieldsEntry[];
}

/** isResetManagedFields: `[]` or a single empty entry clears managedFields. */
function isResetRequest(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  return entries.length === 0 || (entries.length === 1 && deepEqual(entries[0], {}));
}

/**
 * decodeLiveOrNew: subresource writes always keep the stored managedFields; otherwise those sent
 * with the object win (a client may edit or reset them) unless absent, empty or undecodable.
 */
function startingManagers(
  old: JsonObject | undefined,
  next: JsonObject,
  subresource: string | undefined,
): ManagerMap {
  const stored = decodeManagedFields(
    isObject(old?.metadata) ? old.metadata.managedFields : undefined,
  );
  if (subresource !== undefined) return stored ?? new Map();
  const sent = isObject(next.metadata) ? next.metadata.managedFields : undefined;
  if (isResetRequest(sent)) return new Map();
  const decoded = decodeManagedFields(sent);
  if (decoded === undefined || decoded.size === 0) return stored ?? new Map();
  return decoded;
}

/**
 * Record a create (`old` undefined), update or non-apply patch in managedFields. Ownership of what
 * changed between `old` and `next` goes to the manager's Update entry for this apiVersion and
 * subresource (merged with its previous entry, time set to `now`); other managers lose those
 * fields and any removed ones; empty entries are dropped; beyond ten Update managers the oldest
 * collapse into `ancient-changes`. managedFields sent in `next` (main resource only) replace the
 * stored ones, as a client may edit them; `[]` or `[{}]` clears them. An update of an object
 * without managedFields stays untracked. A write that changes nothing keeps every timestamp.
 */
export function updateManagedFields(
  old: JsonObject | undefined,
  next: JsonObject,
  opts: UpdateManagedFieldsOptions,
): UpdateManagedFieldsResult {
  const managers = startingManagers(old, next, opts.subresource);
  const newObj = withoutManagedFields(next);
  // skipNonAppliedManager: an update of an object nobody manages (never tracked, or reset by the
  // client) is not tracked either; only creates and applies start tracking.
  if (managers.size === 0 && old !== undefined) return { object: newObj, managedFields: [] };

  const liveObj = old === undefined ? zeroObject(opts.schema) : withoutManagedFields(old);
  const self = '\u0000current-operation';
  const c = transferOwnership(
    liveObj,
    newObj,
    opts.schema,
    managers,
    self,
    true,
    opts.ignoredFields,
  );
  const gained = c.modified.union(c.added).difference(STRIPPED_FIELDS);
  if (!gained.isEmpty()) {
    const record = {
      manager: managerName(opts.manager),
      operation: 'Update' as const,
      apiVersion: opts.apiVersion,
      ...(opts.subresource === undefined ? {} : { subresource: opts.subresource }),
    };
    const id = managerIdentifier(record);
    const previous = managers.get(id);
    managers.set(id, {
      ...record,
      time: opts.now,
      set: previous === undefined ? gained : gained.union(previous.set),
    });
  }
  capUpdateManagers(managers);
  let managedFields = encodeManagedFields(managers);
  // A write that changed no ownership keeps the stored list verbatim, order included.
  const stored = isObject(old?.metadata) ? old.metadata.managedFields : undefined;
  const storedManagers = decodeManagedFields(stored);
  if (
    Array.isArray(stored) &&
    storedManagers !== undefined &&
    JSON.stringify(encodeManagedFields(storedManagers)) === JSON.stringify(managedFields)
  ) {
    managedFields = stored as ManagedFieldsEntry[];
  }
  return { object: withManagedFields(newObj, managedFields), managedFields };
}

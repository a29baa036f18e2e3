// The ownership step shared by apply and update (structured-merge-diff's Updater.update): compare
// the live and new objects, take changed fields away from other managers (or report them as
// conflicts) and take removed fields away from everyone.
import type { StatusCause } from '@agent-sandbox/kube-types';
import { PatchError } from './errors.ts';
import { pathToString, type FieldPath, type FieldSet } from './field-set.ts';
import { compareStrings, isObject, type JsonObject } from './json-value.ts';
import { printManager, type ManagerMap } from './managed-fields.ts';
import type { MergeSchema } from './merge-schema.ts';
import { compare, type Comparison } from './typed.ts';

/** One field another manager owns with a different value. */
export interface FieldConflict {
  /** The other manager's identifier (JSON of manager, operation, apiVersion, subresource). */
  readonly managerIdentifier: string;
  /** The field, as kube prints it: `.spec.containers[name="nginx"].image`. */
  readonly field: string;
  readonly path: FieldPath;
}

/** 409 Conflict from server-side apply; `conflicts` lists every conflicting field. */
export class ApplyConflictError extends PatchError {
  readonly conflicts: readonly FieldConflict[];

  constructor(conflicts: readonly FieldConflict[]) {
    const causes: StatusCause[] = conflicts.map((c) => ({
      reason: 'FieldManagerConflict',
      message: `conflict with ${printManager(c.managerIdentifier)}`,
      field: c.field,
    }));
    super('ApplyConflict', conflictMessage(conflicts), {
      statusCode: 409,
      reason: 'Conflict',
      causes,
    });
    this.conflicts = conflicts;
  }
}

/** kube's getConflictMessage: one line for one conflict, otherwise grouped by sorted manager. */
function conflictMessage(conflicts: readonly FieldConflict[]): string {
  const [only] = conflicts;
  if (conflicts.length === 1 && only !== undefined) {
    return `Apply failed with 1 conflict: conflict with ${printManager(only.managerIdentifier)}: ${only.field}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const fields = byManager.get(c.managerIdentifier) ?? [];
    fields.push(c.field);
    byManager.set(c.managerIdentifier, fields);
  }
  const lines: string[] = [];
  for (const id of [...byManager.keys()].sort(compareStrings)) {
    lines.push(`conflicts with ${printManager(id)}:`);
    for (const f of byManager.get(id) ?? []) lines.push(`- ${f}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/**
 * Updater.update: `self` (the applier, or the current Update operation) is exempt. Other
 * managers lose removed fields; changed fields they own are conflicts, which `force` turns into
 * a transfer of ownership and otherwise throw ApplyConflictError. Changes under `ignored` (reset
 * fields) are left out. Mutates `managers`, dropping emptied records, and returns the comparison.
 */
export function transferOwnership(
  live: unknown,
  next: unknown,
  schema: MergeSchema,
  managers: ManagerMap,
  self: string,
  force: boolean,
  ignored?: FieldSet,
): Comparison {
  let c = compare(live, next, schema);
  // Reset fields (Updater.IgnoreFilter) neither conflict nor change hands: the strategy puts
  // their old values back after the field manager has run.
  if (ignored !== undefined) {
    c = {
      added: c.added.recursiveDifference(ignored),
      modified: c.modified.recursiveDifference(ignored),
      removed: c.removed.recursiveDifference(ignored),
    };
  }
  const changed = c.modified.union(c.added);
  const conflicts = new Map<string, FieldSet>();
  for (const [id, record] of managers) {
    if (id === self) continue;
    const conflict = record.set.intersection(changed);
    if (!conflict.isEmpty()) conflicts.set(id, conflict);
  }
  if (!force && conflicts.size > 0) {
    const list: FieldConflict[] = [];
    for (const id of [...conflicts.keys()].sort(compareStrings)) {
      for (const path of conflicts.get(id)?.paths() ?? []) {
        list.push({ managerIdentifier: id, field: pathToString(path), path });
      }
    }
    throw new ApplyConflictError(list);
  }
  for (const [id, record] of managers) {
    if (id === self) continue;
    const conflict = conflicts.get(id);
    if (conflict !== undefined) record.set = record.set.difference(conflict);
    if (!c.removed.isEmpty()) record.set = record.set.difference(c.removed);
    if (record.set.isEmpty()) managers.delete(id);
  }
  return c;
}

/** A shallow copy of an object without `metadata.managedFields`. */
export function withoutManagedFields(obj: JsonObject): JsonObject {
  const metadata = obj.metadata;
  if (!isObject(metadata) || !Object.hasOwn(metadata, 'managedFields')) return obj;
  const rest = { ...metadata };
  delete rest.managedFields;
  return { ...obj, metadata: rest };
}

/** Set (or clear, when empty) `metadata.managedFields` on a copy of `obj`. */
export function withManagedFields(obj: JsonObject, entries: readonly unknown[]): JsonObject {
  const metadata = isObject(obj.metadata) ? { ...obj.metadata } : {};
  if (entries.length > 0) metadata.managedFields = entries;
  else delete metadata.managedFields;
  return { ...obj, metadata };
}

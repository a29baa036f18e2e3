// managedFields bookkeeping shared by apply and update (spec §2): decoding entries into field
// sets keyed by manager identity, encoding them back in kube's order, the `ancient-changes` cap
// and the metadata fields kube never tracks.
import type { ManagedFieldsEntry } from '@agent-sandbox/kube-types';
import { FieldSet, fieldElement, type FieldPath } from './field-set.ts';
import { compareStrings, goJson, isObject } from './json-value.ts';

export type Operation = 'Apply' | 'Update';

/** One manager's ownership, as fieldmanager keeps it between decode and encode. */
export interface ManagerRecord {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource?: string;
  time?: string;
  set: FieldSet;
}

/** Manager records keyed by their identifier (managerIdentifier). */
export type ManagerMap = Map<string, ManagerRecord>;

/** fieldmanager's DefaultMaxUpdateManagers. */
export const MAX_UPDATE_MANAGERS = 10;
/** The bucket the oldest Update managers collapse into beyond MAX_UPDATE_MANAGERS. */
export const ANCIENT_CHANGES_MANAGER = 'ancient-changes';
/** The Update manager that takes ownership of everything on the first apply to an object without managedFields. */
export const BEFORE_FIRST_APPLY_MANAGER = 'before-first-apply';

/**
 * BuildManagerIdentifier: the JSON of the entry without fieldsV1 and time; appliers also drop
 * apiVersion, so re-applying at another version is the same manager.
 */
export function managerIdentifier(r: {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource?: string;
}): string {
  const id: Record<string, string> = { manager: r.manager, operation: r.operation };
  if (r.operation === 'Update' && r.apiVersion !== '') id.apiVersion = r.apiVersion;
  if (r.subresource !== undefined && r.subresource !== '') id.subresource = r.subresource;
  return JSON.stringify(id);
}

/** The manager as conflict messages print it: `"m"`, `"m" with subresource "status"`, `… using v1`. */
export function printManager(identifier: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(identifier);
  } catch {
    return JSON.stringify(identifier);
  }
  if (!isObject(parsed)) return JSON.stringify(identifier);
  let out = JSON.stringify(String(parsed.manager ?? ''));
  if (typeof parsed.subresource === 'string' && parsed.subresource !== '') {
    out += ` with subresource ${JSON.stringify(parsed.subresource)}`;
  }
  if (parsed.operation === 'Update') out += ` using ${String(parsed.apiVersion ?? '')}`;
  return out;
}

/**
 * Decode `metadata.managedFields` (DecodeManagedFields). Returns undefined when any entry is
 * invalid — an operation other than Apply/Update, an empty apiVersion, a fieldsType other than
 * FieldsV1, undecodable fieldsV1 — as kube then discards the whole list. A later entry with the
 * same identity replaces an earlier one.
 */
export function decodeManagedFields(entries: unknown): ManagerMap | undefined {
  const out: ManagerMap = new Map();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) return undefined;
  for (const e of entries) {
    if (!isObject(e)) return undefined;
    const { operation, apiVersion } = e;
    if (operation !== 'Apply' && operation !== 'Update') return undefined;
    if (typeof apiVersion !== 'string' || apiVersion === '') return undefined;
    if (e.fieldsType !== 'FieldsV1') return undefined;
    let set: FieldSet;
    try {
      set = FieldSet.fromFieldsV1(e.fieldsV1 ?? {});
    } catch {
      return undefined;
    }
    const record: ManagerRecord = {
      manager: typeof e.manager === 'string' ? e.manager : '',
      operation,
      apiVersion,
      set,
    };
    if (typeof e.subresource === 'string' && e.subresource !== '') {
      record.subresource = e.subresource;
    }
    if (typeof e.time === 'string') record.time = e.time;
    out.set(managerIdentifier(record), record);
  }
  return out;
}

/** buildManagerInfo: a request without a manager name is recorded as `unknown`. */
export function managerName(name: string): string {
  return name === '' ? 'unknown' : name;
}

function seconds(time: string | undefined): number {
  if (time === undefined) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

function cmp(a: string, b: string): number {
  return compareStrings(a, b);
}

/**
 * Encode records as `metadata.managedFields`, sorted as sortEncodedManagedFields does:
 * operation (Apply before Update), time (whole seconds), manager, apiVersion, subresource.
 * Records with empty field sets are dropped.
 */
export function encodeManagedFields(managers: ManagerMap): ManagedFieldsEntry[] {
  const records = [...managers.values()].filter((r) => !r.set.isEmpty());
  records.sort(
    (p, q) =>
      cmp(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager, q.manager) ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource ?? '', q.subresource ?? ''),
  );
  return records.map((r) => {
    const entry: ManagedFieldsEntry = { manager: r.manager, operation: r.operation };
    if (r.apiVersion !== '') entry.apiVersion = r.apiVersion;
    if (r.time !== undefined) entry.time = r.time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = r.set.toFieldsV1();
    if (r.subresource !== undefined) entry.subresource = r.subresource;
    return entry;
  });
}

/**
 * capManagersManager: beyond `max` Update managers, the oldest are merged, per apiVersion, into an
 * `ancient-changes` Update entry (the first of each version is only folded in once a second one
 * of that version needs to go). Mutates and returns `managers`.
 */
export function capUpdateManagers(managers: ManagerMap, max = MAX_UPDATE_MANAGERS): ManagerMap {
  const updaters = [...managers.entries()].filter(([, r]) => r.operation === 'Update');
  if (updaters.length <= max) return managers;
  updaters.sort(([ia, a], [ib, b]) => seconds(a.time) - seconds(b.time) || cmp(ia, ib));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (const [id, record] of updaters) {
    if (length <= max) break;
    const version = record.apiVersion;
    const bucketId = managerIdentifier({
      manager: ANCIENT_CHANGES_MANAGER,
      operation: 'Update',
      apiVersion: version,
    });
    const first = firstOfVersion.get(version);
    if (first === undefined) {
      firstOfVersion.set(version, id);
      continue;
    }
    let bucket = managers.get(bucketId);
    if (bucket === undefined) {
      const firstRecord = managers.get(first);
      managers.delete(first);
      bucket = {
        manager: ANCIENT_CHANGES_MANAGER,
        operation: 'Update',
        apiVersion: version,
        set: firstRecord?.set ?? new FieldSet(),
      };
      managers.set(bucketId, bucket);
    }
    bucket.set = record.set.union(bucket.set);
    // The bucket takes the time of the (more recent) update merged into it.
    if (record.time === undefined) delete bucket.time;
    else bucket.time = record.time;
    if (id !== bucketId) managers.delete(id);
    length--;
  }
  return managers;
}

const META = (name: string): FieldPath => [fieldElement('metadata'), fieldElement(name)];

/** stripMetaManager: fields no manager ever owns (exact paths, not subtrees). */
export const STRIPPED_FIELDS: FieldSet = FieldSet.fromPaths([
  [fieldElement('apiVersion')],
  [fieldElement('kind')],
  [fieldElement('metadata')],
  META('name'),
  META('namespace'),
  META('creationTimestamp'),
  META('selfLink'),
  META('uid'),
  META('clusterName'),
  META('generation'),
  META('managedFields'),
  META('resourceVersion'),
]);

/**
 * Whether two managedFields lists hold the same entries apart from their timestamps and order
 * (IgnoreManagedFieldsTimestampsTransformer's test for a write that only moved timestamps).
 */
export function sameEntriesIgnoringTime(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  const canonical = (es: unknown[]): string[] =>
    es.map((e) => goJson(isObject(e) ? { ...e, time: undefined } : e)).sort();
  const ca = canonical(a);
  const cb = canonical(b);
  return ca.every((x, i) => x === cb[i]);
}

// What the in-server controllers need from the revision log: which resource a storage key
// belongs to, the stored object (in its storage version: the controllers edit metadata only, so
// no conversion is needed), and metadata writes that finish a deletion when they remove the last
// finalizer, as an update through the API does (semantics doc §2, §9.2).
import { updateManagedFields } from '../patch/index.ts';
import { mergeSchemaFor } from '../http/managed-fields.ts';
import { formatTime } from '../objects.ts';
import { groupVersion } from '../resources/resource.ts';
import type { KubeObject } from '../objects.ts';
import { encode } from '../resource-store.ts';
import type { ResourceRegistry } from '../resources/registry.ts';
import type { ResourceInfo } from '../resources/resource.ts';
import type { Store, StoredObject } from '../storage/store.ts';

/** Where an object lives, read off its key `/registry/<group|core>/<plural>/[<namespace>/]<name>`. */
export interface ObjectLocation {
  key: string;
  group: string;
  plural: string;
  /** Set for keys of namespaced resources. */
  namespace?: string;
  name: string;
}

const REGISTRY = '/registry/';

export function parseKey(key: string): ObjectLocation | undefined {
  if (!key.startsWith(REGISTRY)) return undefined;
  const parts = key.slice(REGISTRY.length).split('/');
  const [groupPart, plural] = parts;
  if (groupPart === undefined || plural === undefined) return undefined;
  const group = groupPart === 'core' ? '' : groupPart;
  if (parts.length === 3) return { key, group, plural, name: parts[2] as string };
  if (parts.length === 4)
    return { key, group, plural, namespace: parts[2] as string, name: parts[3] as string };
  return undefined;
}

/** The served resource stored under `/registry/<group>/<plural>/`, if any. */
export function resourceAt(
  registry: ResourceRegistry,
  loc: Pick<ObjectLocation, 'group' | 'plural'>,
): ResourceInfo | undefined {
  return registry.all().find((r) => r.group === loc.group && r.plural === loc.plural);
}

/**
 * Resolves an ownerReference's `apiVersion`/`kind` to a served resource. Only the group must be
 * served: the version does not change which object a reference names.
 */
export function resourceForKind(
  registry: ResourceRegistry,
  apiVersion: string,
  kind: string,
): ResourceInfo | undefined {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return registry.all().find((r) => r.group === group && r.kind === kind);
}

export function isNamespaces(r: Pick<ResourceInfo, 'group' | 'plural'>): boolean {
  return r.group === '' && r.plural === 'namespaces';
}

/** Parses a stored value; undefined for values that are not objects with metadata. */
export function parseObject(value: string): KubeObject | undefined {
  const parsed: unknown = JSON.parse(value);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const meta = (parsed as { metadata?: unknown }).metadata;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return undefined;
  return parsed as KubeObject;
}

export function readStored(
  store: Store,
  key: string,
): { stored: StoredObject; obj: KubeObject } | undefined {
  const stored = store.get(key);
  if (!stored) return undefined;
  const obj = parseObject(stored.value);
  return obj ? { stored, obj } : undefined;
}

/** `spec.finalizers` of a namespace (the `kubernetes` finalizer and its peers, §9.2). */
export function namespaceFinalizers(obj: KubeObject): string[] {
  const spec = obj['spec'];
  if (typeof spec !== 'object' || spec === null) return [];
  const finalizers = (spec as { finalizers?: unknown }).finalizers;
  return Array.isArray(finalizers) ? finalizers.filter((f) => typeof f === 'string') : [];
}

/**
 * Whether writing `obj` over an object whose deletion has started completes the deletion: no
 * finalizers remain, no grace period is still running, and for a namespace no `spec.finalizers` either (kube-apiserver's
 * `ShouldDeleteNamespaceDuringUpdate`). Exported for the update path, which must not delete a
 * terminating namespace whose content is still being removed.
 */
export function shouldDeleteDuringUpdate(
  r: Pick<ResourceInfo, 'group' | 'plural'>,
  obj: KubeObject,
): boolean {
  if (obj.metadata.deletionTimestamp === undefined) return false;
  if ((obj.metadata.finalizers ?? []).length > 0) return false;
  // A graceful deletion still running (a Pod its kubelet is stopping) ends with that kubelet's
  // DELETE, not with a write: only a grace of 0 (or none) has elapsed (kube's Store does the same).
  if ((obj.metadata.deletionGracePeriodSeconds ?? 0) > 0) return false;
  return !isNamespaces(r) || namespaceFinalizers(obj).length === 0;
}

export type MetadataWriteResult = 'missing' | 'unchanged' | 'updated' | 'deleted';

/**
 * Applies `mutate` to the current stored object (storage version) and writes it back at the
 * revision it was read at; deletes the object instead when the write completes its deletion.
 * `mutate` returns false to write nothing. `expectedUid` guards against a same-named successor.
 * @throws StorageError `Conflict` when another writer got in between (the caller retries)
 */
export function writeStored(
  store: Store,
  r: Pick<ResourceInfo, 'group' | 'plural'>,
  key: string,
  expectedUid: string | undefined,
  mutate: (obj: KubeObject) => boolean,
): MetadataWriteResult {
  const current = readStored(store, key);
  if (!current) return 'missing';
  if (expectedUid !== undefined && current.obj.metadata.uid !== expectedUid) return 'missing';
  let next = structuredClone(current.obj);
  if (!mutate(next)) return 'unchanged';
  if (isResourceInfo(r)) {
    // Controllers write as kube-controller-manager does: their changes move field ownership
    // like any Update (removed owner references leave their previous owners' entries).
    next = updateManagedFields(current.obj, next, {
      manager: CONTROLLER_MANAGER,
      apiVersion: groupVersion(r.group, r.storageVersion),
      schema: mergeSchemaFor(r, r.storageVersion),
      now: formatTime(new Date()),
    }).object as KubeObject;
  }
  if (shouldDeleteDuringUpdate(r, next)) {
    store.delete(key, current.stored.revision);
    return 'deleted';
  }
  return store.update(key, encode(next), current.stored.revision) === 'unchanged'
    ? 'unchanged'
    : 'updated';
}

/** Removes one `metadata.finalizers` entry (dropping the field when it empties, as omitempty does). */
export function withoutFinalizer(obj: KubeObject, finalizer: string): boolean {
  const finalizers = obj.metadata.finalizers ?? [];
  if (!finalizers.includes(finalizer)) return false;
  const rest = finalizers.filter((f) => f !== finalizer);
  if (rest.length > 0) obj.metadata.finalizers = rest;
  else delete obj.metadata.finalizers;
  return true;
}

/** The field manager of the in-server controllers' writes (kube's controllers' User-Agent). */
export const CONTROLLER_MANAGER = 'kube-controller-manager';

function isResourceInfo(r: Pick<ResourceInfo, 'group' | 'plural'>): r is ResourceInfo {
  return 'storageVersion' in r && 'versions' in r;
}

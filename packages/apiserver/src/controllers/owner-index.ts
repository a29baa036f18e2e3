// The garbage collector's view of ownership, rebuilt from the revision log: which objects name
// which owners (by uid), so that a change to an owner finds its dependents without scanning
// storage. It is an index, not a source of truth: every decision re-reads the objects involved
// from storage (kube's GC does the same with live GETs, since its graph can lag).
import type { ObjectMeta } from '@agent-sandbox/kube-types';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../operations/delete-object.ts';

export interface IndexedOwnerRef {
  uid: string;
  /** `blockOwnerDeletion: true`: the owner's foreground deletion waits for this dependent. */
  blocking: boolean;
}

/** One object as the index keeps it. */
export interface IndexedObject {
  key: string;
  uid: string;
  owners: readonly IndexedOwnerRef[];
  /** `deletionTimestamp` is set. */
  deleting: boolean;
  /** Being deleted with the `foregroundDeletion` finalizer: waits for its dependents. */
  deletingDependents: boolean;
  /** Being deleted with the `orphan` finalizer: its dependents must be released. */
  orphaningDependents: boolean;
}

export function indexedObject(key: string, meta: ObjectMeta): IndexedObject | undefined {
  if (!meta.uid) return undefined;
  const deleting = meta.deletionTimestamp !== undefined;
  const finalizers = meta.finalizers ?? [];
  const owners = new Map<string, IndexedOwnerRef>();
  for (const ref of meta.ownerReferences ?? []) {
    if (!ref.uid) continue;
    const blocking = ref.blockOwnerDeletion === true || owners.get(ref.uid)?.blocking === true;
    owners.set(ref.uid, { uid: ref.uid, blocking });
  }
  return {
    key,
    uid: meta.uid,
    owners: [...owners.values()],
    deleting,
    deletingDependents: deleting && finalizers.includes(FOREGROUND_FINALIZER),
    orphaningDependents: deleting && finalizers.includes(ORPHAN_FINALIZER),
  };
}

/**
 * Whether the collector needs to remember an object: it names owners, or it is an owner whose
 * deletion waits for the collector. Other objects matter only when they disappear, and their
 * DELETED event carries their uid.
 */
export function isTracked(obj: IndexedObject): boolean {
  return obj.owners.length > 0 || obj.deletingDependents || obj.orphaningDependents;
}

export function sameOwners(a: readonly IndexedOwnerRef[], b: readonly IndexedOwnerRef[]): boolean {
  return (
    a.length === b.length &&
    a.every((o) => b.some((p) => p.uid === o.uid && p.blocking === o.blocking))
  );
}

export class OwnerIndex {
  readonly #byKey = new Map<string, IndexedObject>();
  readonly #keyByUid = new Map<string, string>();
  /** owner uid → keys of objects that reference it. */
  readonly #dependents = new Map<string, Set<string>>();

  /** Records the current state of one key; returns what it replaced. */
  set(obj: IndexedObject): IndexedObject | undefined {
    const previous = this.delete(obj.key);
    this.#byKey.set(obj.key, obj);
    this.#keyByUid.set(obj.uid, obj.key);
    for (const owner of obj.owners) {
      let set = this.#dependents.get(owner.uid);
      if (!set) {
        set = new Set();
        this.#dependents.set(owner.uid, set);
      }
      set.add(obj.key);
    }
    return previous;
  }

  /** Forgets a key (its object was deleted); returns what was recorded for it. */
  delete(key: string): IndexedObject | undefined {
    const previous = this.#byKey.get(key);
    if (!previous) return undefined;
    this.#byKey.delete(key);
    if (this.#keyByUid.get(previous.uid) === key) this.#keyByUid.delete(previous.uid);
    for (const owner of previous.owners) {
      const set = this.#dependents.get(owner.uid);
      set?.delete(key);
      if (set?.size === 0) this.#dependents.delete(owner.uid);
    }
    return previous;
  }

  clear(): void {
    this.#byKey.clear();
    this.#keyByUid.clear();
    this.#dependents.clear();
  }

  get(key: string): IndexedObject | undefined {
    return this.#byKey.get(key);
  }

  /** The object with this uid, if it exists. */
  byUid(uid: string): IndexedObject | undefined {
    const key = this.#keyByUid.get(uid);
    return key === undefined ? undefined : this.#byKey.get(key);
  }

  /** Whether any indexed object references an owner. */
  get hasDependents(): boolean {
    return this.#dependents.size > 0;
  }

  /** Keys of every object that references `ownerUid`. */
  dependentsOf(ownerUid: string): string[] {
    return [...(this.#dependents.get(ownerUid) ?? [])];
  }

  /** Keys of the dependents whose reference to `ownerUid` blocks its foreground deletion. */
  blockingDependentsOf(ownerUid: string): string[] {
    return this.dependentsOf(ownerUid).filter((key) =>
      this.#byKey.get(key)?.owners.some((o) => o.uid === ownerUid && o.blocking),
    );
  }

  /** Every indexed object (for a full resync). */
  values(): IterableIterator<IndexedObject> {
    return this.#byKey.values();
  }
}

// The garbage collector (semantics doc §9.1), inside the server on the revision log, after
// kube-controller-manager's garbagecollector: it follows every write, keeps an owner-uid →
// dependents index, and converges one object key at a time:
// - a dependent whose owners are all gone (no object under the referenced name, or one with
//   another uid) is deleted (background, or the policy its own orphan/foreground finalizer asks);
// - a dependent with some owners alive loses its references to the gone ones (and to owners
//   waiting in foreground deletion, which it would otherwise block for nothing);
// - an owner being deleted with `foregroundDeletion` gets its dependents deleted, and once no
//   dependent with `blockOwnerDeletion: true` remains, loses the finalizer;
// - an owner being deleted with `orphan` has its references removed from every dependent, then
//   loses the finalizer.
// Every decision re-reads the objects from storage, so a lagging index costs a retry, never a
// wrong deletion. All deletions go through deleteOne, with the dependent's uid as precondition.
import type { OwnerReference } from '@agent-sandbox/kube-types';
import { ApiError } from '../errors.ts';
import type { ServerParts } from '../http/context.ts';
import type { KubeObject } from '../objects.ts';
import {
  deleteOne,
  FOREGROUND_FINALIZER,
  ORPHAN_FINALIZER,
  type PropagationPolicy,
} from '../operations/delete-object.ts';
import { objectKey } from '../resource-store.ts';
import type { ResourceInfo } from '../resources/resource.ts';
import { CRD_PREFIX } from '../crd/crd-controller.ts';
import type { WatchEvent } from '../storage/store.ts';
import { reportToStderr, type ControllerOptions } from './controller-options.ts';
import { LogDrivenLoop } from './log-driven-loop.ts';
import {
  indexedObject,
  isTracked,
  OwnerIndex,
  sameOwners,
  type IndexedOwnerRef,
} from './owner-index.ts';
import {
  parseKey,
  parseObject,
  readStored,
  resourceAt,
  resourceForKind,
  withoutFinalizer,
  writeStored,
  type ObjectLocation,
} from './stored-objects.ts';

/** How an owner reference stands, in kube's GC terms (classifyReferences). */
type OwnerState = 'solid' | 'dangling' | 'waiting' | 'unresolved';

function withoutOwners(obj: KubeObject, uids: ReadonlySet<string>): boolean {
  const refs = obj.metadata.ownerReferences ?? [];
  const kept = refs.filter((ref) => !uids.has(ref.uid));
  if (kept.length === refs.length) return false;
  if (kept.length > 0) obj.metadata.ownerReferences = kept;
  else delete obj.metadata.ownerReferences;
  return true;
}

/** kube's unblockOwnerReferences: a dependent caught in a foreground cycle stops blocking. */
function unblockOwners(obj: KubeObject): boolean {
  let changed = false;
  for (const ref of obj.metadata.ownerReferences ?? []) {
    if (ref.blockOwnerDeletion === true) {
      ref.blockOwnerDeletion = false;
      changed = true;
    }
  }
  return changed;
}

export class GarbageCollector {
  static readonly NAME = 'garbage-collector';
  readonly #parts: ServerParts;
  readonly #onError: (controller: string, key: string, err: unknown) => void;
  readonly #index = new OwnerIndex();
  /** Dependents naming a kind no served resource has: judged again when CRDs change. */
  readonly #unresolved = new Set<string>();
  readonly #loop: LogDrivenLoop;

  constructor(parts: ServerParts, options: ControllerOptions = {}) {
    this.#parts = parts;
    this.#onError = options.onError ?? reportToStderr;
    this.#loop = new LogDrivenLoop(parts.store, {
      name: GarbageCollector.NAME,
      observe: (e) => this.#observe(e),
      reconcile: (key) => this.#reconcile(key),
      reset: () => {
        this.#index.clear();
        this.#unresolved.clear();
      },
      onError: this.#onError,
    });
  }

  start(): void {
    this.#loop.start();
  }

  stop(): void {
    this.#loop.stop();
  }

  idle(): Promise<void> {
    return this.#loop.idle();
  }

  #enqueue(key: string): void {
    this.#loop.enqueue(key);
  }

  #observe(e: WatchEvent): void {
    if (e.key.startsWith(CRD_PREFIX)) {
      // A kind that could not be resolved may be served now (or no longer).
      for (const key of this.#unresolved) this.#enqueue(key);
      this.#unresolved.clear();
    }
    if (!this.#mayMatter(e)) return;
    const obj = parseObject(e.value);
    if (!obj) return;
    if (e.type === 'DELETED') {
      const previous = this.#index.delete(e.key);
      this.#unresolved.delete(e.key);
      // Its dependents may have lost their last owner; owners it blocked may finish.
      if (obj.metadata.uid)
        this.#index.dependentsOf(obj.metadata.uid).forEach((k) => this.#enqueue(k));
      if (previous) this.#enqueueWaitingOwners(previous.owners);
      return;
    }
    const node = indexedObject(e.key, obj.metadata);
    if (!node) return;
    const previous = isTracked(node) ? this.#index.set(node) : this.#index.delete(e.key);
    if (isTracked(node)) this.#enqueue(e.key);
    if (previous && !sameOwners(previous.owners, node.owners))
      this.#enqueueWaitingOwners(previous.owners);
  }

  /**
   * Most writes concern objects that neither name owners nor wait for the collector; skip
   * parsing those (a false positive only costs the parse).
   */
  #mayMatter(e: WatchEvent): boolean {
    if (e.type === 'DELETED')
      return this.#index.hasDependents || this.#index.get(e.key) !== undefined;
    return (
      this.#index.get(e.key) !== undefined ||
      e.value.includes('"ownerReferences"') ||
      e.value.includes('"deletionTimestamp"')
    );
  }

  /** Queues the owners among `owners` whose deletion waits for the collector. */
  #enqueueWaitingOwners(owners: readonly IndexedOwnerRef[]): void {
    for (const o of owners) {
      const owner = this.#index.byUid(o.uid);
      if (owner && (owner.deletingDependents || owner.orphaningDependents))
        this.#enqueue(owner.key);
    }
  }

  #reconcile(key: string): void {
    const loc = parseKey(key);
    if (!loc) return;
    const r = resourceAt(this.#parts.registry, loc);
    if (!r) return;
    const current = readStored(this.#parts.store, key);
    if (!current) return;
    const meta = current.obj.metadata;
    const uid = meta.uid ?? '';
    if (meta.deletionTimestamp !== undefined) {
      // "Being deleted" is a one-way trip: as a dependent there is nothing left to decide.
      const finalizers = meta.finalizers ?? [];
      if (finalizers.includes(ORPHAN_FINALIZER)) this.#orphanDependents(r, key, uid);
      else if (finalizers.includes(FOREGROUND_FINALIZER)) this.#deleteDependents(r, key, uid);
      return;
    }
    this.#judgeOwners(r, loc, current.obj);
  }

  /** Orphan: release every dependent, then let the owner go. */
  #orphanDependents(r: ResourceInfo, key: string, uid: string): void {
    const owner = new Set([uid]);
    for (const depKey of this.#index.dependentsOf(uid)) {
      const depLoc = parseKey(depKey);
      const depR = depLoc && resourceAt(this.#parts.registry, depLoc);
      if (!depR) continue;
      writeStored(this.#parts.store, depR, depKey, undefined, (o) => withoutOwners(o, owner));
    }
    writeStored(this.#parts.store, r, key, uid, (o) => withoutFinalizer(o, ORPHAN_FINALIZER));
  }

  /** Foreground: delete the dependents; the owner goes once none blocks it. */
  #deleteDependents(r: ResourceInfo, key: string, uid: string): void {
    // Dependents already being deleted need nothing more from us as dependents (this also keeps
    // an owner with many dependents from re-queueing all of them at every deletion).
    for (const depKey of this.#index.dependentsOf(uid))
      if (this.#index.get(depKey)?.deleting !== true) this.#enqueue(depKey);
    if (this.#index.blockingDependentsOf(uid).length > 0) return;
    writeStored(this.#parts.store, r, key, uid, (o) => withoutFinalizer(o, FOREGROUND_FINALIZER));
  }

  /** The dependent's side (kube's attemptToDeleteItem). */
  #judgeOwners(r: ResourceInfo, loc: ObjectLocation, obj: KubeObject): void {
    const refs = obj.metadata.ownerReferences ?? [];
    if (refs.length === 0) return;
    const uid = obj.metadata.uid ?? '';
    const byState = new Map<OwnerState, OwnerReference[]>();
    for (const ref of refs) {
      const state = this.#ownerState(loc, ref);
      byState.set(state, [...(byState.get(state) ?? []), ref]);
    }
    if (byState.has('unresolved')) {
      // kube's GC cannot map the kind either and keeps retrying; we wait for a CRD change.
      this.#unresolved.add(loc.key);
      return;
    }
    this.#unresolved.delete(loc.key);
    const waiting = byState.get('waiting') ?? [];
    if (byState.has('solid')) {
      const drop = new Set([...(byState.get('dangling') ?? []), ...waiting].map((ref) => ref.uid));
      if (drop.size > 0)
        writeStored(this.#parts.store, r, loc.key, uid, (o) => withoutOwners(o, drop));
      return;
    }
    const dependents = this.#index.dependentsOf(uid);
    if (waiting.length > 0 && dependents.length > 0) {
      // Its owner waits for it, and it has dependents of its own: delete it in foreground too.
      if (dependents.some((k) => this.#index.get(k)?.deletingDependents))
        writeStored(this.#parts.store, r, loc.key, uid, unblockOwners);
      this.#delete(r, loc, uid, 'Foreground');
      return;
    }
    const finalizers = obj.metadata.finalizers ?? [];
    const policy: PropagationPolicy = finalizers.includes(ORPHAN_FINALIZER)
      ? 'Orphan'
      : finalizers.includes(FOREGROUND_FINALIZER)
        ? 'Foreground'
        : 'Background';
    this.#delete(r, loc, uid, policy);
  }

  /**
   * Owner lookup uses the dependent's namespace: a namespaced dependent cannot be owned from
   * another namespace, and a cluster-scoped one cannot be owned by a namespaced kind (§9.1).
   */
  #ownerState(dep: ObjectLocation, ref: OwnerReference): OwnerState {
    const ownerR = resourceForKind(this.#parts.registry, ref.apiVersion ?? '', ref.kind ?? '');
    if (!ownerR) return 'unresolved';
    if (ownerR.namespaced && dep.namespace === undefined) return 'dangling';
    const owner = readStored(this.#parts.store, objectKey(ownerR, dep.namespace, ref.name ?? ''));
    if (!owner || owner.obj.metadata.uid !== ref.uid) return 'dangling';
    const meta = owner.obj.metadata;
    if (
      meta.deletionTimestamp !== undefined &&
      (meta.finalizers ?? []).includes(FOREGROUND_FINALIZER)
    )
      return 'waiting';
    return 'solid';
  }

  #delete(r: ResourceInfo, loc: ObjectLocation, uid: string, policy: PropagationPolicy): void {
    try {
      deleteOne(this.#parts, r, r.storageVersion, loc.namespace, loc.name, {
        dryRun: false,
        propagationPolicy: policy,
        preconditions: { uid },
      });
    } catch (err: unknown) {
      // Gone already, or replaced by a same-named object with another uid: nothing to collect.
      if (err instanceof ApiError && (err.status.code === 404 || err.status.code === 409)) return;
      throw err;
    }
  }
}

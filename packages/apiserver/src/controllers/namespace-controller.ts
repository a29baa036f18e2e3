// The namespace controller (semantics doc §9.2), inside the server on the revision log, after
// kube-controller-manager's namespace deleter: for a namespace with a deletionTimestamp it sets
// phase Terminating, deletes every object of every namespaced resource in it (built-in and
// custom, through deleteOne with background propagation), records kube's conditions while
// objects remain (finalizers may hold them), and once the namespace is empty removes
// `kubernetes` from spec.finalizers, which deletes the namespace when no other finalizer holds it.
// It is woken by the namespace's own changes and by every change inside a terminating namespace.
import type { NamespaceCondition } from '@agent-sandbox/kube-types';
import { ApiError } from '../errors.ts';
import type { ServerParts } from '../http/context.ts';
import { formatTime } from '../objects.ts';
import { deleteOne } from '../operations/delete-object.ts';
import { keyPrefix, objectKey } from '../resource-store.ts';
import type { ResourceInfo } from '../resources/resource.ts';
import type { WatchEvent } from '../storage/store.ts';
import { reportToStderr, type ControllerOptions } from './controller-options.ts';
import { LogDrivenLoop } from './log-driven-loop.ts';
import { computeNamespaceConditions, type ContentTotals } from './namespace-conditions.ts';
import { KUBERNETES_FINALIZER } from './namespace-deletion.ts';
import {
  isNamespaces,
  namespaceFinalizers,
  parseKey,
  parseObject,
  readStored,
  resourceAt,
  writeStored,
} from './stored-objects.ts';

const NAMESPACES_PREFIX = '/registry/core/namespaces/';
/** Objects read per list page while deleting content. */
const PAGE_SIZE = 500;

/** How kube's deleter names a resource in its messages: `%s.%s` of resource and group. */
function contentName(r: ResourceInfo): string {
  return `${r.plural}.${r.group}`;
}

export class NamespaceController {
  static readonly NAME = 'namespace-controller';
  readonly #parts: ServerParts;
  readonly #onError: (controller: string, key: string, err: unknown) => void;
  /** Names of namespaces with a deletionTimestamp, whose content changes wake the controller. */
  readonly #terminating = new Set<string>();
  readonly #loop: LogDrivenLoop;

  constructor(parts: ServerParts, options: ControllerOptions = {}) {
    this.#parts = parts;
    this.#onError = options.onError ?? reportToStderr;
    this.#loop = new LogDrivenLoop(parts.store, {
      name: NamespaceController.NAME,
      observe: (e) => this.#observe(e),
      reconcile: (key) => this.#reconcile(key),
      reset: () => this.#terminating.clear(),
      onError: this.#onError,
      follow: { watchPrefix: '/registry/', listPrefix: NAMESPACES_PREFIX },
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

  #observe(e: WatchEvent): void {
    const loc = parseKey(e.key);
    if (!loc) return;
    if (isNamespaces(loc) && loc.namespace === undefined) {
      const obj = e.type === 'DELETED' ? undefined : parseObject(e.value);
      if (obj?.metadata.deletionTimestamp === undefined) {
        this.#terminating.delete(loc.name);
        return;
      }
      this.#terminating.add(loc.name);
      this.#loop.enqueue(loc.name);
      return;
    }
    if (loc.namespace !== undefined && this.#terminating.has(loc.namespace))
      this.#loop.enqueue(loc.namespace);
  }

  #reconcile(name: string): void {
    const r = resourceAt(this.#parts.registry, { group: '', plural: 'namespaces' });
    if (!r) return;
    const key = objectKey(r, undefined, name);
    const current = readStored(this.#parts.store, key);
    if (!current || current.obj.metadata.deletionTimestamp === undefined) return;
    const uid = current.obj.metadata.uid;
    const store = this.#parts.store;
    writeStored(store, r, key, uid, (ns) => {
      const status = (ns['status'] ?? {}) as Record<string, unknown>;
      if (status['phase'] === 'Terminating') return false;
      ns['status'] = { ...status, phase: 'Terminating' };
      return true;
    });
    const finalizers = namespaceFinalizers(current.obj);
    if (finalizers.length === 0) {
      // Finalized already (by someone else's PUT .../finalize): finish it unless
      // metadata.finalizers still hold it. kube leaves such a namespace for the next DELETE.
      writeStored(store, r, key, uid, () => true);
      return;
    }
    // Like kube's deleter, content goes while any spec finalizer remains, even when another
    // party's finalizer is all that is left; we only ever remove our own.
    const totals = this.#deleteContent(name);
    const now = formatTime(this.#parts.ctx.now());
    writeStored(store, r, key, uid, (ns) => {
      const status = (ns['status'] ?? {}) as { conditions?: NamespaceCondition[] };
      const next = computeNamespaceConditions(status.conditions ?? [], totals, now);
      if (!next.changed) return false;
      ns['status'] = { ...status, conditions: next.conditions };
      return true;
    });
    if (totals.errors.length > 0)
      throw new Error(`deleting content of namespace ${name}: ${totals.errors.join('; ')}`);
    // Objects held by finalizers: their removal is a change in this namespace, which wakes us.
    if (totals.remaining.size > 0) return;
    writeStored(store, r, key, uid, (ns) => {
      if (!namespaceFinalizers(ns).includes(KUBERNETES_FINALIZER)) return false;
      const spec = { ...((ns['spec'] ?? {}) as Record<string, unknown>) };
      const rest = namespaceFinalizers(ns).filter((f) => f !== KUBERNETES_FINALIZER);
      if (rest.length > 0) spec['finalizers'] = rest;
      else delete spec['finalizers'];
      ns['spec'] = spec;
      return true;
    });
  }

  /** Deletes what is not yet being deleted, then counts what remains and the finalizers holding it. */
  #deleteContent(namespace: string): ContentTotals {
    const remaining = new Map<string, number>();
    const finalizers = new Map<string, number>();
    const errors: string[] = [];
    for (const r of this.#parts.registry.all()) {
      if (!r.namespaced || !r.verbs.includes('delete') || !r.verbs.includes('list')) continue;
      const prefix = keyPrefix(r, namespace);
      for (const obj of this.#objects(prefix)) {
        if (obj.deleting) continue;
        try {
          deleteOne(this.#parts, r, r.storageVersion, namespace, obj.name, {
            dryRun: false,
            propagationPolicy: 'Background',
          });
        } catch (err: unknown) {
          if (err instanceof ApiError && err.status.code === 404) continue;
          errors.push(err instanceof Error ? err.message : String(err));
        }
      }
      for (const obj of this.#objects(prefix)) {
        remaining.set(contentName(r), (remaining.get(contentName(r)) ?? 0) + 1);
        for (const f of obj.finalizers) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
      }
    }
    return { remaining, finalizers, errors };
  }

  /** The objects under `prefix` now, read in pages. */
  *#objects(prefix: string): Generator<{ name: string; deleting: boolean; finalizers: string[] }> {
    let startAfter: string | undefined;
    for (;;) {
      const page = this.#parts.store.list(prefix, {
        limit: PAGE_SIZE,
        ...(startAfter !== undefined ? { startAfter } : {}),
      });
      for (const item of page.items) {
        const obj = parseObject(item.value);
        if (!obj) continue;
        yield {
          name: item.key.slice(prefix.length),
          deleting: obj.metadata.deletionTimestamp !== undefined,
          finalizers: obj.metadata.finalizers ?? [],
        };
      }
      const last = page.items.at(-1);
      if (page.remaining === 0 || last === undefined) return;
      startAfter = last.key;
    }
  }
}

// Serves custom resources as their CRDs come and go: installs each CRD in the registry, and
// records NamesAccepted and Established in its status as kube-apiserver's naming and
// establishing controllers do (semantics doc §8.1). Runs inside the server on the revision log.
import type { CustomResourceDefinition } from '@agent-sandbox/kube-types';
import { formatTime, type ServerContext } from '../objects.ts';
import type { ResourceRegistry } from '../resources/registry.ts';
import { StorageError } from '../storage/errors.ts';
import type { Store, StoredObject, WatchHandle } from '../storage/store.ts';

export const CRD_PREFIX = '/registry/apiextensions.k8s.io/customresourcedefinitions/';

interface CrdCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime: string;
  reason: string;
  message: string;
}

function established(crd: CustomResourceDefinition, now: string): CustomResourceDefinition {
  const status = (crd.status ?? {}) as {
    conditions?: CrdCondition[];
    acceptedNames?: unknown;
    storedVersions?: string[];
  };
  const keep = (status.conditions ?? []).filter(
    (c) => c.type !== 'NamesAccepted' && c.type !== 'Established',
  );
  const prior = new Map((status.conditions ?? []).map((c) => [c.type, c]));
  const cond = (type: string, reason: string, message: string): CrdCondition => {
    const old = prior.get(type);
    return {
      type,
      status: 'True',
      lastTransitionTime: old?.status === 'True' ? old.lastTransitionTime : now,
      reason,
      message,
    };
  };
  const storage = crd.spec.versions.find((v) => v.storage)?.name;
  const stored = new Set(status.storedVersions ?? []);
  if (storage) stored.add(storage);
  return {
    ...crd,
    status: {
      ...status,
      conditions: [
        ...keep,
        cond('NamesAccepted', 'NoConflicts', 'no conflicts found'),
        cond('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
      ],
      acceptedNames: {
        ...crd.spec.names,
        listKind: crd.spec.names.listKind ?? `${crd.spec.names.kind}List`,
        singular: crd.spec.names.singular ?? crd.spec.names.kind.toLowerCase(),
      },
      storedVersions: [...stored],
    },
  };
}

function isEstablished(crd: CustomResourceDefinition): boolean {
  const conditions = ((crd.status ?? {}) as { conditions?: CrdCondition[] }).conditions ?? [];
  return conditions.some((c) => c.type === 'Established' && c.status === 'True');
}

export class CrdController {
  readonly #store: Store;
  readonly #registry: ResourceRegistry;
  readonly #ctx: ServerContext;
  #handle: WatchHandle | undefined;

  constructor(store: Store, registry: ResourceRegistry, ctx: ServerContext) {
    this.#store = store;
    this.#registry = registry;
    this.#ctx = ctx;
  }

  /** Installs every stored CRD, then follows changes. */
  start(): void {
    const page = this.#store.list(CRD_PREFIX);
    for (const stored of page.items) this.#sync(stored);
    this.#handle = this.#store.watch(CRD_PREFIX, page.revision, (e) => {
      if (e.type === 'DELETED') {
        this.#registry.removeCrd(e.key.slice(CRD_PREFIX.length));
        return;
      }
      this.#sync({
        key: e.key,
        revision: e.revision,
        createRevision: e.createRevision,
        value: e.value,
      });
    });
  }

  /**
   * Installs a CRD synchronously (so a request right after its creation is served) and records
   * its established status.
   */
  #sync(stored: StoredObject): void {
    const crd = JSON.parse(stored.value) as CustomResourceDefinition;
    if (crd.metadata.deletionTimestamp) {
      this.#registry.removeCrd(crd.metadata.name ?? '');
      return;
    }
    this.#registry.setCrd(crd);
    if (isEstablished(crd)) return;
    const next = established(crd, formatTime(this.#ctx.now()));
    try {
      this.#store.update(stored.key, JSON.stringify(next), stored.revision);
    } catch (err: unknown) {
      // A newer write of the CRD is on its way to this watcher; that pass establishes it.
      if (!(err instanceof StorageError && (err.code === 'Conflict' || err.code === 'NotFound')))
        throw err;
    }
  }

  /** Installs a just-written CRD without waiting for the watch (used by the create path). */
  syncNow(stored: StoredObject): void {
    this.#sync(stored);
  }

  stop(): void {
    this.#handle?.cancel();
  }
}

// The RBAC objects in the revision log as a PolicySource: one read of the rbac.authorization.k8s.io
// keys, indexed, kept until a write touches one of them. (Rebuilt whenever the store's revision
// moved, it was read and parsed again for nearly every request of a busy server: 11 ms of the
// event loop per warm claim in `up`, 7 % of its busy time, bench/README.md "sdk".) Objects that
// do not parse are skipped, as a lister would never hold them.
import type { Store } from '../storage/store.ts';
import type { PolicyRule, RoleRef, Subject } from './policy.ts';
import type { Binding, PolicySource } from './resolver.ts';

const PREFIX = '/registry/rbac.authorization.k8s.io/';

interface Index {
  /** No RBAC key changed from the revision the index was read at up to this one. */
  revision: number;
  clusterRoleBindings: Binding[];
  roleBindings: Map<string, Binding[]>;
  roles: Map<string, PolicyRule[]>;
  clusterRoles: Map<string, PolicyRule[]>;
}

type Json = Record<string, unknown>;

function asRules(v: unknown): PolicyRule[] {
  if (!Array.isArray(v)) return [];
  return v.filter((r): r is PolicyRule => typeof r === 'object' && r !== null) as PolicyRule[];
}

function asBinding(obj: Json, namespace: string | undefined, name: string): Binding | undefined {
  const ref = obj['roleRef'] as RoleRef | undefined;
  if (!ref || typeof ref.name !== 'string') return undefined;
  const subjects = Array.isArray(obj['subjects']) ? (obj['subjects'] as Subject[]) : [];
  return { name, ...(namespace !== undefined ? { namespace } : {}), roleRef: ref, subjects };
}

function build(store: Store): Index {
  const index: Index = {
    revision: store.currentRevision,
    clusterRoleBindings: [],
    roleBindings: new Map(),
    roles: new Map(),
    clusterRoles: new Map(),
  };
  for (const item of store.list(PREFIX).items) {
    const parts = item.key.slice(PREFIX.length).split('/');
    let obj: Json;
    try {
      obj = JSON.parse(item.value) as Json;
    } catch {
      continue;
    }
    const [plural, a, b] = parts;
    if (plural === 'clusterroles' && a !== undefined)
      index.clusterRoles.set(a, asRules(obj['rules']));
    else if (plural === 'roles' && a !== undefined && b !== undefined)
      index.roles.set(`${a}/${b}`, asRules(obj['rules']));
    else if (plural === 'clusterrolebindings' && a !== undefined) {
      const binding = asBinding(obj, undefined, a);
      if (binding) index.clusterRoleBindings.push(binding);
    } else if (plural === 'rolebindings' && a !== undefined && b !== undefined) {
      const binding = asBinding(obj, a, b);
      if (!binding) continue;
      const list = index.roleBindings.get(a) ?? [];
      list.push(binding);
      index.roleBindings.set(a, list);
    }
  }
  return index;
}

/** A PolicySource over `store`, rebuilt lazily after a write to an RBAC object. */
export class StorePolicy implements PolicySource {
  readonly #store: Store;
  #index: Index | undefined;

  constructor(store: Store) {
    this.#store = store;
  }

  #current(): Index {
    const index = this.#index;
    const now = this.#store.currentRevision;
    if (index !== undefined && now === index.revision) return index;
    // A revision below the index's: writes it may have read were rolled back.
    if (
      index === undefined ||
      now < index.revision ||
      this.#store.changedSince(PREFIX, index.revision)
    )
      return (this.#index = build(this.#store));
    index.revision = now;
    return index;
  }

  clusterRoleBindings(): readonly Binding[] {
    return this.#current().clusterRoleBindings;
  }

  roleBindings(namespace: string): readonly Binding[] {
    return this.#current().roleBindings.get(namespace) ?? [];
  }

  role(namespace: string, name: string): readonly PolicyRule[] | undefined {
    return this.#current().roles.get(`${namespace}/${name}`);
  }

  clusterRole(name: string): readonly PolicyRule[] | undefined {
    return this.#current().clusterRoles.get(name);
  }
}

// Reconciles the bootstrap roles and bindings at startup, as kube-apiserver's RBAC post-start
// hook does: missing objects are created; existing ones keep every edit but get back the rules
// and subjects the defaults need, unless annotated `rbac.authorization.kubernetes.io/autoupdate:
// "false"`. Aggregated roles are aggregated once here, so they hold rules even in a server that
// runs no controllers; the aggregation controller keeps them current afterwards.
import { aggregatedRules, type ClusterRoleLike } from '../controllers/clusterrole-aggregation.ts';
import { formatTime, type ServerContext } from '../objects.ts';
import type { Store } from '../storage/store.ts';
import {
  BOOTSTRAP_CLUSTER_ROLE_BINDINGS,
  BOOTSTRAP_CLUSTER_ROLES,
  type BootstrapBinding,
  type BootstrapClusterRole,
} from './bootstrap-policy.ts';
import { breakdownRule, uncovered, type PolicyRule, type Subject } from './policy.ts';

const GROUP = 'rbac.authorization.k8s.io';
const AUTOUPDATE = 'rbac.authorization.kubernetes.io/autoupdate';
const BOOTSTRAPPING = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };

type Json = Record<string, unknown>;

function roleObject(role: BootstrapClusterRole): Json {
  return {
    kind: 'ClusterRole',
    apiVersion: `${GROUP}/v1`,
    metadata: {
      name: role.name,
      labels: { ...BOOTSTRAPPING, ...role.labels },
      annotations: { [AUTOUPDATE]: 'true' },
    },
    ...(role.aggregateFrom !== undefined
      ? {
          aggregationRule: {
            clusterRoleSelectors: [{ matchLabels: { [role.aggregateFrom]: 'true' } }],
          },
        }
      : {}),
    rules: role.rules,
  };
}

function bindingObject(b: BootstrapBinding): Json {
  return {
    kind: 'ClusterRoleBinding',
    apiVersion: `${GROUP}/v1`,
    metadata: {
      name: b.name,
      labels: { ...BOOTSTRAPPING },
      annotations: { [AUTOUPDATE]: 'true' },
    },
    roleRef: b.roleRef,
    subjects: b.subjects,
  };
}

/** What an existing role must gain, or undefined when it already holds the defaults. */
export function reconcileRole(existing: Json, wanted: BootstrapClusterRole): Json | undefined {
  if (wanted.aggregateFrom !== undefined) return undefined;
  const rules = Array.isArray(existing['rules']) ? (existing['rules'] as PolicyRule[]) : [];
  const missing = uncovered(rules, wanted.rules.flatMap(breakdownRule));
  if (missing.length === 0) return undefined;
  return { ...existing, rules: [...rules, ...missing] };
}

export function reconcileBinding(existing: Json, wanted: BootstrapBinding): Json | undefined {
  const subjects = Array.isArray(existing['subjects']) ? (existing['subjects'] as Subject[]) : [];
  const same = (a: Subject, b: Subject) =>
    a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');
  const missing = wanted.subjects.filter((w) => !subjects.some((s) => same(s, w)));
  if (missing.length === 0) return undefined;
  return { ...existing, subjects: [...subjects, ...missing] };
}

function ensure(
  store: Store,
  ctx: ServerContext,
  key: string,
  wanted: Json,
  reconcile: (existing: Json) => Json | undefined,
): void {
  const stored = store.get(key);
  if (!stored) {
    const meta = wanted['metadata'] as Json;
    const obj = {
      ...wanted,
      metadata: { ...meta, uid: ctx.uid(), creationTimestamp: formatTime(ctx.now()) },
    };
    store.create(key, JSON.stringify(obj));
    return;
  }
  const existing = JSON.parse(stored.value) as Json;
  const annotations = ((existing['metadata'] as Json | undefined)?.['annotations'] ?? {}) as Json;
  if (annotations[AUTOUPDATE] === 'false') return;
  const next = reconcile(existing);
  if (next) store.update(key, JSON.stringify(next), stored.revision);
}

/** Creates or repairs every bootstrap ClusterRole and ClusterRoleBinding in one transaction. */
export function reconcileBootstrapPolicy(store: Store, ctx: ServerContext): void {
  store.txn(() => {
    for (const role of BOOTSTRAP_CLUSTER_ROLES)
      ensure(store, ctx, `/registry/${GROUP}/clusterroles/${role.name}`, roleObject(role), (e) =>
        reconcileRole(e, role),
      );
    for (const b of BOOTSTRAP_CLUSTER_ROLE_BINDINGS)
      ensure(
        store,
        ctx,
        `/registry/${GROUP}/clusterrolebindings/${b.name}`,
        bindingObject(b),
        (e) => reconcileBinding(e, b),
      );
    aggregateOnce(store);
  });
}

/** Aggregates until nothing changes (edit feeds admin, view feeds edit), then writes. */
function aggregateOnce(store: Store): void {
  const prefix = `/registry/${GROUP}/clusterroles/`;
  const items = store.list(prefix).items;
  const all = items.map((i) => JSON.parse(i.value) as ClusterRoleLike);
  const changed = new Set<number>();
  for (let pass = 0; pass < 5; pass++) {
    let moved = false;
    all.forEach((role, i) => {
      if (!role.aggregationRule) return;
      const rules = aggregatedRules(role, all);
      if (JSON.stringify(role.rules ?? []) === JSON.stringify(rules)) return;
      all[i] = { ...role, rules };
      changed.add(i);
      moved = true;
    });
    if (!moved) break;
  }
  for (const i of changed) {
    const item = items[i];
    if (item) store.update(item.key, JSON.stringify(all[i]), item.revision);
  }
}

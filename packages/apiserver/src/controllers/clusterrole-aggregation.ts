// kube-controller-manager's clusterrole-aggregation controller: a ClusterRole with an
// aggregationRule holds the union of the rules of every other ClusterRole its selectors match
// (in name order, each distinct rule once). Any ClusterRole change requeues every aggregated
// role, since a label or rule edit anywhere can change what they gather.
import type { ServerParts } from '../http/context.ts';
import { labelSelectorFromObject, type LabelSelectorObject } from '../selectors/index.ts';
import type { WatchEvent } from '../storage/store.ts';
import { reportToStderr, type ControllerOptions } from './controller-options.ts';
import { LogDrivenLoop } from './log-driven-loop.ts';
import { parseObject, readStored, resourceAt, writeStored } from './stored-objects.ts';

const PREFIX = '/registry/rbac.authorization.k8s.io/clusterroles/';

export interface ClusterRoleLike {
  metadata: { name?: string; labels?: Record<string, string> };
  rules?: unknown[];
  aggregationRule?: { clusterRoleSelectors?: LabelSelectorObject[] };
}

/** The rules an aggregated role should hold, given every ClusterRole. Pure. */
export function aggregatedRules(role: ClusterRoleLike, all: readonly ClusterRoleLike[]): unknown[] {
  const out: unknown[] = [];
  const seen = new Set<string>();
  const byName = [...all].sort((a, b) =>
    (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1,
  );
  for (const sel of role.aggregationRule?.clusterRoleSelectors ?? []) {
    const selector = labelSelectorFromObject(sel);
    for (const other of byName) {
      if (other.metadata.name === role.metadata.name) continue;
      if (!selector.matches(other.metadata.labels ?? {})) continue;
      for (const rule of other.rules ?? []) {
        const text = JSON.stringify(rule);
        if (seen.has(text)) continue;
        seen.add(text);
        out.push(rule);
      }
    }
  }
  return out;
}

export class ClusterRoleAggregation {
  readonly #parts: ServerParts;
  readonly #loop: LogDrivenLoop;
  /** Names of the ClusterRoles that have an aggregationRule. */
  readonly #aggregated = new Set<string>();

  constructor(parts: ServerParts, options: ControllerOptions = {}) {
    this.#parts = parts;
    this.#loop = new LogDrivenLoop(parts.store, {
      name: 'clusterrole-aggregation-controller',
      observe: (e) => this.#observe(e),
      reconcile: (name) => this.#reconcile(name),
      reset: () => this.#aggregated.clear(),
      onError: options.onError ?? reportToStderr,
      follow: { watchPrefix: PREFIX, listPrefix: PREFIX },
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
    const name = e.key.slice(PREFIX.length);
    const obj =
      e.type === 'DELETED' ? undefined : (parseObject(e.value) as ClusterRoleLike | undefined);
    if (obj?.aggregationRule) this.#aggregated.add(name);
    else this.#aggregated.delete(name);
    for (const n of this.#aggregated) this.#loop.enqueue(n);
  }

  #reconcile(name: string): void {
    const { store, registry } = this.#parts;
    const r = resourceAt(registry, { group: 'rbac.authorization.k8s.io', plural: 'clusterroles' });
    const current = readStored(store, `${PREFIX}${name}`);
    if (!r || !current) return;
    const role = current.obj as unknown as ClusterRoleLike;
    if (!role.aggregationRule) return;
    const all = store
      .list(PREFIX)
      .items.map((i) => parseObject(i.value) as ClusterRoleLike | undefined)
      .filter((o): o is ClusterRoleLike => o !== undefined);
    const rules = aggregatedRules(role, all);
    writeStored(store, r, current.stored.key, current.obj.metadata.uid, (obj) => {
      if (JSON.stringify(obj['rules'] ?? []) === JSON.stringify(rules)) return false;
      obj['rules'] = rules;
      return true;
    });
  }
}

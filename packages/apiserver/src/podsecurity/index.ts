// Pod Security admission in the embedded API server (kube's PodSecurity admission plugin): a Pod
// create is checked against its namespace's enforce level (403 naming every violated field),
// warn level (Warning headers) and audit level (kept for the audit log); a namespace write with
// invalid pod-security labels is 422, and tightening enforce warns about existing Pods.
import { invalid as invalidField } from '@agent-sandbox/crd-schema';
import { invalid, statusError } from '../errors.ts';
import type { Call } from '../http/context.ts';
import type { KubeObject } from '../objects.ts';
import type { StoreReader } from '../storage/store.ts';
import {
  describe,
  evaluate,
  formatLevelVersion,
  policyFor,
  PRIVILEGED_DEFAULTS,
  reasons,
  type LevelVersion,
  type PodLike,
  type PodSecurityPolicy,
} from './policy.ts';

export {
  PRIVILEGED_DEFAULTS,
  formatLevelVersion,
  type Level,
  type LevelVersion,
  type PodSecurityPolicy,
} from './policy.ts';

/** A namespace's default when it has no labels; `baseline` is what sandboxes get (issue 14). */
export function enforcing(level: LevelVersion['level']): PodSecurityPolicy {
  const lv: LevelVersion = { level, version: 'latest' };
  return { enforce: lv, audit: lv, warn: lv };
}

function labelsOf(obj: KubeObject | undefined): Record<string, string> | undefined {
  return obj?.metadata.labels;
}

export class PodSecurity {
  readonly #store: StoreReader;
  readonly #defaults: PodSecurityPolicy;

  constructor(store: StoreReader, defaults: PodSecurityPolicy = PRIVILEGED_DEFAULTS) {
    this.#store = store;
    this.#defaults = defaults;
  }

  /** Admission of one write; throws the refusal, adds warnings to `call`. */
  admit(call: Call, obj: KubeObject, old: KubeObject | undefined): void {
    if (call.r.group !== '' || call.req.subresource !== undefined) return;
    if (call.r.plural === 'pods' && old === undefined) this.#admitPod(call, obj);
    if (call.r.plural === 'namespaces') this.#admitNamespace(call, obj, old);
  }

  #namespacePolicy(namespace: string): PodSecurityPolicy {
    const stored = this.#store.get(`/registry/core/namespaces/${namespace}`);
    const ns = stored ? (JSON.parse(stored.value) as KubeObject) : undefined;
    return policyFor(labelsOf(ns), this.#defaults).policy;
  }

  #admitPod(call: Call, pod: KubeObject): void {
    const policy = this.#namespacePolicy(call.req.namespace ?? '');
    const denied = evaluate(policy.enforce, pod as PodLike);
    if (denied.length > 0) {
      // Validating admission runs after a generateName became the name.
      const name = pod.metadata.name ?? '';
      const why = `violates PodSecurity "${formatLevelVersion(policy.enforce)}": ${describe(denied)}`;
      throw statusError(403, 'Forbidden', `pods${name ? ` "${name}"` : ''} is forbidden: ${why}`, {
        ...(name ? { name } : {}),
        kind: 'pods',
      });
    }
    const warned = evaluate(policy.warn, pod as PodLike);
    if (warned.length > 0)
      call.warnings.push(
        `would violate PodSecurity "${formatLevelVersion(policy.warn)}": ${describe(warned)}`,
      );
    const audited = evaluate(policy.audit, pod as PodLike);
    if (audited.length > 0)
      call.audit = {
        ...call.audit,
        'pod-security.kubernetes.io/audit-violations': `would violate PodSecurity "${formatLevelVersion(policy.audit)}": ${describe(audited)}`,
      };
  }

  #admitNamespace(call: Call, ns: KubeObject, old: KubeObject | undefined): void {
    const next = policyFor(labelsOf(ns), this.#defaults);
    const prev = old ? policyFor(labelsOf(old), this.#defaults) : undefined;
    const changedErrors = JSON.stringify(next.errors) !== JSON.stringify(prev?.errors ?? []);
    if (next.errors.length > 0 && (!prev || prev.errors.length === 0 || changedErrors))
      throw invalid(
        { group: '', plural: 'namespaces', kind: 'Namespace' },
        ns.metadata.name ?? '',
        next.errors.map((e) => {
          const issue = invalidField(`metadata.labels[${e.label}]`, e.value, e.message);
          return { field: issue.field, message: issue.message, type: issue.type };
        }),
      );
    if (!prev) return;
    const [a, b] = [next.policy.enforce, prev.policy.enforce];
    if (a.level === b.level && a.version === b.version) return;
    if (a.level === 'privileged') return;
    const levels = ['privileged', 'baseline', 'restricted'];
    if (a.version === b.version && levels.indexOf(a.level) <= levels.indexOf(b.level)) return;
    call.warnings.push(...this.#existingPodWarnings(ns.metadata.name ?? '', a));
  }

  /** kube's warnings for Pods the new enforce level would refuse, grouped by reasons. */
  #existingPodWarnings(namespace: string, enforce: LevelVersion): string[] {
    const pods = this.#store.list(`/registry/core/pods/${namespace}/`).items;
    const byReason = new Map<string, { first: string; count: number }>();
    for (const item of pods) {
      const pod = JSON.parse(item.value) as KubeObject;
      const v = evaluate(enforce, pod as PodLike);
      if (v.length === 0) continue;
      const key = reasons(v);
      const name = pod.metadata.name ?? '';
      const seen = byReason.get(key);
      if (!seen) byReason.set(key, { first: name, count: 1 });
      else
        byReason.set(key, { first: name < seen.first ? name : seen.first, count: seen.count + 1 });
    }
    if (byReason.size === 0) return [];
    const lines = [...byReason.entries()].map(([warning, { first, count }]) => {
      if (count === 1) return `${first}: ${warning}`;
      if (count === 2) return `${first} (and 1 other pod): ${warning}`;
      return `${first} (and ${count - 1} other pods): ${warning}`;
    });
    return [
      `existing pods in namespace "${namespace}" violate the new PodSecurity enforce level "${formatLevelVersion(enforce)}"`,
      ...lines.sort(),
    ];
  }
}

// The event filters of the claim controller's watches (spec §12.1), as upstream's predicates:
// an owned Sandbox's update reaches its claim only when something the claim mirrors changed
// (deletion started, podIPs, the Ready or Finished condition); pool updates only on a generation
// change (status writes are not the claim's business); templates only when created (claims
// stuck on TemplateNotFound retry at once; edits reach bound Sandboxes on their next pass).
import type { KubeObject } from '@agent-sandbox/kube-types';
import type { EventFilter } from '@agent-sandbox/runtime';
import { isDeepStrictEqual } from 'node:util';
import type { SandboxObj } from '../extensions/resources.ts';

function conditionOf(s: SandboxObj, type: string): unknown {
  return s.status?.conditions?.find((c) => c.type === type);
}

/** sandboxStatusRelevantChange: whether an update of a claimed Sandbox concerns its claim. */
export function sandboxStatusRelevantChange(oldObj: KubeObject, newObj: KubeObject): boolean {
  const o = oldObj as SandboxObj;
  const n = newObj as SandboxObj;
  if ((o.metadata.deletionTimestamp === undefined) !== (n.metadata.deletionTimestamp === undefined))
    return true;
  if (!isDeepStrictEqual(o.status?.podIPs ?? [], n.status?.podIPs ?? [])) return true;
  return ['Ready', 'Finished'].some(
    (type) => !isDeepStrictEqual(conditionOf(o, type), conditionOf(n, type)),
  );
}

export const OWNED_SANDBOX_FILTER: EventFilter = { update: sandboxStatusRelevantChange };

/** Pool events that reach its unbound claims: create, delete and spec (generation) changes. */
export const WARM_POOL_FILTER: EventFilter = {
  update: (o, n) => o.metadata.generation !== n.metadata.generation,
};

/** Template events that reach claims: creations only. */
export const TEMPLATE_FILTER: EventFilter = { update: () => false, delete: () => false };

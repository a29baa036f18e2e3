// When the bench's own watches first saw each Sandbox and Pod of the namespace reach a state (epoch
// ms, per object name): a Sandbox taken by a claim (the warm adoption patch) and Ready; a Pod
// seen, Running and Ready. The controllers and the node agent watch the same server, so these are
// what they would see, give or take a delivery. A failed watch is re-opened after a pause: the
// bench only loses a point, never the run.
import { SANDBOXES } from '@agent-sandbox/controllers';
import { PODS, type KubeClient, type ResourceRef } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';

export type Milestone =
  'adoption patch seen' | 'Sandbox Ready seen' | 'Pod seen' | 'Pod Running seen' | 'Pod Ready seen';
export type Milestones = Map<string, Partial<Record<Milestone, number>>>;

interface Observed extends KubeObject {
  status?: { phase?: string; conditions?: { type?: string; status?: string }[] };
}

const ready = (o: Observed): boolean =>
  o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** The milestones one version of a Sandbox shows. Pure. */
export function sandboxMilestones(o: Observed): Milestone[] {
  const out: Milestone[] = [];
  const owned = o.metadata.ownerReferences?.some(
    (r) => r.controller === true && r.kind === 'SandboxClaim',
  );
  if (owned) out.push('adoption patch seen');
  if (ready(o)) out.push('Sandbox Ready seen');
  return out;
}

/** The milestones one version of a Pod shows. Pure. */
export function podMilestones(o: Observed): Milestone[] {
  const out: Milestone[] = ['Pod seen'];
  if (o.status?.phase === 'Running') out.push('Pod Running seen');
  if (ready(o)) out.push('Pod Ready seen');
  return out;
}

function watchInto(
  client: KubeClient,
  ref: ResourceRef,
  namespace: string,
  of: (o: Observed) => Milestone[],
  seen: Milestones,
  signal: AbortSignal,
): void {
  void (async () => {
    while (!signal.aborted) {
      try {
        for await (const e of client.watch<Observed>(ref, namespace, { signal })) {
          if (e.type === 'BOOKMARK' || !('name' in e.object.metadata)) continue;
          const now = Date.now();
          const name = e.object.metadata.name ?? '';
          const points = seen.get(name) ?? {};
          for (const m of of(e.object)) points[m] ??= now;
          seen.set(name, points);
        }
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  })();
}

/** Watches the namespace's Sandboxes and Pods until `signal` aborts. */
export function watchMilestones(
  client: KubeClient,
  namespace: string,
  signal: AbortSignal,
): { sandboxes: Milestones; pods: Milestones } {
  const sandboxes: Milestones = new Map();
  const pods: Milestones = new Map();
  watchInto(client, SANDBOXES, namespace, sandboxMilestones, sandboxes, signal);
  watchInto(client, PODS, namespace, podMilestones, pods, signal);
  return { sandboxes, pods };
}

// The driver of the restart-chaos scenario: creates the planned Sandboxes on schedule and patches
// spec.operatingMode (suspend, resume) and spec.service, while the manager is being killed and restarted.
// It records what the API server answered to each of its own writes (uid, generation, spec), so the
// final check can prove the controller never wrote a spec.
import { SANDBOXES } from '@agent-sandbox/controllers';
import { isNotFound, type KubeClient } from '@agent-sandbox/kube';
import type { ChaosPlan, PlannedSandbox } from './chaos-plan.ts';
import type { DriverRecord, SandboxObject } from './invariants.ts';

type SandboxSpec = SandboxObject['spec'];

export function sandboxManifest(
  namespace: string,
  planned: PlannedSandbox,
  startMs: number,
): SandboxObject {
  const spec: SandboxObject['spec'] = {
    podTemplate: {
      metadata: { labels: { app: 'chaos' } },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [{ name: 'main', image: 'busybox', ports: [{ containerPort: 8080 }] }],
      },
    },
    operatingMode: planned.initialMode,
  };
  if (planned.service !== undefined) spec.service = planned.service;
  if (planned.volumeClaimTemplates.length > 0)
    spec.volumeClaimTemplates = planned.volumeClaimTemplates.map((name) => ({
      metadata: { name },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    }));
  if (planned.expiry !== undefined) {
    spec.shutdownTime = new Date(startMs + planned.expiry.atMs).toISOString();
    spec.shutdownPolicy = planned.expiry.policy;
  }
  return {
    apiVersion: 'agents.x-k8s.io/v1beta1',
    kind: 'Sandbox',
    metadata: { name: planned.name, namespace },
    spec,
  };
}

export interface DriverResult {
  records: DriverRecord[];
  /** Failed writes other than NotFound on a Sandbox whose Delete expiry has passed. */
  errors: string[];
  /** Spec patches that found the Sandbox already deleted by its expiry. */
  skippedExpired: number;
}

/** Runs the plan's writes on schedule (ms after `startMs`), up to `parallel` at once. */
export async function runDriver(
  client: KubeClient,
  namespace: string,
  plan: ChaosPlan,
  startMs: number,
  parallel = 8,
): Promise<DriverResult> {
  const records = new Map<string, DriverRecord>();
  const errors: string[] = [];
  let skippedExpired = 0;
  /** A create (no patch) or a merge patch of the spec. */
  type Action = { atMs: number; planned: PlannedSandbox; patch?: Partial<SandboxSpec> };
  const actions: Action[] = plan.sandboxes.flatMap((planned) => [
    { atMs: planned.createAtMs, planned },
    ...planned.ops.map((op) => ({ atMs: op.atMs, planned, patch: { operatingMode: op.mode } })),
    ...planned.serviceOps.map((op) => ({ atMs: op.atMs, planned, patch: { service: op.service } })),
  ]);
  actions.sort((a, b) => a.atMs - b.atMs);

  const remember = (planned: PlannedSandbox, answer: SandboxObject): void => {
    records.set(planned.name, {
      planned,
      ...(answer.metadata.uid ? { uid: answer.metadata.uid } : {}),
      ...(answer.spec.shutdownTime ? { shutdownTime: answer.spec.shutdownTime } : {}),
      mode: answer.spec.operatingMode ?? 'Running',
      generation: answer.metadata.generation ?? 0,
      spec: answer.spec,
    });
  };
  const act = async ({ planned, patch }: Action): Promise<void> => {
    if (patch === undefined) {
      remember(
        planned,
        await client.create(SANDBOXES, sandboxManifest(namespace, planned, startMs)),
      );
      return;
    }
    const before = records.get(planned.name);
    if (before?.uid === undefined) throw new Error(`${planned.name}: patched before its create`);
    try {
      const patched = await client.patch<SandboxObject>(SANDBOXES, namespace, planned.name, {
        type: 'merge',
        body: { spec: patch },
      });
      remember(planned, patched);
    } catch (err: unknown) {
      const expiredAt = before.shutdownTime ? Date.parse(before.shutdownTime) : Infinity;
      if (isNotFound(err) && planned.expiry?.policy === 'Delete' && Date.now() >= expiredAt) {
        skippedExpired++;
        return;
      }
      throw err;
    }
  };

  // Per Sandbox, writes run in order; across Sandboxes up to `parallel` run at once.
  const chains = new Map<string, Promise<void>>();
  const inFlight = new Set<Promise<void>>();
  for (const action of actions) {
    const wait = startMs + action.atMs - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    while (inFlight.size >= parallel) await Promise.race(inFlight);
    const previous = chains.get(action.planned.name) ?? Promise.resolve();
    const run = previous
      .then(() => act(action))
      .catch((err: unknown) => {
        errors.push(
          `${action.planned.name} ${JSON.stringify(action.patch ?? 'create')}: ${String(err)}`,
        );
      });
    chains.set(action.planned.name, run);
    inFlight.add(run);
    void run.finally(() => inFlight.delete(run));
  }
  await Promise.all(chains.values());
  return {
    records: plan.sandboxes.map(
      (planned) =>
        records.get(planned.name) ?? { planned, mode: planned.initialMode, generation: 0 },
    ),
    errors,
    skippedExpired,
  };
}

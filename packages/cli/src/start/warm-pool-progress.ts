// Waits for a SandboxWarmPool to have all its members Ready, reporting each change of the ready
// count (and why a member's Pod waits, when it says), polling the API server.
import { SANDBOX_WARM_POOLS } from '@agent-sandbox/controllers';
import { PODS, type KubeClient } from '@agent-sandbox/kube';
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import { setTimeout as sleep } from 'node:timers/promises';

interface PoolStatus {
  spec?: { replicas?: number };
  status?: { readyReplicas?: number };
}

/**
 * Pure: why the first Pod that is not running waits, e.g. `ErrImageNeverPull: ...`. A plain
 * ContainerCreating says nothing; one with a message is a sandbox being retried (its cause).
 */
export function waitingReason(pods: readonly Pod[]): string | undefined {
  for (const pod of pods) {
    for (const c of pod.status?.containerStatuses ?? []) {
      const w = c.state?.waiting;
      if (w?.reason && (w.reason !== 'ContainerCreating' || w.message))
        return `${w.reason}${w.message ? `: ${w.message}` : ''}`;
    }
  }
  return undefined;
}

export async function waitForWarmPool(
  client: KubeClient,
  namespace: string,
  name: string,
  o: { report: (line: string) => void; signal?: AbortSignal; pollMs?: number },
): Promise<void> {
  const started = Date.now();
  let last = '';
  for (;;) {
    o.signal?.throwIfAborted();
    const pool = await client.get<PoolStatus & KubeObject>(SANDBOX_WARM_POOLS, namespace, name);
    const want = pool.spec?.replicas ?? 0;
    const ready = pool.status?.readyReplicas ?? 0;
    let line = `warm pool ${namespace}/${name}: ${ready}/${want} ready`;
    if (ready < want) {
      const pods = await client.list<Pod & KubeObject>(PODS, namespace);
      const why = waitingReason(pods.items);
      if (why) line += ` (a Pod waits: ${why})`;
    }
    if (line !== last) {
      o.report(`${line} after ${Math.round((Date.now() - started) / 1000)} s`);
      last = line;
    }
    if (ready >= want) return;
    await sleep(o.pollMs ?? 500, undefined, o.signal ? { signal: o.signal } : {});
  }
}

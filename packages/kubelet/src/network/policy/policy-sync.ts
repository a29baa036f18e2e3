// Keeps the NetworkPolicy table current: a sync after any Pod, Namespace or NetworkPolicy event
// (coalesced, so a burst costs one nft transaction) and every `periodMs` regardless, so a missed
// event or a failed apply heals by itself (level-triggered, like the enforcer it drives).
import type { KubeObject } from '@agent-sandbox/kube-types';
import { Informer, NAMESPACES, PODS, type KubeClient, type ResourceRef } from '@agent-sandbox/kube';
import { NETWORK_POLICIES } from './policy-enforcer.ts';

export interface PolicySyncOptions {
  client: KubeClient;
  /** One level-triggered pass (PolicyEnforcer.sync). */
  sync(): Promise<void>;
  /** Told about a failed pass; the next event or period retries. */
  onError(err: unknown): void;
  /** @default 30_000 */
  periodMs?: number;
  /** Quiet time that coalesces a burst of events. @default 100 */
  settleMs?: number;
}

const WATCHED: readonly ResourceRef[] = [PODS, NAMESPACES, NETWORK_POLICIES];

/**
 * Runs until `signal` aborts; resolves once the watches and any pass in flight ended. Never
 * rejects. Passes never overlap: a trigger during a pass schedules one more after it.
 */
export async function runPolicySync(o: PolicySyncOptions, signal: AbortSignal): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let again = false;
  const pass = (): void => {
    timer = undefined;
    if (signal.aborted) return;
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = o
      .sync()
      .catch((err: unknown) => o.onError(err))
      .finally(() => {
        inFlight = undefined;
        if (again) {
          again = false;
          trigger();
        }
      });
  };
  const trigger = (): void => {
    if (timer === undefined && !signal.aborted) timer = setTimeout(pass, o.settleMs ?? 100);
  };
  const periodic = setInterval(trigger, o.periodMs ?? 30_000);
  const handlers = { onAdd: trigger, onUpdate: trigger, onDelete: trigger };
  const runs = WATCHED.map((resource) => {
    const informer = new Informer<KubeObject>({ client: o.client, resource });
    informer.addHandlers(handlers);
    return informer.run(signal);
  });
  trigger();
  await Promise.all(runs);
  clearInterval(periodic);
  clearTimeout(timer);
  await inFlight;
}

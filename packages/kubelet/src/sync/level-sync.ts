// Runs a level-triggered pass after any event on the watched resources (coalesced, so a burst
// costs one pass) and every `periodMs` regardless, so a missed event or a failed pass heals by
// itself. The NetworkPolicy enforcer and the volume binder run this way.
import type { KubeObject } from '@agent-sandbox/kube-types';
import { Informer, type KubeClient, type ResourceRef } from '@agent-sandbox/kube';

export interface LevelSyncOptions {
  client: KubeClient;
  /** Resources whose add/update/delete events trigger a pass. */
  watch: readonly ResourceRef[];
  /** One level-triggered pass. */
  sync(): Promise<void>;
  /** Told about a failed pass; the next event or period retries. */
  onError(err: unknown): void;
  /** @default 30_000 */
  periodMs?: number;
  /** Quiet time that coalesces a burst of events. @default 100 */
  settleMs?: number;
  /** Delay of the retry after a failed pass (sooner than the next period). @default 1_000 */
  retryMs?: number;
}

/**
 * Runs until `signal` aborts; resolves once the watches and any pass in flight ended. Never
 * rejects. Passes never overlap: a trigger during a pass schedules one more after it.
 */
export async function runLevelSync(o: LevelSyncOptions, signal: AbortSignal): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let again = false;
  let retry: NodeJS.Timeout | undefined;
  const pass = (): void => {
    timer = undefined;
    if (signal.aborted) return;
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = o
      .sync()
      .catch((err: unknown) => {
        o.onError(err);
        retry ??= setTimeout(() => {
          retry = undefined;
          trigger();
        }, o.retryMs ?? 1_000);
      })
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
  const runs = o.watch.map((resource) => {
    const informer = new Informer<KubeObject>({ client: o.client, resource });
    informer.addHandlers(handlers);
    return informer.run(signal);
  });
  trigger();
  await Promise.all(runs);
  clearInterval(periodic);
  clearTimeout(timer);
  clearTimeout(retry);
  await inFlight;
}

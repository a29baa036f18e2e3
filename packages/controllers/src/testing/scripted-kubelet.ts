// Plays the kubelet on the embedded API server (which runs no Pods yet): every Pod that appears
// in the namespace is reported Running and Ready with its own IP, as kwok does on the cluster.
// Pods on SCRIPTED_SCHEDULER are left alone: their tests script them.
import { Informer, PODS, isNotFound, type KubeClient } from '@agent-sandbox/kube';
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import { SCRIPTED_SCHEDULER, runningPodStatus } from './harness.ts';

export interface ScriptedKubelet {
  /** Pods it has marked Running. */
  readonly started: number;
  stop(): Promise<void>;
}

export function startScriptedKubelet(client: KubeClient, namespace: string): ScriptedKubelet {
  const abort = new AbortController();
  const informer = new Informer<Pod & KubeObject>({ client, resource: PODS, namespace });
  const done = new Set<string>();
  let next = 1;
  let started = 0;
  const start = (pod: Pod & KubeObject): void => {
    const uid = pod.metadata.uid ?? '';
    if (done.has(uid) || pod.metadata.deletionTimestamp !== undefined) return;
    if (pod.spec?.schedulerName === SCRIPTED_SCHEDULER || pod.status?.phase === 'Running') return;
    done.add(uid);
    const n = next++;
    const ip = `10.244.${(n >> 8) & 255}.${n & 255}`;
    void client
      .patch(
        PODS,
        namespace,
        pod.metadata.name ?? '',
        { type: 'merge', body: { status: runningPodStatus(ip) } },
        { subresource: 'status', signal: abort.signal },
      )
      .then(
        () => started++,
        (err: unknown) => {
          if (!isNotFound(err) && !abort.signal.aborted) done.delete(uid);
        },
      );
  };
  informer.addHandlers({ onAdd: start, onUpdate: (_old, pod) => start(pod) });
  const running = informer.run(abort.signal);
  return {
    get started() {
      return started;
    },
    stop: async () => {
      abort.abort();
      await running;
    },
  };
}

// Warning Events about one Pod, as the kubelet's recorder writes them (source component
// `kubelet`, host the node). A repeat of the last event bumps that Event's `count` and
// `lastTimestamp` (client-go's EventCorrelator) instead of creating another, so a retry loop
// makes one Event, not one per attempt. Best effort: a failed write never fails the Pod.
import { formatTime, type Event, type Pod } from '@agent-sandbox/kube-types';
import { randomBytes } from 'node:crypto';

/** The API writes behind the events (NodeAgent: the node's client). */
export interface PodEventSink {
  create(event: Event): Promise<void>;
  /** Merges `count` and `lastTimestamp` into Event `namespace/name`; false when it is gone. */
  bump(namespace: string, name: string, count: number, lastTimestamp: string): Promise<boolean>;
}

/** The core/v1 Event `reason`/`message` about `pod`, from the kubelet on `host`, at `now`. */
export function podWarning(
  pod: Pod,
  host: string,
  reason: string,
  message: string,
  now: Date,
): Event {
  const m = pod.metadata ?? {};
  const time = formatTime(now.getTime());
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${m.name}.${randomBytes(8).toString('hex')}`, namespace: m.namespace ?? '' },
    involvedObject: {
      apiVersion: 'v1',
      kind: 'Pod',
      name: m.name ?? '',
      namespace: m.namespace ?? '',
      ...(m.uid ? { uid: m.uid } : {}),
      ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
    },
    type: 'Warning',
    reason,
    message,
    source: { component: 'kubelet', host },
    reportingComponent: 'kubelet',
    reportingInstance: host,
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
  };
}

/** One Pod's warnings; the last one is remembered so its repeats are counted. */
export class PodEvents {
  readonly #sink: PodEventSink;
  readonly #host: string;
  #last: { key: string; namespace: string; name: string; count: number } | undefined;

  constructor(sink: PodEventSink, host: string) {
    this.#sink = sink;
    this.#host = host;
  }

  /** Writes the warning (or counts its repeat); resolves to the write error, never throws. */
  async warn(pod: Pod, reason: string, message: string): Promise<Error | undefined> {
    const key = JSON.stringify([reason, message]);
    const now = new Date();
    try {
      const last = this.#last;
      if (last?.key === key) {
        const count = last.count + 1;
        if (await this.#sink.bump(last.namespace, last.name, count, formatTime(now.getTime()))) {
          last.count = count;
          return undefined;
        }
      }
      const event = podWarning(pod, this.#host, reason, message, now);
      await this.#sink.create(event);
      const { namespace = '', name = '' } = event.metadata;
      this.#last = { key, namespace, name, count: 1 };
      return undefined;
    } catch (e) {
      return e instanceof Error ? e : new Error(String(e));
    }
  }
}

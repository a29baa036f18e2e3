// Warning Events about one Pod, as the kubelet's recorder writes them (source component
// `kubelet`, host the node). A repeat of an earlier event — same reason and message, not only
// the last one — bumps that Event's `count` and `lastTimestamp` (client-go's EventCorrelator
// keeps such a cache of the events it wrote) instead of creating another, so a retry loop whose
// cause alternates (a bridge, then a ConfigMap) still makes one Event per cause, not one per
// attempt. Best effort: a failed write never fails the Pod.
import { EVENTS, isNotFound, type KubeClient } from '@agent-sandbox/kube';
import { formatTime, type Event, type KubeObject, type Pod } from '@agent-sandbox/kube-types';
import { randomBytes } from 'node:crypto';

/**
 * The distinct (reason, message) pairs one Pod remembers; the least recently seen goes first.
 * A message that changes with every attempt (a timestamp in it) cannot grow the cache for good.
 */
export const POD_EVENT_CACHE_SIZE = 32;

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

/** The sink over the API server: create, and a merge patch of the count (node's client). */
export function kubeEventSink(client: KubeClient): PodEventSink {
  return {
    create: async (e) => void (await client.create(EVENTS, e as Event & KubeObject)),
    bump: (ns, name, count, lastTimestamp) =>
      client.patch(EVENTS, ns, name, { type: 'merge', body: { count, lastTimestamp } }).then(
        () => true,
        (e: unknown) => (isNotFound(e) ? false : Promise.reject(e)),
      ),
  };
}

interface Written {
  namespace: string;
  name: string;
  count: number;
}

/** One Pod's warnings; each (reason, message) written is remembered so its repeats are counted. */
export class PodEvents {
  readonly #sink: PodEventSink;
  readonly #host: string;
  /** By JSON [reason, message], in the order last seen (Map keeps insertion order). */
  readonly #written = new Map<string, Written>();

  constructor(sink: PodEventSink, host: string) {
    this.#sink = sink;
    this.#host = host;
  }

  /** Writes the warning (or counts its repeat); resolves to the write error, never throws. */
  async warn(pod: Pod, reason: string, message: string): Promise<Error | undefined> {
    const key = JSON.stringify([reason, message]);
    const now = new Date();
    try {
      const seen = this.#written.get(key);
      if (seen) {
        const count = seen.count + 1;
        if (await this.#sink.bump(seen.namespace, seen.name, count, formatTime(now.getTime()))) {
          seen.count = count;
          this.#remember(key, seen);
          return undefined;
        }
      }
      const event = podWarning(pod, this.#host, reason, message, now);
      await this.#sink.create(event);
      const { namespace = '', name = '' } = event.metadata;
      this.#remember(key, { namespace, name, count: 1 });
      return undefined;
    } catch (e) {
      return e instanceof Error ? e : new Error(String(e));
    }
  }

  #remember(key: string, w: Written): void {
    this.#written.delete(key);
    this.#written.set(key, w);
    if (this.#written.size > POD_EVENT_CACHE_SIZE)
      this.#written.delete(this.#written.keys().next().value as string);
  }
}

// core/v1 Events about extension objects (claims from `sandboxclaim-controller`, pools from
// `sandboxwarmpool-controller`): best effort, a failed event never fails the pass;
// `--disable-claim-events` turns the claim's off (one write less per claim).
import { formatTime, type Event, type KubeObject } from '@agent-sandbox/kube-types';
import { EVENTS, type KubeClient } from '@agent-sandbox/kube';
import { randomBytes } from 'node:crypto';

export interface ExtensionEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  action: string;
  note: string;
}

export function extensionEvent(
  obj: KubeObject,
  event: ExtensionEvent,
  now: Date,
  source: EventSource,
): Event & KubeObject {
  const { component } = source;
  const time = formatTime(now);
  const name = obj.metadata.name ?? '';
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: `${name}.${randomBytes(8).toString('hex')}`,
      namespace: obj.metadata.namespace ?? '',
    },
    involvedObject: {
      apiVersion: obj.apiVersion ?? 'extensions.agents.x-k8s.io/v1beta1',
      kind: obj.kind ?? source.kind,
      name,
      namespace: obj.metadata.namespace ?? '',
      ...(obj.metadata.uid !== undefined ? { uid: obj.metadata.uid } : {}),
    },
    type: event.type,
    reason: event.reason,
    action: event.action,
    message: event.note,
    source: { component },
    reportingComponent: component,
    reportingInstance: component,
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
  };
}

/** Who reports, and the kind of the objects it reports about (cached objects may lack it). */
export interface EventSource {
  component: string;
  kind: string;
}

/** Contract: record() never throws; it returns the failure for the caller to log. */
export class ExtensionEventRecorder {
  readonly #client: KubeClient | undefined;
  readonly #source: EventSource;

  /** `client` undefined: events are off. */
  constructor(client: KubeClient | undefined, source: EventSource) {
    this.#client = client;
    this.#source = source;
  }

  async record(obj: KubeObject, event: ExtensionEvent, now: Date): Promise<Error | undefined> {
    if (this.#client === undefined) return undefined;
    try {
      await this.#client.create(EVENTS, extensionEvent(obj, event, now, this.#source));
      return undefined;
    } catch (err: unknown) {
      return err instanceof Error ? err : new Error(String(err));
    }
  }
}

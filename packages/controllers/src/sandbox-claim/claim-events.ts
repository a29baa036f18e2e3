// core/v1 Events about a SandboxClaim from `sandboxclaim-controller` (spec §12): best effort, a
// failed event never fails the pass; `--disable-claim-events` turns them off (one write less per
// claim).
import { formatTime, type Event, type KubeObject } from '@agent-sandbox/kube-types';
import { EVENTS, type KubeClient } from '@agent-sandbox/kube';
import { randomBytes } from 'node:crypto';

export const CLAIM_EVENT_COMPONENT = 'sandboxclaim-controller';

export interface ClaimEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  action: string;
  note: string;
}

export function claimEvent(obj: KubeObject, event: ClaimEvent, now: Date): Event & KubeObject {
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
      kind: obj.kind ?? 'SandboxClaim',
      name,
      namespace: obj.metadata.namespace ?? '',
      ...(obj.metadata.uid !== undefined ? { uid: obj.metadata.uid } : {}),
    },
    type: event.type,
    reason: event.reason,
    action: event.action,
    message: event.note,
    source: { component: CLAIM_EVENT_COMPONENT },
    reportingComponent: CLAIM_EVENT_COMPONENT,
    reportingInstance: CLAIM_EVENT_COMPONENT,
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
  };
}

export class ClaimEventRecorder {
  readonly #client: KubeClient | undefined;

  /** `client` undefined: events are off. */
  constructor(client: KubeClient | undefined) {
    this.#client = client;
  }

  async record(obj: KubeObject, event: ClaimEvent, now: Date): Promise<Error | undefined> {
    if (this.#client === undefined) return undefined;
    try {
      await this.#client.create(EVENTS, claimEvent(obj, event, now));
      return undefined;
    } catch (err: unknown) {
      return err instanceof Error ? err : new Error(String(err));
    }
  }
}

// core/v1 Events about a Sandbox (spec §11.1: recorder `sandbox-controller`). Recording is best
// effort, as client-go's recorder: a failed event write never fails the reconcile.
import type { v1beta1 } from '@agent-sandbox/api';
import type { Event, KubeObject } from '@agent-sandbox/kube-types';
import { EVENTS, type KubeClient } from '@agent-sandbox/kube';
import { randomBytes } from 'node:crypto';

/** The events recorder (component) name of the Sandbox controller. */
export const SANDBOX_EVENT_COMPONENT = 'sandbox-controller';

export interface SandboxEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  action: string;
  note: string;
}

/** The core/v1 Event for `event` about `sandbox` at `now`. */
export function sandboxEvent(sandbox: v1beta1.Sandbox, event: SandboxEvent, now: Date): Event {
  const time = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const name = sandbox.metadata.name ?? '';
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: `${name}.${randomBytes(8).toString('hex')}`,
      namespace: sandbox.metadata.namespace ?? '',
    },
    involvedObject: {
      apiVersion: sandbox.apiVersion ?? 'agents.x-k8s.io/v1beta1',
      kind: sandbox.kind ?? 'Sandbox',
      name,
      namespace: sandbox.metadata.namespace ?? '',
      ...(sandbox.metadata.uid !== undefined ? { uid: sandbox.metadata.uid } : {}),
      ...(sandbox.metadata.resourceVersion !== undefined
        ? { resourceVersion: sandbox.metadata.resourceVersion }
        : {}),
    },
    type: event.type,
    reason: event.reason,
    action: event.action,
    message: event.note,
    source: { component: SANDBOX_EVENT_COMPONENT },
    reportingComponent: SANDBOX_EVENT_COMPONENT,
    reportingInstance: SANDBOX_EVENT_COMPONENT,
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
  };
}

/** Creates the Event; resolves to the write error (if any) instead of throwing. */
export async function recordSandboxEvent(
  client: KubeClient,
  sandbox: v1beta1.Sandbox,
  event: SandboxEvent,
  now: Date,
): Promise<Error | undefined> {
  try {
    await client.create(EVENTS, sandboxEvent(sandbox, event, now) as Event & KubeObject);
    return undefined;
  } catch (err: unknown) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

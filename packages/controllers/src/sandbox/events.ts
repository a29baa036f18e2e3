// core/v1 Events about a Sandbox (spec §11.1: recorder `sandbox-controller`). Recording is best
// effort, as client-go's recorder: a failed event write never fails the reconcile. Like
// client-go's EventCorrelator, a repeat of an identical event bumps the existing Event's `count`
// and `lastTimestamp` instead of creating another Event.
import type { v1beta1 } from '@agent-sandbox/api';
import { formatTime, type Event, type KubeObject } from '@agent-sandbox/kube-types';
import { EVENTS, InvalidArgumentError, isNotFound, type KubeClient } from '@agent-sandbox/kube';
import { LRUCache } from 'lru-cache';
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
  const time = eventTime(now);
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

/** Event timestamps are metav1.Time: RFC 3339 with whole seconds. */
const eventTime = formatTime;

/**
 * What makes two events "the same" (client-go's getEventKey): the source, the involved object
 * (not its resourceVersion, which changes on every write), type, reason, action and message.
 */
export function eventKey(event: Event): string {
  const o = event.involvedObject;
  return JSON.stringify([
    event.source?.component ?? '',
    o.apiVersion ?? '',
    o.kind ?? '',
    o.namespace ?? '',
    o.name ?? '',
    o.uid ?? '',
    event.type ?? '',
    event.reason ?? '',
    event.action ?? '',
    event.message ?? '',
  ]);
}

export interface SandboxEventRecorderOptions {
  /** A repeat this long after the previous occurrence starts a new Event. @default 10 minutes */
  windowMs?: number;
  /** Distinct events remembered (least recently seen forgotten first). @default 4096 */
  maxEntries?: number;
}

interface Seen {
  namespace: string;
  name: string;
  count: number;
  lastSeenMs: number;
}

/**
 * Records Sandbox events, folding repeats. The defaults are client-go's: an LRU of 4096 events
 * and the 10-minute interval of its aggregator. Memory is bounded by `maxEntries`; a forgotten or
 * expired entry, or an Event the API server has already dropped (TTL), just starts a new Event.
 */
export class SandboxEventRecorder {
  readonly #client: KubeClient;
  readonly #windowMs: number;
  readonly #seen: LRUCache<string, Seen>;
  /** The last write per key still running: repeats of one event are written one after another. */
  readonly #inflight = new Map<string, Promise<Error | undefined>>();

  constructor(client: KubeClient, options: SandboxEventRecorderOptions = {}) {
    const windowMs = options.windowMs ?? 10 * 60_000;
    const maxEntries = options.maxEntries ?? 4096;
    if (!(windowMs > 0)) {
      throw new InvalidArgumentError(
        `event windowMs must be > 0 (got ${windowMs}); omit it for 10 minutes`,
      );
    }
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new InvalidArgumentError(
        `event maxEntries must be an integer >= 1 (got ${maxEntries}); omit it for 4096`,
      );
    }
    this.#client = client;
    this.#windowMs = windowMs;
    this.#seen = new LRUCache({ max: maxEntries });
  }

  /** How many distinct events are remembered now (at most `maxEntries`). */
  get size(): number {
    return this.#seen.size;
  }

  /** Creates the Event or bumps its repeat; resolves to the write error (if any), never throws. */
  async record(
    sandbox: v1beta1.Sandbox,
    event: SandboxEvent,
    now: Date,
  ): Promise<Error | undefined> {
    const fresh = sandboxEvent(sandbox, event, now);
    const key = eventKey(fresh);
    // Chained so two repeats at once do not both create (or both patch the same count).
    const run = (this.#inflight.get(key) ?? Promise.resolve(undefined)).then(() =>
      this.#write(key, fresh, now),
    );
    this.#inflight.set(key, run);
    try {
      return await run;
    } finally {
      if (this.#inflight.get(key) === run) this.#inflight.delete(key);
    }
  }

  async #write(key: string, fresh: Event, now: Date): Promise<Error | undefined> {
    const seen = this.#seen.get(key);
    try {
      if (seen !== undefined && now.getTime() - seen.lastSeenMs < this.#windowMs) {
        const bumped = await this.#bump(seen, now);
        if (bumped) {
          this.#seen.set(key, { ...seen, count: seen.count + 1, lastSeenMs: now.getTime() });
          return undefined;
        }
      }
      await this.#client.create(EVENTS, fresh as Event & KubeObject);
      this.#seen.set(key, {
        namespace: fresh.metadata.namespace ?? '',
        name: fresh.metadata.name ?? '',
        count: 1,
        lastSeenMs: now.getTime(),
      });
      return undefined;
    } catch (err: unknown) {
      return err instanceof Error ? err : new Error(String(err));
    }
  }

  /** Patches count and lastTimestamp; false when the Event is gone (then a new one is created). */
  async #bump(seen: Seen, now: Date): Promise<boolean> {
    try {
      await this.#client.patch(EVENTS, seen.namespace, seen.name, {
        type: 'merge',
        body: { count: seen.count + 1, lastTimestamp: eventTime(now) },
      });
      return true;
    } catch (err: unknown) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }
}

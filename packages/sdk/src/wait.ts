// Waits on one object with a single watch (upstream's create path, dataplane §7.4): GET to learn
// the current state and resourceVersion, then WATCH by name from there; a stream that ends is
// re-watched from the last resourceVersion, a 410 starts over with a GET. `check` decides: a
// value ends the wait, undefined keeps waiting, a thrown SdkError fails it.
import {
  isGone,
  isNotFound,
  type KubeClient,
  type ResourceRef,
  type WatchEvent,
} from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { AbortedError, SandboxDeletedError, TimeoutError, fromKubeError } from './errors.ts';

export interface WaitOptions<T extends KubeObject = KubeObject> {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** What is awaited, for messages: e.g. `SandboxClaim default/sandbox-1a2b Ready`. */
  what: string;
  /**
   * The object as a write just returned it: checked first, then watched from its
   * resourceVersion — the GET that would learn the same is skipped (one round trip less).
   */
  initial?: T | undefined;
  /**
   * A watch by name opened before the object was written (openWatch): used first, so the wait
   * needs neither a GET nor a new request once the write is answered. Needs `initial`; events
   * of another object of the same name (another uid: one deleted before) are skipped.
   */
  opened?: AsyncIterable<WatchEvent<T>> | undefined;
}

/**
 * Opens a watch on one object by name now, with no resourceVersion: the server sends the object
 * as it is when the watch starts (if it exists), then every change — so a watch opened while the
 * object is being created misses nothing. The request goes out at once; abort `signal` to
 * close it.
 */
export function openWatch<T extends KubeObject>(
  kube: KubeClient,
  ref: ResourceRef,
  namespace: string,
  name: string,
  timeoutMs: number,
  signal: AbortSignal,
): AsyncIterable<WatchEvent<T>> {
  const events = kube.watch<T>(ref, namespace, {
    fieldSelector: `metadata.name=${name}`,
    allowWatchBookmarks: true,
    timeoutSeconds: Math.max(1, Math.ceil(timeoutMs / 1000)),
    signal,
  });
  const iterator = events[Symbol.asyncIterator]();
  const first = iterator.next();
  first.catch(() => undefined); // surfaced when iterated; unobserved when the write failed
  let started = false;
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        if (started) return iterator.next();
        started = true;
        return first;
      },
      return: async () => (await iterator.return?.()) ?? { done: true, value: undefined },
    }),
  };
}

export type WaitCheck<T, R> = (object: T) => R | undefined;

export async function waitFor<T extends KubeObject, R>(
  kube: KubeClient,
  ref: ResourceRef,
  namespace: string,
  name: string,
  options: WaitOptions<T>,
  check: WaitCheck<T, R>,
): Promise<R> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  let last: T | undefined;
  const stopped = (cause?: unknown): Error => {
    if (options.signal?.aborted) return new AbortedError(`${options.what}: aborted`, { cause });
    return new TimeoutError(
      `${options.what}: not reached within ${options.timeoutMs} ms${describeLast(last)}`,
      { cause },
    );
  };
  const deleted = (): Error =>
    new SandboxDeletedError(
      `${options.what}: ${ref.kind ?? ref.plural} ${namespace}/${name} was deleted while waiting`,
    );
  const start = Date.now();
  let resourceVersion: string | undefined;
  const uid = options.initial?.metadata.uid;
  let opened = options.opened;
  if (options.initial) {
    last = options.initial;
    const done = check(options.initial);
    if (done !== undefined) return done;
    resourceVersion = options.initial.metadata.resourceVersion;
  }
  for (;;) {
    if (signal.aborted) throw stopped();
    try {
      if (resourceVersion === undefined) {
        const obj = await kube.get<T>(ref, namespace, name, { signal });
        last = obj;
        const done = check(obj);
        if (done !== undefined) return done;
        resourceVersion = obj.metadata.resourceVersion;
      }
      const remaining = Math.max(1, Math.ceil((options.timeoutMs - (Date.now() - start)) / 1000));
      const events =
        opened ??
        kube.watch<T>(ref, namespace, {
          fieldSelector: `metadata.name=${name}`,
          ...(resourceVersion ? { resourceVersion } : {}),
          allowWatchBookmarks: true,
          timeoutSeconds: remaining,
          signal,
        });
      opened = undefined;
      for await (const event of events) {
        resourceVersion = event.object.metadata.resourceVersion ?? resourceVersion;
        if (event.type === 'BOOKMARK') continue;
        if (
          uid !== undefined &&
          'uid' in event.object.metadata &&
          event.object.metadata.uid !== uid
        )
          continue;
        if (event.type === 'DELETED') throw deleted();
        last = event.object;
        const done = check(event.object);
        if (done !== undefined) return done;
      }
    } catch (err: unknown) {
      if (signal.aborted) throw stopped(err);
      if (isGone(err)) {
        resourceVersion = undefined;
        continue;
      }
      if (isNotFound(err)) throw deleted();
      throw fromKubeError(err);
    }
  }
}

function describeLast(obj: KubeObject | undefined): string {
  const conditions = (
    obj as
      | {
          status?: {
            conditions?: { type: string; status: string; reason?: string; message?: string }[];
          };
        }
      | undefined
  )?.status?.conditions;
  if (!conditions?.length) return '';
  const text = conditions
    .map(
      (c) =>
        `${c.type}=${c.status}${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ''})` : ''}`,
    )
    .join(', ');
  return `; last seen ${text}`;
}

// Waits on one object with a single watch (upstream's create path, dataplane §7.4): GET to learn
// the current state and resourceVersion, then WATCH by name from there; a stream that ends is
// re-watched from the last resourceVersion, a 410 starts over with a GET. `check` decides: a
// value ends the wait, undefined keeps waiting, a thrown SdkError fails it.
import { isGone, isNotFound, type KubeClient, type ResourceRef } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { AbortedError, SandboxDeletedError, TimeoutError, fromKubeError } from './errors.ts';

export interface WaitOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** What is awaited, for messages: e.g. `SandboxClaim default/sandbox-1a2b Ready`. */
  what: string;
}

export type WaitCheck<T, R> = (object: T) => R | undefined;

export async function waitFor<T extends KubeObject, R>(
  kube: KubeClient,
  ref: ResourceRef,
  namespace: string,
  name: string,
  options: WaitOptions,
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
      for await (const event of kube.watch<T>(ref, namespace, {
        fieldSelector: `metadata.name=${name}`,
        ...(resourceVersion ? { resourceVersion } : {}),
        allowWatchBookmarks: true,
        timeoutSeconds: remaining,
        signal,
      })) {
        resourceVersion = event.object.metadata.resourceVersion ?? resourceVersion;
        if (event.type === 'BOOKMARK') continue;
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

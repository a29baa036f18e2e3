// The Sandbox controller's memory of its own last status write (§11.8), per Sandbox uid. A pass
// woken by a child's event (the Pod turning Ready, the pod-name annotation's own event) can start
// from an informer copy of the Sandbox older than the status this process just wrote. Compared
// against that stale copy it writes the same status again, and from a copy without conditions it
// recomputes every lastTransitionTime at its own clock (a later pass then moves them back: two
// writes for nothing). So a pass whose copy is one the memory knows to predate the last write
// reconciles from the status it wrote instead, as an Update's answer refreshes the object in
// client-go (the answer's status: the merge patch left alone whatever else the server held).
// Known to predate it: the copy that write was computed from, the versions the pass's
// own metadata patches produced before it, and the versions earlier remembered writes knew (with
// their own answers). Any other version in the cache (it moved on, or another writer wrote) drops
// the entry; a restart starts with none. Either way the pass reads the cache as before: the loop
// stays level-triggered, and the memory only keeps it from going back in time. The warm pool
// controller keeps one of its own for the pool status (a stale copy repeats its write too).
import type { v1beta1 } from '@agent-sandbox/api';
import type { ObjectMeta } from '@agent-sandbox/kube-types';
import { LRUCache } from 'lru-cache';

type SandboxStatus = v1beta1.SandboxStatus;

/** How many predating versions an entry keeps (a chain of writes over one stale copy). */
const MAX_VERSIONS = 8;

/** One status write this process made. */
export interface WrittenStatus<S = SandboxStatus> {
  /** resourceVersions of copies that predate the write (oldest first). */
  readonly over: readonly string[];
  /** The status the server answered the write with. */
  readonly status: S;
}

/** The status to reconcile `version` from: the remembered one when the copy predates it. */
export function freshStatus<S>(
  last: WrittenStatus<S> | undefined,
  version: string | undefined,
): S | undefined {
  if (last === undefined || version === undefined || !last.over.includes(version)) return undefined;
  return last.status;
}

/** The last status write per object uid (bounded: forgetting one costs a repeated write). */
export class StatusWriteMemory<S extends object = SandboxStatus> {
  readonly #last = new LRUCache<string, WrittenStatus<S>>({ max: 16_384 });

  /**
   * The Sandbox to reconcile: the cached copy, with the last written status when the copy
   * predates that write. Forgets the entry once the cache shows any other version.
   */
  freshen<T extends { metadata: ObjectMeta; status?: S }>(sandbox: T): T {
    const uid = sandbox.metadata.uid ?? '';
    const last = this.#last.get(uid);
    const status = freshStatus(last, sandbox.metadata.resourceVersion);
    if (status !== undefined) return { ...sandbox, status: structuredClone(status) };
    if (last !== undefined) this.#last.delete(uid);
    return sandbox;
  }

  /**
   * Records a status write the API server accepted: computed from the copy at `base`, after the
   * pass's own patches produced `produced`, answered with `status` at version `answer`.
   */
  written(
    uid: string,
    versions: { base: string | undefined; produced: readonly string[]; answer?: string },
    status: S,
  ): void {
    const { base, produced, answer } = versions;
    if (base === undefined || uid === '') return;
    const earlier = this.#last.get(uid)?.over ?? [];
    const over = [...earlier, base, ...produced, ...(answer ? [answer] : [])];
    this.#last.set(uid, {
      over: [...new Set(over)].slice(-MAX_VERSIONS),
      status: structuredClone(status),
    });
  }

  forget(uid: string): void {
    this.#last.delete(uid);
  }

  get size(): number {
    return this.#last.size;
  }
}

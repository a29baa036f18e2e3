// The Sandbox controller's memory of its own last status write (§11.8), per Sandbox uid. A pass
// woken by a child's event (the Pod turning Ready, a label patch) can start from an informer copy
// of the Sandbox older than the status this process just wrote: it computes the same status again
// and, compared against that stale copy, would send the same patch a second time. A pass that read
// exactly the version the last write was made over, and computes what that write sent (the
// transition times aside: recomputed from the same base they carry the later clock), is skipped. Any newer version
// in the cache, a different status, or a restart (empty memory) writes as before, so the loop stays
// level-triggered; the memory only removes repeats.
import type { v1beta1 } from '@agent-sandbox/api';
import { LRUCache } from 'lru-cache';
import { statusEqual } from './status.ts';

type SandboxStatus = v1beta1.SandboxStatus;

/** One status write this process made. */
export interface WrittenStatus {
  /** The resourceVersion of the copy the write was computed from (and its patch diffed against). */
  readonly over: string;
  /** The status it wrote. */
  readonly status: SandboxStatus;
}

/**
 * Whether a status write computed from the copy at `cachedVersion` only repeats `last`: same base
 * version and the same status but for conditions' lastTransitionTime. From the same base a
 * transition is recomputed at the later pass's clock; the time the last write recorded is the
 * transition's, and a second write would only move it.
 */
export function repeatsLastWrite(
  last: WrittenStatus | undefined,
  cachedVersion: string | undefined,
  next: SandboxStatus,
): boolean {
  return (
    last !== undefined &&
    cachedVersion !== undefined &&
    cachedVersion === last.over &&
    statusEqual(withoutTransitionTimes(last.status), withoutTransitionTimes(next))
  );
}

function withoutTransitionTimes(status: SandboxStatus): SandboxStatus {
  if (status.conditions === undefined) return status;
  return {
    ...status,
    conditions: status.conditions.map((c) => ({ ...c, lastTransitionTime: '' })),
  };
}

/** The last status write per Sandbox uid (bounded: forgetting one costs one repeated write). */
export class StatusWriteMemory {
  readonly #last = new LRUCache<string, WrittenStatus>({ max: 16_384 });

  /**
   * Whether to send the write of `next` for the Sandbox copy (`uid`, `version`). Forgets the
   * entry once the cache has moved past the version it was written over.
   */
  shouldWrite(uid: string, version: string | undefined, next: SandboxStatus): boolean {
    const last = this.#last.get(uid);
    if (repeatsLastWrite(last, version, next)) return false;
    if (last !== undefined && last.over !== version) this.#last.delete(uid);
    return true;
  }

  /** Records a write that the API server accepted. */
  written(uid: string, over: string | undefined, status: SandboxStatus): void {
    if (over === undefined || uid === '') return;
    this.#last.set(uid, { over, status: structuredClone(status) });
  }

  forget(uid: string): void {
    this.#last.delete(uid);
  }

  get size(): number {
    return this.#last.size;
  }
}

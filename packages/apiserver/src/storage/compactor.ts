// Periodic compaction, as kube-apiserver (every 5 minutes, `--etcd-compaction-interval`) and
// kine's compactor (keeps at least 1000 revisions) do it. Both bounds matter to clients:
// client-node 2.x re-watches every 30 s from its last list's revision (semantics doc §4.3), so
// history younger than a few minutes must survive or quiet informers would 410 constantly.
import { StorageError } from './errors.ts';
import type { Store } from './store.ts';

export interface CompactorOptions {
  /** How often to compact. @default 300_000 (5 minutes, kube-apiserver's default) */
  intervalMs?: number;
  /** Revisions always kept behind the current one. @default 1000 (kine's minimum) */
  keepRevisions?: number;
  /** History younger than this is always kept. @default 300_000 */
  keepMs?: number;
  /** @default Date.now */
  clock?: () => number;
  /** Receives errors of background runs (the compactor keeps running). @default ignore */
  onError?: (err: unknown) => void;
}

export interface CompactorHandle {
  /** Compacts now if anything is old enough; returns the compact revision afterwards. */
  runOnce(): number;
  /** Stops the timer; idempotent. */
  stop(): void;
}

/**
 * Starts compacting `store` every `intervalMs`. Each run compacts up to the newest revision that
 * is both at least `keepRevisions` behind the current one and was already current at least
 * `keepMs` ago (remembered from earlier runs, so nothing is compacted during the first `keepMs`
 * after start). The timer does not keep the process alive.
 */
export function startCompactor(store: Store, options: CompactorOptions = {}): CompactorHandle {
  const intervalMs = options.intervalMs ?? 300_000;
  const keepRevisions = options.keepRevisions ?? 1000;
  const keepMs = options.keepMs ?? 300_000;
  const clock = options.clock ?? Date.now;
  for (const [name, value] of [
    ['intervalMs', intervalMs],
    ['keepRevisions', keepRevisions],
    ['keepMs', keepMs],
  ] as const) {
    if (!Number.isInteger(value) || value < 0 || (name === 'intervalMs' && value === 0)) {
      throw new StorageError(
        'InvalidArgument',
        `startCompactor: ${name} must be an integer ≥ ${name === 'intervalMs' ? 1 : 0}`,
      );
    }
  }

  /** (time, revision current at that time), oldest first. */
  const samples: { at: number; revision: number }[] = [];
  const runOnce = (): number => {
    const now = clock();
    const current = store.currentRevision;
    samples.push({ at: now, revision: current });
    // The newest sample old enough bounds what may go; samples before it are no longer needed.
    let i = -1;
    while ((samples[i + 1]?.at ?? Infinity) <= now - keepMs) i++;
    const oldEnough = samples[i]?.revision;
    if (oldEnough === undefined) return store.compactRevision;
    samples.splice(0, i);
    const target = Math.min(oldEnough, current - keepRevisions);
    if (target <= store.compactRevision) return store.compactRevision;
    return store.compact(current - target);
  };

  const timer = setInterval(() => {
    try {
      runOnce();
    } catch (err: unknown) {
      options.onError?.(err);
    }
  }, intervalMs);
  timer.unref();
  return { runOnce, stop: () => clearInterval(timer) };
}

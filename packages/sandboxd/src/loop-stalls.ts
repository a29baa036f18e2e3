// At --log-level debug the daemon says when its event loop was held (blocked, or the process not
// scheduled on a loaded machine): a client's Start that got no init frame then shows beside a
// line that says the daemon could not run, instead of as silence.
import { performance } from 'node:perf_hooks';
import type { LogFn } from './errors.ts';

export interface LoopStallOptions {
  /** How often the loop is sampled. @default 250 */
  intervalMs?: number;
  /** A tick this much later than due is logged. @default 1000 */
  thresholdMs?: number;
}

/** Logs `event loop stalled` with how late a tick came and when it was due; returns stop(). */
export function watchLoopStalls(debug: LogFn, o: LoopStallOptions = {}): () => void {
  const intervalMs = o.intervalMs ?? 250;
  const thresholdMs = o.thresholdMs ?? 1000;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const lateMs = Math.round(now - last - intervalMs);
    if (lateMs >= thresholdMs)
      debug('event loop stalled', {
        lateMs,
        since: new Date(Date.now() - (now - last) + intervalMs).toISOString(),
      });
    last = now;
  }, intervalMs);
  timer.unref(); // never what keeps the daemon alive
  return () => clearInterval(timer);
}

// A sandbox's daemon starts a moment after its Pod reports Ready (after create or resume the
// node agent starts sandboxd beside the workload), so a first call may find the port closed.
// A refused connection delivered nothing, so the call is repeated for a short window instead of
// failing a user who called resume() and then files.read().
import { AbortedError } from '../errors.ts';

/** How long refused connections are retried before the call fails. */
export const REFUSED_RETRY_MS = 10_000;
const REFUSED_PAUSE_MS = 100;

/** Pure: whether `err` (or an error in its cause chain) is a refused TCP connection. */
export function isRefused(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; depth++) {
    const { code, details } = e as { code?: unknown; details?: unknown };
    if (code === 'ECONNREFUSED') return true;
    // grpc-js: UNAVAILABLE with "No connection established. Last error: connect ECONNREFUSED".
    if (typeof details === 'string' && details.includes('ECONNREFUSED')) return true;
    e = e.cause;
  }
  return false;
}

export interface RetryRefusedOptions {
  signal?: AbortSignal | undefined;
  /** Called after each refusal, before the next attempt (e.g. to forget a stale Pod IP). */
  onRefused?: () => void;
  /** @default REFUSED_RETRY_MS */
  windowMs?: number;
}

/** Runs `attempt` until it does not fail with a refused connection, or the window ends. */
export async function retryRefused<T>(
  attempt: () => Promise<T>,
  o: RetryRefusedOptions = {},
): Promise<T> {
  const end = Date.now() + (o.windowMs ?? REFUSED_RETRY_MS);
  for (;;) {
    try {
      return await attempt();
    } catch (err: unknown) {
      if (!isRefused(err) || Date.now() + REFUSED_PAUSE_MS > end || o.signal?.aborted) throw err;
      o.onRefused?.();
      await pause(REFUSED_PAUSE_MS, o.signal);
    }
  }
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort(): void {
      clearTimeout(timer);
      reject(new AbortedError('aborted while waiting for the sandbox daemon'));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

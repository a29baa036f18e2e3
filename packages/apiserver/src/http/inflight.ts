// Greedy clients: kube-apiserver's --max-requests-inflight / --max-mutating-requests-inflight
// (filters/maxinflight.go) and --request-timeout (filters/timeout.go). A request over its class's
// limit is refused at once with 429 and Retry-After, so a flood of one client cannot queue up
// everyone else's; long-running requests (watch, exec, attach, log, portforward, proxy) hold a
// connection for as long as they like and so count against neither limit nor timeout, as in kube.
import { statusError, type ApiError } from '../errors.ts';
import { parseResourceRequest } from './request-info.ts';

export type RequestClass = 'long-running' | 'mutating' | 'readonly';

/** kube's BasicLongRunningRequestCheck: these verbs and subresources are long-running. */
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);
const MUTATING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The limit and timeout a request falls under. */
export function classify(method: string, url: URL): RequestClass {
  if (isLongRunning(method, url)) return 'long-running';
  return MUTATING_METHODS.has(method.toUpperCase()) ? 'mutating' : 'readonly';
}

function isLongRunning(method: string, url: URL): boolean {
  // The legacy `/api/v1/proxy/...` paths (verb proxy) and `/watch/` prefixes parse as such.
  if (/^\/api\/v1\/proxy(\/|$)/.test(url.pathname)) return true;
  try {
    const info = parseResourceRequest(method, url);
    if (!info) return false;
    return (
      info.verb === 'watch' ||
      (info.subresource !== undefined && LONG_RUNNING_SUBRESOURCES.has(info.subresource))
    );
  } catch {
    // A request the parser refuses gets its 400 from the handler, quickly: not long-running.
    return false;
  }
}

export interface InflightLimits {
  /** Non-mutating requests at once; 0 means no limit. kube's default: 400. */
  readonly: number;
  /** Mutating requests at once; 0 means no limit. kube's default: 200. */
  mutating: number;
}

export const DEFAULT_INFLIGHT_LIMITS: InflightLimits = { readonly: 400, mutating: 200 };

/** kube's --request-timeout default: a non-long-running request gets 504 after a minute. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** Counts requests in flight per class; `acquire` answers the release, or undefined when full. */
export class InflightLimiter {
  readonly #limits: InflightLimits;
  readonly #inflight = { readonly: 0, mutating: 0 };

  constructor(limits: InflightLimits) {
    for (const [name, value] of Object.entries(limits)) {
      if (!Number.isInteger(value) || value < 0)
        throw new Error(`inflight limit ${name}: must be a whole number ≥ 0 (0: no limit)`);
    }
    this.#limits = limits;
  }

  acquire(cls: RequestClass): (() => void) | undefined {
    if (cls === 'long-running') return () => undefined;
    const limit = this.#limits[cls];
    if (limit > 0 && this.#inflight[cls] >= limit) return undefined;
    this.#inflight[cls] += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inflight[cls] -= 1;
    };
  }

  /** Requests in flight now, per class (for tests and metrics). */
  get inflight(): Readonly<{ readonly: number; mutating: number }> {
    return { ...this.#inflight };
  }
}

/**
 * The answer to a request over its limit, as kube's filter writes it (http.Error in
 * maxinflight.go and in priority-and-fairness.go): plain text, not a Status, retry after a
 * second. Clients (client-go, ours) read the 429 and Retry-After, not the body.
 */
export function tooManyRequests(): Response {
  return new Response('Too many requests, please try again later.\n', {
    status: 429,
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'retry-after': '1',
    },
  });
}

/** The answer to a request that ran out of time (kube's timeout filter: 504 Timeout). */
export function requestTimedOut(): ApiError {
  const err = statusError(
    504,
    'Timeout',
    'Timeout: request did not complete within the allotted timeout',
  );
  err.status.details = {}; // kube's NewTimeoutError: retryAfterSeconds 0, so `details: {}`
  return err;
}

/**
 * `work`, or `onTimeout()` if it has not settled after `ms` (0: no timeout). The loser's outcome
 * is dropped (and its rejection handled), so a late failure cannot surface as unhandled.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => T): Promise<T> {
  if (ms <= 0) return work;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(onTimeout()), ms);
    timer.unref();
  });
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

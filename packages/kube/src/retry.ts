// When KubeClient sends a request again after a transport failure (ADR 0032). Pure: it sees the
// error a fetch rejected with (no response arrived) and what the request is, never the socket.
//
// The rules:
//   - a connection that was never established (refused, connect timeout, unreachable) carried no
//     request, so any request may be sent again;
//   - a connection that broke before a response (reset, closed by the server, broken pipe) most
//     often was an idle keep-alive connection the server closed as the request left (its bytes
//     met a closed socket), but it may have delivered the request. So only a request whose replay
//     cannot apply twice is sent again: what HTTP calls idempotent (GET, PUT, DELETE; undici's
//     RetryAgent retries the same methods on the same errors) and, by Kubernetes semantics, a
//     create with a fixed metadata.name (a replay is refused AlreadyExists) and merge, strategic
//     and apply patches (the same patch twice leaves the same object). Not sent again: a create
//     by generateName (a replay makes a second object) and a JSON patch (`add` to a list twice).
//     A replay of a request that did apply surfaces as Conflict, NotFound or AlreadyExists, never
//     as a second write;
//   - anything else (TLS, certificate, our own deadline, the caller's abort) is not a transport
//     blip: retrying would only hide it.

/** How the connection failed, from the error a fetch rejected with. */
export type TransportFailure = 'not-connected' | 'broken' | 'other';

const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const BROKEN = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET']);

/** Classifies by the first known `code` on the error, its causes, or an AggregateError's errors. */
export function transportFailure(err: unknown): TransportFailure {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0) {
    const e = queue.shift();
    if (typeof e !== 'object' || e === null || seen.has(e)) continue;
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (NOT_CONNECTED.has(code)) return 'not-connected';
      if (BROKEN.has(code)) return 'broken';
    }
    queue.push((e as { cause?: unknown }).cause);
    if (e instanceof AggregateError) queue.push(...e.errors);
  }
  return 'other';
}

/** Whether a request may be sent again after `failure` (see the rules above). */
export function mayRetry(failure: TransportFailure, replaySafe: boolean): boolean {
  return failure === 'not-connected' || (failure === 'broken' && replaySafe);
}

export interface RetryBackoff {
  /** Retries after the first attempt; 0 turns retries off. */
  maxRetries: number;
  /** Delay before the first retry, doubled each time. */
  initialDelayMs: number;
  /** Cap of one delay. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_BACKOFF: RetryBackoff = {
  maxRetries: 3,
  initialDelayMs: 50,
  maxDelayMs: 1000,
};

/** Delay before retry number `retry` (0-based): doubling, capped, with up to 20% jitter. */
export function retryDelayMs(backoff: RetryBackoff, retry: number, random: number): number {
  const base = Math.min(backoff.initialDelayMs * 2 ** retry, backoff.maxDelayMs);
  return Math.round(base * (1 + 0.2 * random));
}

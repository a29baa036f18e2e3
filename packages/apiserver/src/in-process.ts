// The embedded mode's own clients (controllers, node agent, router: `up` runs them in the API
// server's process) reach ApiServer.handle without a socket. Over loopback HTTPS each request
// took several event-loop turns between the client's write and the server's read, and each of a
// Pod's start's ~10 requests and 3 watch hops queued behind whatever else the loop was doing
// (bench/node --trace: 0.5 ms of handling, 38 ms of round trip at load 5). What the server
// decides is unchanged — the bearer token authenticates, then authorization, admission and audit
// — and so is the acknowledgement: no response leaves before what it wrote is durable, as in
// node-server.ts. What a socket adds for strangers is left out: the in-flight limits (these
// callers are the server's own components, as kube's loopback client is exempt) and the header
// deadlines; a non-long-running request still times out as over HTTP.
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  classify,
  requestTimedOut,
  withDeadline,
} from './http/inflight.ts';
import { notDurableStatus, statusResponse } from './http/response.ts';
import type { ApiServer } from './server.ts';

/** Structurally the kube client's FetchLike (packages/kube transport.ts). */
export type InProcessFetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal },
) => Promise<Response>;

export interface InProcessFetchOptions {
  /**
   * A non-long-running request answers 504 Timeout after this; 0 turns it off.
   * @default 60000 (kube-apiserver's --request-timeout)
   */
  requestTimeoutMs?: number;
}

/** A fetch for in-process KubeClients: `new KubeClient({ config, fetch })`. */
export function inProcessFetch(server: ApiServer, o: InProcessFetchOptions = {}): InProcessFetch {
  const requestTimeoutMs = o.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  return async (url, init) => {
    const abort = new AbortController();
    const stop = (): void => abort.abort();
    if (init.signal.aborted) stop();
    else init.signal.addEventListener('abort', stop, { once: true });
    const request = new Request(url, {
      method: init.method,
      headers: init.headers,
      ...(init.body === undefined ? {} : { body: init.body }),
      signal: abort.signal,
    });
    const longRunning = classify(init.method, new URL(url)) === 'long-running';
    const timeoutMs = longRunning ? 0 : requestTimeoutMs;
    // A timed-out handler may still be reading: its answer waits for everything (seen unknown).
    const answer = await withDeadline<{ response: Response; seen: number | undefined }>(
      server.handleSeen(request, abort.signal),
      timeoutMs,
      () => {
        abort.abort();
        return { response: statusResponse(requestTimedOut().status), seen: undefined };
      },
    );
    const { response, seen } = answer;
    // A plain answer is whole now: the caller's signal need not reach the handler any more (a
    // watch keeps it, its abort ends the stream).
    if (!longRunning) init.signal.removeEventListener('abort', stop);
    try {
      await server.durable(seen);
    } catch (err: unknown) {
      await response.body?.cancel();
      return statusResponse(notDurableStatus(err));
    }
    return response;
  };
}

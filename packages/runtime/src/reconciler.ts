// The Reconciler contract (STYLE error rule 5, controller-runtime reconcile.Reconciler).
import type { Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';

/** Which object to reconcile. `namespace` is '' for cluster-scoped kinds. */
export interface Request {
  namespace: string;
  name: string;
}

export interface Result {
  /**
   * Reconcile this key again after this long, even if nothing changes (expiry timers, polling).
   * Resets the key's failure backoff. Absent or <= 0: wait for the next watch event.
   */
  requeueAfterMs?: number;
}

export interface ReconcileContext {
  /** Aborted when the manager shuts down or loses leadership; pass it to long waits. */
  signal: AbortSignal;
  /** Carries `controller`, `namespace`, `name` and a per-reconcile id. */
  logger: Logger;
  /**
   * Tracer `agent-sandbox-controller` (spec §19.2) for the reconciler's own spans
   * (`ReconcileSandbox`, ...). A no-op unless the entry point registered an OpenTelemetry SDK.
   */
  tracer: Tracer;
}

/**
 * Level-triggered: given a key, read the current state (informer caches may be stale; the API
 * server is the source of truth for writes, guarded by resourceVersion) and converge it.
 *
 * - Resolve (with nothing, or `{}`) when done: the key is forgotten until the next event.
 * - Resolve `{ requeueAfterMs }` to look again later.
 * - Throw to retry with per-key exponential backoff; the controller logs and counts the error,
 *   so do not log and rethrow.
 * - Throw `TerminalError` for a problem retrying cannot fix: counted, logged, not retried.
 *
 * The same key is never reconciled twice at once; different keys run up to `concurrency` in
 * parallel.
 */
export interface Reconciler {
  reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void>;
}

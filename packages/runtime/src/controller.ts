// Controller: turns informer events into `namespace/name` keys on a WorkQueue and runs
// `concurrency` workers that call the Reconciler (controller-runtime's controller.Controller).
import type { KubeObject } from '@agent-sandbox/kube-types';
import {
  objectKey,
  realClock,
  splitKey,
  type Clock,
  type Informer,
  type ResourceRef,
} from '@agent-sandbox/kube';
import { trace, type Tracer } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import { pino, type Logger } from 'pino';
import { invalidArgument, isTerminalError } from './errors.ts';
import type { RuntimeMetrics } from './metrics.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { Reconciler, Request } from './reconciler.ts';
import { WorkQueue } from './work-queue.ts';

/** Where a controller gets its (shared) informers; the Manager implements it. */
export interface InformerSource {
  getInformer<T extends KubeObject>(resource: ResourceRef): Informer<T>;
}

/**
 * Which events of a watched kind reach its mapping (controller-runtime's predicates). A missing
 * member passes every event of that type; the informer's initial list arrives as creates.
 */
export interface EventFilter {
  create?(obj: KubeObject): boolean;
  update?(oldObj: KubeObject, newObj: KubeObject): boolean;
  delete?(obj: KubeObject): boolean;
}

/** A secondary kind whose events map to primary requests. */
export interface MappedWatch {
  resource: ResourceRef;
  map(obj: KubeObject): Request[];
  filter?: EventFilter;
}

/** An owned kind with a filter on its events. */
export interface OwnedWatch {
  resource: ResourceRef;
  filter?: EventFilter;
}

function ownedWatch(owned: ResourceRef | OwnedWatch): OwnedWatch {
  return 'resource' in owned ? owned : { resource: owned };
}

export interface ControllerOptions {
  /** kebab-case; the `controller` label of metrics and the logger's `controller` field. */
  name: string;
  /** The primary kind: its events enqueue its own key. */
  for: ResourceRef;
  /** Kinds whose controller ownerReference points at a `for` object: enqueue the owner. */
  owns?: (ResourceRef | OwnedWatch)[];
  /** Other kinds, mapped to requests by a function. */
  watches?: MappedWatch[];
  reconciler: Reconciler;
  /** Parallel workers (different keys only). @default 1 */
  concurrency?: number;
  rateLimiter?: RateLimiter<string>;
}

export interface ControllerRunOptions {
  informers: InformerSource;
  metrics: RuntimeMetrics;
  logger?: Logger;
  clock?: Clock;
  /** @default the global provider's tracer `agent-sandbox-controller` (no-op without an SDK) */
  tracer?: Tracer;
}

export const TRACER_NAME = 'agent-sandbox-controller';

const PROGRAMMER_ERRORS = [TypeError, ReferenceError, RangeError, SyntaxError];

export class Controller {
  readonly name: string;
  readonly #o: ControllerOptions;
  readonly #concurrency: number;
  #queue: WorkQueue<string> | undefined;

  constructor(options: ControllerOptions) {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(options.name ?? ''))
      throw invalidArgument(`controller name must be kebab-case, got "${options.name}"`);
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw invalidArgument(
        `controller ${options.name}: concurrency must be an integer >= 1, got ${concurrency}`,
      );
    if (!options.for?.kind && options.owns?.length)
      throw invalidArgument(
        `controller ${options.name}: 'for' needs a kind to match ownerReferences`,
      );
    this.name = options.name;
    this.#o = options;
    this.#concurrency = concurrency;
  }

  /** The kinds this controller needs informers for (primary first). */
  get resources(): ResourceRef[] {
    return [
      this.#o.for,
      ...(this.#o.owns ?? []).map((o) => ownedWatch(o).resource),
      ...(this.#o.watches ?? []).map((w) => w.resource),
    ];
  }

  /** Keys waiting in the queue (0 before run). */
  get queueLength(): number {
    return this.#queue?.length ?? 0;
  }

  /**
   * Registers event handlers, then runs workers until `signal` aborts; resolves once every
   * in-flight reconcile has finished. Call after the informers have synced.
   */
  async run(signal: AbortSignal, options: ControllerRunOptions): Promise<void> {
    if (this.#queue) throw invalidArgument(`controller ${this.name} can run only once`);
    const { metrics, informers } = options;
    const clock = options.clock ?? realClock;
    const tracer = options.tracer ?? trace.getTracer(TRACER_NAME);
    const logger = (options.logger ?? pino({ level: 'silent' })).child({ controller: this.name });
    const queue = new WorkQueue<string>({
      clock,
      metrics: metrics.queueMetrics(this.name),
      ...(this.#o.rateLimiter ? { rateLimiter: this.#o.rateLimiter } : {}),
    });
    this.#queue = queue;
    metrics.initController(this.name, this.#concurrency);
    // One event's requests are deduplicated first: an update maps both the old and the new
    // object, and a key handed to an idle worker by the first add would run again for the second.
    const enqueue = (reqs: Request[]): void => {
      const keys = new Set(reqs.map((r) => (r.namespace ? `${r.namespace}/${r.name}` : r.name)));
      for (const key of keys) queue.add(key);
    };
    const watch = (
      resource: ResourceRef,
      map: (obj: KubeObject) => Request[],
      filter: EventFilter = {},
    ): void => {
      informers.getInformer(resource).addHandlers({
        onAdd: (o) => {
          if (filter.create?.(o) ?? true) enqueue(map(o));
        },
        onUpdate: (oldObj, newObj) => {
          if (filter.update?.(oldObj, newObj) ?? true) enqueue([...map(oldObj), ...map(newObj)]);
        },
        onDelete: (o) => {
          if (filter.delete?.(o) ?? true) enqueue(map(o));
        },
      });
    };
    watch(this.#o.for, (o) => [splitKey(objectKey(o))]);
    for (const owned of (this.#o.owns ?? []).map(ownedWatch)) {
      watch(owned.resource, (o) => ownerRequests(o, this.#o.for), owned.filter);
    }
    for (const w of this.#o.watches ?? []) watch(w.resource, (o) => w.map(o), w.filter);

    const onAbort = (): void => queue.shutdown();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) queue.shutdown();
    logger.info({ workers: this.#concurrency }, 'starting workers');
    const workers = Array.from({ length: this.#concurrency }, () =>
      this.#worker(queue, signal, logger, metrics, clock, tracer),
    );
    await Promise.all(workers);
    signal.removeEventListener('abort', onAbort);
    logger.info('all workers finished');
  }

  async #worker(
    queue: WorkQueue<string>,
    signal: AbortSignal,
    logger: Logger,
    metrics: RuntimeMetrics,
    clock: Clock,
    tracer: Tracer,
  ): Promise<void> {
    const controller = this.name;
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      const req = splitKey(key);
      const log = logger.child({ ...req, reconcileID: randomUUID() });
      metrics.activeWorkers.inc({ controller });
      const start = clock.now();
      try {
        const result = await this.#o.reconciler.reconcile(req, { signal, logger: log, tracer });
        const after = result?.requeueAfterMs ?? 0;
        queue.forget(key);
        if (after > 0) {
          queue.addAfter(key, after);
          metrics.reconcileTotal.inc({ controller, result: 'requeue_after' });
        } else {
          metrics.reconcileTotal.inc({ controller, result: 'success' });
        }
      } catch (err: unknown) {
        // One place logs and counts reconcile errors (STYLE error rule 5); never crash (rule 8).
        metrics.reconcileTotal.inc({ controller, result: 'error' });
        metrics.reconcileErrors.inc({ controller });
        if (isTerminalError(err)) {
          metrics.terminalErrors.inc({ controller });
          queue.forget(key);
          log.error({ err }, 'reconciler returned a terminal error; not retrying');
        } else {
          const panic = !(err instanceof Error) || PROGRAMMER_ERRORS.some((c) => err instanceof c);
          if (panic) metrics.reconcilePanics.inc({ controller });
          if (!signal.aborted) queue.addRateLimited(key);
          log.error({ err, panic, requeues: queue.numRequeues(key) }, 'reconciler error');
        }
      } finally {
        metrics.reconcileTime.observe({ controller }, (clock.now() - start) / 1000);
        metrics.activeWorkers.dec({ controller });
        queue.done(key);
      }
    }
  }
}

/** Requests for the controller owner of `obj` when that owner is of kind `owner`. */
export function ownerRequests(obj: KubeObject, owner: ResourceRef): Request[] {
  const refs = obj.metadata?.ownerReferences ?? [];
  const apiGroup = (apiVersion: string): string =>
    apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  return refs
    .filter(
      (r) =>
        r.controller === true && r.kind === owner.kind && apiGroup(r.apiVersion) === owner.group,
    )
    .map((r) => ({
      namespace: owner.namespaced ? (obj.metadata.namespace ?? '') : '',
      name: r.name,
    }));
}

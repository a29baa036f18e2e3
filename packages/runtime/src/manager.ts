// Manager: owns the shared informers, the probe and metrics servers, optional leader election,
// and the controllers; shuts everything down in order on abort (controller-runtime's Manager).
import type { KubeObject } from '@agent-sandbox/kube-types';
import {
  Informer,
  realClock,
  type Clock,
  type KubeClient,
  type ResourceRef,
} from '@agent-sandbox/kube';
import type { Tracer } from '@opentelemetry/api';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { pino, type Logger } from 'pino';
import type { Registry } from 'prom-client';
import { Controller, type InformerSource } from './controller.ts';
import { invalidArgument, RuntimeError } from './errors.ts';
import { parseBindAddress, runChecks, serve, type BoundServer, type Check } from './http-server.ts';
import { LeaderElector } from './leader-election.ts';
import { RuntimeMetrics } from './metrics.ts';

export interface LeaderElectionOptions {
  /**
   * Lease namespace. @default the client config's namespace (in a cluster: the service
   * account's, which is how upstream's `--leader-election-namespace ""` auto-detects)
   */
  namespace?: string;
  /** Lease name (upstream: `a3317529.agent-sandbox.x-k8s.io`). */
  name: string;
  /** @default `<hostname>_<uuid>` */
  identity?: string;
  /** @default 15_000 */
  leaseDurationMs?: number;
  /** @default 10_000 */
  renewDeadlineMs?: number;
  /** @default 2_000 */
  retryPeriodMs?: number;
  /** @default true (upstream releases the lease on graceful shutdown, spec §18.1) */
  releaseOnCancel?: boolean;
}

export interface ManagerOptions {
  client: KubeClient;
  /** @default pino at info level on stdout */
  logger?: Logger;
  clock?: Clock;
  /** @default a new prom-client Registry */
  registry?: Registry;
  /**
   * Metrics to use (create them first to hand `clientMetrics()` to the KubeClient).
   * @default new RuntimeMetrics(registry)
   */
  metrics?: RuntimeMetrics;
  /** `host:port`, `:port`, or '0' to disable. @default '0' (the CLI passes ':8080') */
  metricsBindAddress?: string;
  /** @default '0' (the CLI passes ':8081') */
  healthProbeBindAddress?: string;
  /** Absent: no leader election (every replica reconciles). */
  leaderElection?: LeaderElectionOptions;
  /** Tracer handed to reconcilers. @default the global provider's `agent-sandbox-controller` */
  tracer?: Tracer;
  /**
   * Cache transforms by informer key `group/version/plural` (e.g. `/v1/pods`), applied before
   * objects are cached: controllers that read few fields of a big kind keep memory flat.
   */
  cacheTransforms?: Readonly<Record<string, (obj: KubeObject) => KubeObject>>;
  /** Restrict every informer to one namespace. @default all namespaces */
  namespace?: string;
  /** start() rejects with `CacheSyncTimeout` if informers have not synced by then. @default 120_000 */
  cacheSyncTimeoutMs?: number;
  /** How long shutdown waits for in-flight reconciles. @default 30_000 */
  gracefulShutdownTimeoutMs?: number;
}

export class Manager implements InformerSource {
  readonly metrics: RuntimeMetrics;
  readonly logger: Logger;
  readonly #o: ManagerOptions;
  readonly #clock: Clock;
  readonly #controllers: Controller[] = [];
  readonly #informers = new Map<string, Informer<KubeObject>>();
  readonly #healthChecks = new Map<string, Check>([['ping', () => undefined]]);
  readonly #readyChecks = new Map<string, Check>([['ping', () => undefined]]);
  #elector: LeaderElector | undefined;
  #servers: { metrics?: BoundServer; probes?: BoundServer } = {};
  #started = false;

  constructor(options: ManagerOptions) {
    if (!options.client) throw invalidArgument('manager needs a client');
    this.#o = options;
    this.#clock = options.clock ?? realClock;
    this.logger = options.logger ?? pino();
    this.metrics = options.metrics ?? new RuntimeMetrics(options.registry);
    parseBindAddress(options.metricsBindAddress ?? '0'); // validate eagerly
    parseBindAddress(options.healthProbeBindAddress ?? '0');
    this.addReadyCheck('informers-synced', () => {
      const pending = [...this.#informers.entries()].filter(([, i]) => !i.hasSynced());
      if (pending.length) throw new Error(`not synced: ${pending.map(([k]) => k).join(', ')}`);
    });
  }

  /** Registers a controller; its informers are created now so they start with the others. */
  add(controller: Controller): void {
    if (this.#started) throw invalidArgument('add controllers before start()');
    if (this.#controllers.some((c) => c.name === controller.name))
      throw invalidArgument(`controller ${controller.name} is already registered`);
    for (const r of controller.resources) this.getInformer(r);
    this.#controllers.push(controller);
  }

  /** The shared informer of a kind (created on first use, started by start()). */
  getInformer<T extends KubeObject>(resource: ResourceRef): Informer<T> {
    const key = informerKey(resource);
    let informer = this.#informers.get(key);
    if (!informer) {
      const transform = this.#o.cacheTransforms?.[key];
      informer = new Informer<KubeObject>({
        ...(transform ? { transform } : {}),
        client: this.#o.client,
        resource,
        clock: this.#clock,
        logger: this.logger.child({ informer: key }),
        ...(this.#o.namespace ? { namespace: this.#o.namespace } : {}),
      });
      this.#informers.set(key, informer);
    }
    return informer as unknown as Informer<T>;
  }

  addHealthCheck(name: string, check: Check): void {
    this.#healthChecks.set(name, check);
  }

  addReadyCheck(name: string, check: Check): void {
    this.#readyChecks.set(name, check);
  }

  /** Bound addresses (useful with port 0), once start() has bound them. */
  get addresses(): { metrics?: string; probes?: string } {
    return { metrics: this.#servers.metrics?.address, probes: this.#servers.probes?.address };
  }

  /** True while controllers run: always without leader election, else while holding the Lease. */
  get isLeader(): boolean {
    return this.#o.leaderElection ? (this.#elector?.isLeader ?? false) : this.#started;
  }

  /**
   * Serves probes and metrics, starts informers, waits for them to sync, then (after winning
   * the Lease, if configured) runs the controllers until `signal` aborts. Resolves after a
   * graceful shutdown. Rejects with RuntimeError `LeaderElectionLost` if the Lease is lost —
   * the entry point should exit, as controller-runtime does, so a fresh process campaigns.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw invalidArgument('a manager starts once');
    this.#started = true;
    const stop = new AbortController();
    const onAbort = (): void => stop.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) stop.abort();
    const log = this.logger;
    try {
      await this.#serveEndpoints();
      const informerRuns = [...this.#informers.values()].map((i) => i.run(stop.signal));
      const syncTimeoutMs = this.#o.cacheSyncTimeoutMs ?? 120_000;
      const syncDeadline = new AbortController();
      const syncTimer = this.#clock.setTimer(() => syncDeadline.abort(), syncTimeoutMs);
      const syncSignal = AbortSignal.any([stop.signal, syncDeadline.signal]);
      try {
        await Promise.all([...this.#informers.values()].map((i) => i.waitForSync(syncSignal)));
        log.info({ informers: this.#informers.size }, 'caches synced');
      } catch {
        // aborted or timed out before the caches synced: handled below
      } finally {
        syncTimer.cancel();
      }
      let lost = false;
      let syncFailed = false;
      if (syncDeadline.signal.aborted && !stop.signal.aborted) {
        syncFailed = true;
        stop.abort();
      }
      if (!stop.signal.aborted) {
        if (this.#o.leaderElection) lost = await this.#runElected(stop.signal);
        else await this.#runControllers(stop.signal);
      }
      stop.abort();
      await Promise.all(informerRuns);
      if (syncFailed)
        throw new RuntimeError(`caches did not sync within ${syncTimeoutMs} ms`, {
          code: 'CacheSyncTimeout',
        });
      if (lost)
        throw new RuntimeError(`leader election lost: ${this.#o.leaderElection?.name}`, {
          code: 'LeaderElectionLost',
        });
    } finally {
      signal.removeEventListener('abort', onAbort);
      await this.#servers.metrics?.close();
      await this.#servers.probes?.close();
      log.info('manager stopped');
    }
  }

  /** Returns true if leadership was lost (rather than released on shutdown). */
  async #runElected(signal: AbortSignal): Promise<boolean> {
    const le = this.#o.leaderElection;
    if (!le) return false;
    let controllers: Promise<void> | undefined;
    const namespace = le.namespace || this.#o.client.config.namespace;
    const elector = new LeaderElector({
      client: this.#o.client,
      namespace,
      name: le.name,
      identity: le.identity ?? `${hostname()}_${randomUUID()}`,
      clock: this.#clock,
      logger: this.logger.child({ lease: `${namespace}/${le.name}` }),
      onStartedLeading: (leading) => (controllers = this.#runControllers(leading)),
      onNewLeader: (id) => this.logger.info({ leader: id }, 'new leader observed'),
      ...(le.leaseDurationMs ? { leaseDurationMs: le.leaseDurationMs } : {}),
      ...(le.renewDeadlineMs ? { renewDeadlineMs: le.renewDeadlineMs } : {}),
      ...(le.retryPeriodMs ? { retryPeriodMs: le.retryPeriodMs } : {}),
      ...(le.releaseOnCancel !== undefined ? { releaseOnCancel: le.releaseOnCancel } : {}),
    });
    this.#elector = elector;
    this.metrics.leaderStatus.set({ name: le.name }, 0);
    // The elector aborts `leading`, awaits the controllers, and only then releases the Lease.
    await elector.run(signal);
    this.metrics.leaderStatus.set({ name: le.name }, 0);
    return controllers !== undefined && !signal.aborted;
  }

  async #runControllers(signal: AbortSignal): Promise<void> {
    if (this.#o.leaderElection)
      this.metrics.leaderStatus.set({ name: this.#o.leaderElection.name }, 1);
    const runs = this.#controllers.map((c) =>
      c.run(signal, {
        informers: this,
        metrics: this.metrics,
        logger: this.logger,
        clock: this.#clock,
        ...(this.#o.tracer ? { tracer: this.#o.tracer } : {}),
      }),
    );
    await aborted(signal);
    const timeoutMs = this.#o.gracefulShutdownTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>(
      (r) => (timer = setTimeout(() => r('timeout'), timeoutMs)),
    );
    const outcome = await Promise.race([Promise.all(runs).then(() => 'done' as const), timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout')
      this.logger.warn(
        { timeoutMs },
        'graceful shutdown timed out; in-flight reconciles abandoned',
      );
  }

  async #serveEndpoints(): Promise<void> {
    const metricsAt = parseBindAddress(this.#o.metricsBindAddress ?? '0');
    const probesAt = parseBindAddress(this.#o.healthProbeBindAddress ?? '0');
    if (metricsAt) this.#servers.metrics = await serve(metricsAt, (r) => this.handleMetrics(r));
    if (probesAt) this.#servers.probes = await serve(probesAt, (r) => this.handleProbe(r));
  }

  /** `/metrics` in Prometheus text format. */
  async handleMetrics(req: Request): Promise<Response> {
    if (new URL(req.url).pathname !== '/metrics')
      return new Response('404 page not found\n', { status: 404 });
    const body = await this.metrics.registry.metrics();
    return new Response(body, { headers: { 'Content-Type': this.metrics.registry.contentType } });
  }

  /** `/healthz` and `/readyz` (`?verbose` lists each check). */
  async handleProbe(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const verbose = url.searchParams.has('verbose');
    if (url.pathname === '/healthz') return runChecks(this.#healthChecks, verbose);
    if (url.pathname === '/readyz') return runChecks(this.#readyChecks, verbose);
    return new Response('404 page not found\n', { status: 404 });
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

/** The key of a kind's shared informer and of its entry in `cacheTransforms`. */
export function informerKey(resource: ResourceRef): string {
  return `${resource.group}/${resource.version}/${resource.plural}`;
}

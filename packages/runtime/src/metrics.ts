// controller-runtime's and client-go's metric names, types, labels and buckets (spec §19:
// upstream CI and benchmarks read them). Label values are controller names and fixed result
// words only, so cardinality stays bounded. The agent_sandbox_* metrics live elsewhere.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ClientMetrics } from '@agent-sandbox/kube';
import type { WorkQueueMetrics } from './work-queue.ts';

/** controller-runtime's reconcile_time_seconds buckets (v0.15+). */
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
  1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
/** client-go workqueue: prometheus.ExponentialBuckets(10e-9, 10, 10). */
const QUEUE_BUCKETS = Array.from({ length: 10 }, (_, i) => Number((1e-8 * 10 ** i).toPrecision(1)));

/** client-go rest client latency buckets. */
const REST_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0];

export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';

export class RuntimeMetrics {
  readonly registry: Registry;
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly terminalErrors: Counter<'controller'>;
  readonly reconcilePanics: Counter<'controller'>;
  readonly reconcileTime: Histogram<'controller'>;
  readonly activeWorkers: Gauge<'controller'>;
  readonly maxConcurrentReconciles: Gauge<'controller'>;
  readonly queueDepth: Gauge<'name' | 'controller'>;
  readonly queueAdds: Counter<'name' | 'controller'>;
  readonly queueDuration: Histogram<'name' | 'controller'>;
  readonly workDuration: Histogram<'name' | 'controller'>;
  readonly queueRetries: Counter<'name' | 'controller'>;
  readonly leaderStatus: Gauge<'name'>;
  readonly restRateLimiterDuration: Histogram<'verb' | 'host'>;
  readonly restRequestDuration: Histogram<'verb' | 'host'>;
  readonly restRequests: Counter<'code' | 'method' | 'host'>;

  constructor(registry: Registry = new Registry()) {
    this.registry = registry;
    const registers = [registry];
    this.reconcileTotal = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.terminalErrors = new Counter({
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Total number of terminal reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.reconcilePanics = new Counter({
      name: 'controller_runtime_reconcile_panics_total',
      help: 'Total number of reconciliation panics per controller',
      labelNames: ['controller'],
      registers,
    });
    this.reconcileTime = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: RECONCILE_BUCKETS,
      registers,
    });
    this.activeWorkers = new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    });
    this.maxConcurrentReconciles = new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    });
    // controller-runtime's workqueue provider labels by `name` and `controller` (same value).
    const q = { labelNames: ['name', 'controller'] as const, registers };
    this.queueDepth = new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      ...q,
    });
    this.queueAdds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      ...q,
    });
    this.queueDuration = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      buckets: QUEUE_BUCKETS,
      ...q,
    });
    this.workDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      buckets: QUEUE_BUCKETS,
      ...q,
    });
    this.queueRetries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      ...q,
    });
    this.leaderStatus = new Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
      labelNames: ['name'],
      registers,
    });
    this.restRateLimiterDuration = new Histogram({
      name: 'rest_client_rate_limiter_duration_seconds',
      help: 'Client side rate limiter latency in seconds. Broken down by verb, and host.',
      labelNames: ['verb', 'host'],
      buckets: REST_BUCKETS,
      registers,
    });
    this.restRequestDuration = new Histogram({
      name: 'rest_client_request_duration_seconds',
      help: 'Request latency in seconds. Broken down by verb, and host.',
      labelNames: ['verb', 'host'],
      buckets: REST_BUCKETS,
      registers,
    });
    this.restRequests = new Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests, partitioned by status code, method, and host.',
      labelNames: ['code', 'method', 'host'],
      registers,
    });
  }

  /** Hooks to pass as KubeClientOptions.metrics: client-go's rest_client_* series. */
  clientMetrics(): ClientMetrics {
    return {
      rateLimiterWait: (verb, host, s) => this.restRateLimiterDuration.observe({ verb, host }, s),
      request: (method, host, code, s) => {
        this.restRequestDuration.observe({ verb: method, host }, s);
        this.restRequests.inc({ code, method, host });
      },
    };
  }

  /** Pre-creates a controller's series at zero, as controller-runtime does on start. */
  initController(controller: string, maxConcurrent: number): void {
    for (const result of ['success', 'error', 'requeue', 'requeue_after'] as const)
      this.reconcileTotal.inc({ controller, result }, 0);
    this.reconcileErrors.inc({ controller }, 0);
    this.terminalErrors.inc({ controller }, 0);
    this.reconcilePanics.inc({ controller }, 0);
    this.activeWorkers.set({ controller }, 0);
    this.maxConcurrentReconciles.set({ controller }, maxConcurrent);
  }

  /** The workqueue_* hooks for the queue of `controller`. */
  queueMetrics(controller: string): WorkQueueMetrics {
    const labels = { name: controller, controller };
    this.queueDepth.set(labels, 0);
    this.queueAdds.inc(labels, 0);
    this.queueRetries.inc(labels, 0);
    return {
      add: () => this.queueAdds.inc(labels),
      depth: (n) => this.queueDepth.set(labels, n),
      queueDuration: (s) => this.queueDuration.observe(labels, s),
      workDuration: (s) => this.workDuration.observe(labels, s),
      retry: () => this.queueRetries.inc(labels),
    };
  }
}

// The controller manager as a library call: a KubeClient, a runtime Manager with metrics, probes,
// optional leader election and the selected controllers, plus companions such as the conversion
// webhook, run until a signal aborts. Both entry points use it with typed options: the
// `agent-sandbox controller` command (flags parsed by the CLI) and the embedded mode
// (packages/local). Nothing here reads flags, the environment or the console.
import { KubeClient, type FetchLike, type KubeConfig } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { Manager, RuntimeMetrics } from '@agent-sandbox/runtime';
import type { Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { ControllersError } from '../errors.ts';
import { AgentSandboxMetrics, type SandboxForMetrics } from '../metrics.ts';
import { sandboxCacheTransforms } from '../sandbox/pod-cache-transform.ts';
import { SANDBOXES } from '../sandbox/sandbox-reconciler.ts';
import { AdoptionsInFlight } from '../warm-queue/adoptions-in-flight.ts';
import { CONTROLLERS, type ControllerContext, type ControllerName } from './controller-registry.ts';

/** Upstream's leader election ID (spec §18.1: the Lease every replica competes for). */
export const LEADER_ELECTION_ID = 'a3317529.agent-sandbox.x-k8s.io';

/**
 * Something that runs beside the manager on its client (the conversion webhook): started before
 * the manager, closed after it stopped, newest first.
 */
export interface ManagerCompanion {
  /** For logs and errors. */
  name: string;
  /** Starts serving; a rejection fails the whole manager before any controller runs. */
  start(ctx: { client: KubeClient; logger: Logger }): Promise<{ close(): Promise<void> }>;
}

export interface ControllerManagerOptions {
  /** Where the API server is and how to authenticate (the caller loads it). */
  kubeConfig: KubeConfig;
  /** The client's transport; @default HTTP(S) to kubeConfig.server (the embedded mode: in-process). */
  fetch?: FetchLike;
  logger: Logger;
  /**
   * Reconcilers to run, in order; each must have a factory in CONTROLLERS. Empty: none, which is
   * the webhook-only mode (no informers, no leader election, only the companions).
   */
  controllers: readonly ControllerName[];
  /** Upstream's --extensions: the SandboxClaim, SandboxTemplate, SandboxWarmPool controllers. @default false */
  extensions?: boolean;
  /** The Sandbox controller's settings (defaults: sandboxController's). */
  sandbox?: {
    concurrency?: number;
    clusterDomain?: string;
    writeBehindWindowMs?: number;
  };
  /** Parsed for the extension controllers (upstream's flags), which read them when they land. */
  sandboxClaim?: {
    concurrency: number;
    disableEvents: boolean;
    disableObservabilityAnnotations: boolean;
  };
  sandboxWarmPool?: {
    concurrency: number;
    maxBatchSize: number;
    replenishDelayMs: number;
    /** Refills per second; 0 is unlimited. */
    maxRefillRate: number;
    readinessGracePeriodMs: number;
    unschedulableRecheckIntervalMs: number;
    enableEviction: boolean;
    /** `--sandbox-warm-pool-status-interval` (ours): least ms between count-only status writes. */
    statusIntervalMs?: number;
  };
  sandboxTemplate?: { concurrency: number };
  /** Client-side rate limit; <= 0 is none. @default the KubeClient's */
  kubeApiQps?: number;
  kubeApiBurst?: number;
  /** Compete for the Lease LEADER_ELECTION_ID; absent: every replica reconciles. */
  leaderElection?: { namespace?: string };
  /** `host:port`, `:port` or '0' (off). @default '0' */
  metricsBindAddress?: string;
  /** @default '0' */
  healthProbeBindAddress?: string;
  tracer?: Tracer;
  /** Reported as agent_sandbox build info. @default 'unknown' */
  version?: string;
  companions?: readonly ManagerCompanion[];
}

/**
 * Runs the manager until `signal` aborts, then stops the controllers, the companions and the
 * client in that order. Rejects with ControllersError (`InvalidOptions`) for a controller without
 * a factory, and with the KubeError / RuntimeError / companion error that stopped it otherwise.
 */
export async function runControllerManager(
  options: ControllerManagerOptions,
  signal: AbortSignal,
): Promise<void> {
  const { logger } = options;
  for (const name of options.controllers)
    if (CONTROLLERS[name].create === undefined)
      throw new ControllersError('InvalidOptions', `controller ${name} is not available yet`);
  const registry = new Registry();
  const metrics = new RuntimeMetrics(registry);
  const client = new KubeClient({
    config: options.kubeConfig,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.kubeApiQps !== undefined ? { qps: options.kubeApiQps } : {}),
    ...(options.kubeApiBurst !== undefined ? { burst: options.kubeApiBurst } : {}),
    metrics: metrics.clientMetrics(),
  });
  const started: { close(): Promise<void> }[] = [];
  try {
    const webhookOnly = options.controllers.length === 0;
    const manager = new Manager({
      client,
      logger,
      registry,
      metrics,
      metricsBindAddress: options.metricsBindAddress ?? '0',
      healthProbeBindAddress: options.healthProbeBindAddress ?? '0',
      ...(options.tracer ? { tracer: options.tracer } : {}),
      cacheTransforms: sandboxCacheTransforms,
      // With no reconcilers nothing needs one leader: every replica serves the webhook.
      ...(options.leaderElection && !webhookOnly
        ? { leaderElection: { name: LEADER_ELECTION_ID, ...options.leaderElection } }
        : {}),
    });
    // The Sandbox gauges read an informer cache; webhook-only starts no informer at all.
    let agentSandboxMetrics: AgentSandboxMetrics | undefined;
    if (!webhookOnly) {
      const sandboxes = manager.getInformer<KubeObject & SandboxForMetrics>(SANDBOXES);
      agentSandboxMetrics = new AgentSandboxMetrics(registry, {
        listSandboxes: () => sandboxes.cache.list(),
        buildInfo: { gitVersion: options.version ?? 'unknown' },
      });
    } else logger.info('--controllers=none: no reconcilers, serving the conversion webhook only');
    const ctx: ControllerContext = {
      client,
      manager,
      options,
      ...(agentSandboxMetrics ? { metrics: agentSandboxMetrics } : {}),
      adoptionsInFlight: new AdoptionsInFlight(),
    };
    for (const name of options.controllers) {
      const create = CONTROLLERS[name].create;
      if (!create) continue;
      manager.add(create(ctx));
      logger.info({ controller: name }, 'controller registered');
    }
    for (const companion of options.companions ?? [])
      started.push(await companion.start({ client, logger }));
    const running = manager.start(signal);
    void reportAddresses(manager, logger, running, {
      metrics: (options.metricsBindAddress ?? '0') !== '0',
      probes: (options.healthProbeBindAddress ?? '0') !== '0',
    });
    await running;
    logger.info('controller manager stopped');
  } finally {
    for (let c = started.pop(); c; c = started.pop()) await c.close();
    await client.close();
  }
}

/** Logs the bound metrics and probe addresses once they are bound (port 0 picks them). */
async function reportAddresses(
  manager: Manager,
  logger: Logger,
  running: Promise<void>,
  wants: { metrics: boolean; probes: boolean },
): Promise<void> {
  let done = false;
  void running.finally(() => (done = true)).catch(() => undefined);
  while (!done) {
    const { metrics, probes } = manager.addresses;
    if ((metrics || !wants.metrics) && (probes || !wants.probes)) {
      logger.info({ metricsAddress: metrics, probeAddress: probes }, 'serving');
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

// The controllers a controller manager can run, by upstream's names (spec §19.1: `sandbox`,
// `sandboxclaim`, `sandboxwarmpool`, `sandboxtemplate`; the last three run only with
// upstream's --extensions). An entry without `create` is known but not built yet; the CLI
// refuses to select it instead of running without it.
import type { KubeClient } from '@agent-sandbox/kube';
import type { Controller, Manager } from '@agent-sandbox/runtime';
import type { AgentSandboxMetrics } from '../metrics.ts';
import type { AdoptionsInFlight } from '../warm-queue/adoptions-in-flight.ts';
import { sandboxController } from '../sandbox/sandbox-controller.ts';
import { sandboxClaimController } from '../sandbox-claim/sandbox-claim-controller.ts';
import { sandboxTemplateController } from '../sandbox-template/sandbox-template-controller.ts';
import { sandboxWarmPoolController } from '../sandbox-warm-pool/sandbox-warm-pool-controller.ts';
import type { ControllerManagerOptions } from './controller-manager.ts';

/** What a controller factory gets. */
export interface ControllerContext {
  client: KubeClient;
  manager: Manager;
  options: ControllerManagerOptions;
  /** The agent_sandbox_* metrics (absent only in the webhook-only mode, which runs no controller). */
  metrics?: AgentSandboxMetrics;
  /** One per manager: the warm pool's refills wait for the claims' Ready writes (ADR 0039). */
  adoptionsInFlight: AdoptionsInFlight;
}

export interface ControllerEntry {
  /** Runs only with `extensions` (upstream's --extensions). */
  extension: boolean;
  /** Absent: not implemented yet. */
  create?: (ctx: ControllerContext) => Controller;
}

/** The names, in the order the manager registers them. */
export const CONTROLLER_NAMES = [
  'sandbox',
  'sandboxclaim',
  'sandboxwarmpool',
  'sandboxtemplate',
] as const;

export type ControllerName = (typeof CONTROLLER_NAMES)[number];

/** The controllers the manager runs: name → factory. Adding one is a name above and an entry here. */
export const CONTROLLERS: Readonly<Record<ControllerName, ControllerEntry>> = {
  sandbox: {
    extension: false,
    create: ({ client, manager, options, adoptionsInFlight }) =>
      sandboxController({
        client,
        informers: manager,
        adoptionsInFlight,
        ...(options.sandbox?.concurrency !== undefined
          ? { concurrency: options.sandbox.concurrency }
          : {}),
        ...(options.sandbox?.clusterDomain !== undefined
          ? { clusterDomain: options.sandbox.clusterDomain }
          : {}),
        ...(options.sandbox?.writeBehindWindowMs !== undefined
          ? { writeBehindWindowMs: options.sandbox.writeBehindWindowMs }
          : {}),
      }),
  },
  sandboxclaim: {
    extension: true,
    create: ({ client, manager, options, metrics, adoptionsInFlight }) =>
      sandboxClaimController({
        client,
        informers: manager,
        adoptionsInFlight,
        ...(options.sandboxClaim
          ? {
              concurrency: options.sandboxClaim.concurrency,
              disableEvents: options.sandboxClaim.disableEvents,
              disableObservabilityAnnotations: options.sandboxClaim.disableObservabilityAnnotations,
            }
          : {}),
        ...(metrics !== undefined ? { metrics } : {}),
      }),
  },
  sandboxwarmpool: {
    extension: true,
    create: ({ client, manager, options, adoptionsInFlight }) =>
      sandboxWarmPoolController({
        client,
        informers: manager,
        adoptionsInFlight,
        ...(options.sandboxWarmPool
          ? {
              concurrency: options.sandboxWarmPool.concurrency,
              maxBatchSize: options.sandboxWarmPool.maxBatchSize,
              readinessGraceMs: options.sandboxWarmPool.readinessGracePeriodMs,
              enableEviction: options.sandboxWarmPool.enableEviction,
              replenishDelayMs: options.sandboxWarmPool.replenishDelayMs,
              maxRefillRate: options.sandboxWarmPool.maxRefillRate,
              unschedulableRecheckMs: options.sandboxWarmPool.unschedulableRecheckIntervalMs,
              ...(options.sandboxWarmPool.statusIntervalMs !== undefined
                ? { statusIntervalMs: options.sandboxWarmPool.statusIntervalMs }
                : {}),
            }
          : {}),
      }),
  },
  sandboxtemplate: {
    extension: true,
    create: ({ client, manager, options }) =>
      sandboxTemplateController({
        client,
        informers: manager,
        ...(options.sandboxTemplate ? { concurrency: options.sandboxTemplate.concurrency } : {}),
      }),
  },
};

export function isControllerName(name: string): name is ControllerName {
  return (CONTROLLER_NAMES as readonly string[]).includes(name);
}

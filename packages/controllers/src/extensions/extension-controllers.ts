// The extension controllers (`--extensions`, spec §12–14) as one list for a Manager:
// `for (const c of extensionControllers({ client, informers: manager })) manager.add(c)`.
import type { Clock, KubeClient } from '@agent-sandbox/kube';
import type { Controller, InformerSource } from '@agent-sandbox/runtime';
import type { AgentSandboxMetrics } from '../metrics.ts';
import { AdoptionsInFlight } from '../warm-queue/adoptions-in-flight.ts';
import type { WarmSandboxQueue } from '../warm-queue/warm-queue.ts';
import { sandboxClaimController } from '../sandbox-claim/sandbox-claim-controller.ts';
import { sandboxTemplateController } from '../sandbox-template/sandbox-template-controller.ts';
import { sandboxWarmPoolController } from '../sandbox-warm-pool/sandbox-warm-pool-controller.ts';

export interface ExtensionControllersOptions {
  client: KubeClient;
  informers: InformerSource;
  /** Which of them to build (upstream's controller names). @default all three */
  only?: readonly string[];
  /** `--sandbox-template-concurrent-workers`. @default 1 */
  templateConcurrency?: number;
  /** `--sandbox-warm-pool-concurrent-workers`. @default 1 */
  warmPoolConcurrency?: number;
  /** `--sandbox-warm-pool-max-batch-size`. @default 300 */
  warmPoolMaxBatchSize?: number;
  /** `--sandbox-warm-pool-readiness-grace-period` in ms. @default 5 minutes */
  warmPoolReadinessGraceMs?: number;
  /** `--enable-warm-pool-eviction`. @default true */
  enableWarmPoolEviction?: boolean;
  /** `--sandbox-warm-pool-replenish-delay` in ms. @default 0 (off) */
  warmPoolReplenishDelayMs?: number;
  /** `--sandbox-warm-pool-max-refill-rate`, creates/s per pool. @default 0 (unlimited) */
  warmPoolMaxRefillRate?: number;
  /** `--sandbox-warm-pool-status-interval` in ms (ours). @default 1000 */
  warmPoolStatusIntervalMs?: number;
  /** `--sandbox-claim-concurrent-workers`. @default 50 */
  claimConcurrency?: number;
  /** The agent_sandbox_* metrics the claim controller records. */
  metrics?: AgentSandboxMetrics;
  /** Label domains a claim's additionalPodMetadata may use. @default ['sandbox.users.io'] */
  allowedLabelDomains?: readonly string[];
  /** `--disable-claim-events`. @default false */
  disableClaimEvents?: boolean;
  /** `--disable-claim-observability-annotations`. @default false */
  disableClaimObservabilityAnnotations?: boolean;
  /** The claim's IP-less warm candidate grace in ms (no flag upstream). @default 2000 */
  claimWarmCandidateGraceMs?: number;
  /** The claim controller's warm queue (one per process; a test may watch it). @default a new one */
  claimQueue?: WarmSandboxQueue;
  /**
   * Warm adoptions in flight, shared by the claim and pool controllers here and by the Sandbox
   * controller if it gets the same one (ADR 0039). @default a new one
   */
  adoptionsInFlight?: AdoptionsInFlight;
  clock?: Clock;
}

export const EXTENSION_CONTROLLER_NAMES = ['sandboxclaim', 'sandboxwarmpool', 'sandboxtemplate'];

export function extensionControllers(options: ExtensionControllersOptions): Controller[] {
  const wanted = (name: string): boolean =>
    options.only === undefined || options.only.includes(name);
  const { client, informers } = options;
  const clock = options.clock !== undefined ? { clock: options.clock } : {};
  const out: Controller[] = [];
  // A warm claim's Ready write goes before the refill its adoption starts (ADR 0039).
  const adoptionsInFlight = options.adoptionsInFlight ?? new AdoptionsInFlight();
  if (wanted('sandboxclaim')) {
    out.push(
      sandboxClaimController({
        client,
        informers,
        ...clock,
        ...defined('concurrency', options.claimConcurrency),
        ...defined('metrics', options.metrics),
        ...defined('allowedLabelDomains', options.allowedLabelDomains),
        ...defined('disableEvents', options.disableClaimEvents),
        ...defined('disableObservabilityAnnotations', options.disableClaimObservabilityAnnotations),
        ...defined('warmCandidateGraceMs', options.claimWarmCandidateGraceMs),
        ...defined('queue', options.claimQueue),
        adoptionsInFlight,
      }),
    );
  }
  if (wanted('sandboxwarmpool')) {
    out.push(
      sandboxWarmPoolController({
        client,
        informers,
        ...clock,
        ...defined('concurrency', options.warmPoolConcurrency),
        ...defined('maxBatchSize', options.warmPoolMaxBatchSize),
        ...defined('readinessGraceMs', options.warmPoolReadinessGraceMs),
        ...defined('enableEviction', options.enableWarmPoolEviction),
        ...defined('replenishDelayMs', options.warmPoolReplenishDelayMs),
        ...defined('maxRefillRate', options.warmPoolMaxRefillRate),
        adoptionsInFlight,
        ...defined('statusIntervalMs', options.warmPoolStatusIntervalMs),
      }),
    );
  }
  if (wanted('sandboxtemplate')) {
    out.push(
      sandboxTemplateController({
        client,
        informers,
        ...defined('concurrency', options.templateConcurrency),
      }),
    );
  }
  return out;
}

function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

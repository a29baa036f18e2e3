// From the controller's parsed flags to @agent-sandbox/controllers' typed ControllerManagerOptions
// (pure). The selection checks live here too: which reconcilers run, and the refusals that exit 2
// before anything connects.
import {
  CONTROLLERS,
  type ControllerManagerOptions,
  type ControllerName,
} from '@agent-sandbox/controllers';
import { CliError, FlagError } from '../errors.ts';
import { selectedControllers, type ParsedFlags } from './controller-flags.ts';

/** The reconcilers the flags select, after --extensions; throws for a selection that cannot run. */
export function resolveControllers(parsed: ParsedFlags): ControllerName[] {
  const f = parsed.flags;
  const selected = selectedControllers(f.controllers);
  const explicit = parsed.set.has('controllers') && f.controllers !== '*';
  const needExtensions = selected.filter((n) => CONTROLLERS[n].extension);
  if (explicit && needExtensions.length && !f.extensions)
    throw new FlagError(
      `--controllers: ${needExtensions.join(', ')} run only with --extensions; add --extensions or drop them from --controllers`,
    );
  if (selected.length === 0 && !f['enable-webhook'])
    throw new FlagError(
      '--controllers=none with --enable-webhook=false leaves the manager nothing to do; select controllers or enable the webhook',
    );
  const unavailable = selected.filter((n) => CONTROLLERS[n].extension && !CONTROLLERS[n].create);
  if (f.extensions && unavailable.length)
    // Failing beats warning: with a warning the manager would run, and SandboxClaims,
    // SandboxWarmPools and SandboxTemplates would sit unreconciled with no status to say why.
    throw new CliError(
      'Unavailable',
      `--extensions: the ${unavailable.join(', ')} controllers are not available yet in this build; ` +
        'run without --extensions (or --extensions=false) to run the Sandbox controller alone',
    );
  return selected.filter(
    (n) => (!CONTROLLERS[n].extension || f.extensions) && CONTROLLERS[n].create !== undefined,
  );
}

/** What the flags say, minus what the command builds at run time (client config, logger, ...). */
export type FlagManagerOptions = Omit<
  ControllerManagerOptions,
  'kubeConfig' | 'logger' | 'tracer' | 'companions' | 'version'
>;

export function controllerManagerOptions(
  parsed: ParsedFlags,
  controllers: readonly ControllerName[],
): FlagManagerOptions {
  const f = parsed.flags;
  const leaderNamespace = f['leader-election-namespace'];
  return {
    controllers,
    extensions: f.extensions,
    sandbox: {
      concurrency: f['sandbox-concurrent-workers'],
      clusterDomain: f['cluster-domain'],
      writeBehindWindowMs: f['sandbox-write-behind-window'],
    },
    sandboxClaim: {
      concurrency: f['sandbox-claim-concurrent-workers'],
      disableEvents: f['disable-claim-events'],
      disableObservabilityAnnotations: f['disable-claim-observability-annotations'],
    },
    sandboxWarmPool: {
      concurrency: f['sandbox-warm-pool-concurrent-workers'],
      maxBatchSize: f['sandbox-warm-pool-max-batch-size'],
      replenishDelayMs: f['sandbox-warm-pool-replenish-delay'],
      maxRefillRate: f['sandbox-warm-pool-max-refill-rate'],
      readinessGracePeriodMs: f['sandbox-warm-pool-readiness-grace-period'],
      unschedulableRecheckIntervalMs: f['sandbox-warm-pool-unschedulable-recheck-interval'],
      statusIntervalMs: f['sandbox-warm-pool-status-interval'],
      enableEviction: f['enable-warm-pool-eviction'],
    },
    sandboxTemplate: { concurrency: f['sandbox-template-concurrent-workers'] },
    kubeApiQps: f['kube-api-qps'],
    kubeApiBurst: f['kube-api-burst'],
    ...(f['leader-elect']
      ? { leaderElection: leaderNamespace ? { namespace: leaderNamespace } : {} }
      : {}),
    metricsBindAddress: f['metrics-bind-address'],
    healthProbeBindAddress: f['health-probe-bind-address'],
  };
}

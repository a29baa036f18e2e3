// `agent-sandbox controller [flags]`: the controller manager (spec §18.1) — upstream's flag names
// and defaults (controller-flags.ts), kubeconfig from --kubeconfig, KUBECONFIG or in-cluster,
// /metrics with controller_runtime_* and agent_sandbox_* families, /healthz and /readyz, leader
// election on the `a3317529.agent-sandbox.x-k8s.io` Lease (released on SIGTERM), tracing.
// `--controllers=none` (our extension) runs the conversion webhook alone: no informers, no Lease.
import {
  AgentSandboxMetrics,
  SANDBOXES,
  sandboxClaimController,
  sandboxTemplateController,
  sandboxWarmPoolController,
  sandboxCacheTransforms,
  sandboxController,
  type SandboxForMetrics,
} from '@agent-sandbox/controllers';
import { KubeClient, KubeError, loadKubeConfig } from '@agent-sandbox/kube';
import {
  Manager,
  RuntimeError,
  RuntimeMetrics,
  setupSignalHandler,
  type Controller,
} from '@agent-sandbox/runtime';
import type { KubeObject } from '@agent-sandbox/kube-types';
import type { Command } from 'commander';
import { pino, type Logger } from 'pino';
import { Registry } from 'prom-client';
import type { CommandIO } from '../io.ts';
import {
  FlagError,
  controllerHelp,
  parseControllerFlags,
  selectedControllers,
  type FlagValue,
} from './controller-flags.ts';
import { setupTracing } from './controller-tracing.ts';
import { WebhookError } from './controller-webhook-certs.ts';
import { startWebhook, type WebhookHandle } from './controller-webhook.ts';

/** Upstream's leader election ID (spec §18.1). */
export const LEADER_ELECTION_ID = 'a3317529.agent-sandbox.x-k8s.io';

/** What a controller factory gets. */
export interface ControllerContext {
  client: KubeClient;
  manager: Manager;
  flags: ReadonlyMap<string, FlagValue>;
  /** The agent_sandbox_* metrics (the claim controller records into them). */
  metrics?: AgentSandboxMetrics;
}

interface ControllerEntry {
  /** Runs only with --extensions. */
  extension: boolean;
  /** Absent: not implemented yet. */
  create?: (ctx: ControllerContext) => Controller;
}

/** The controllers the manager runs: name → factory (upstream's names, spec §19.1). */
export const CONTROLLERS: Readonly<Record<string, ControllerEntry>> = {
  sandbox: {
    extension: false,
    create: ({ client, manager, flags }) =>
      sandboxController({
        client,
        informers: manager,
        concurrency: flags.get('sandbox-concurrent-workers') as number,
        clusterDomain: flags.get('cluster-domain') as string,
        writeBehindWindowMs: flags.get('sandbox-write-behind-window') as number,
      }),
  },
  sandboxclaim: {
    extension: true,
    create: ({ client, manager, flags, metrics }) =>
      sandboxClaimController({
        client,
        informers: manager,
        concurrency: flags.get('sandbox-claim-concurrent-workers') as number,
        disableEvents: flags.get('disable-claim-events') as boolean,
        disableObservabilityAnnotations: flags.get(
          'disable-claim-observability-annotations',
        ) as boolean,
        ...(metrics !== undefined ? { metrics } : {}),
      }),
  },
  sandboxwarmpool: {
    extension: true,
    create: ({ client, manager, flags }) =>
      sandboxWarmPoolController({
        client,
        informers: manager,
        concurrency: flags.get('sandbox-warm-pool-concurrent-workers') as number,
        maxBatchSize: flags.get('sandbox-warm-pool-max-batch-size') as number,
        readinessGraceMs: flags.get('sandbox-warm-pool-readiness-grace-period') as number,
        enableEviction: flags.get('enable-warm-pool-eviction') as boolean,
      }),
  },
  sandboxtemplate: {
    extension: true,
    create: ({ client, manager, flags }) =>
      sandboxTemplateController({
        client,
        informers: manager,
        concurrency: flags.get('sandbox-template-concurrent-workers') as number,
      }),
  },
};

export interface ControllerRunOptions {
  /** Stops the manager when aborted. @default the first SIGINT or SIGTERM */
  signal?: AbortSignal;
  /** @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  version?: string;
}

/** Registers `controller` on the program (main.ts); flags are parsed by controller-flags.ts. */
export function addControllerCommand(
  program: Command,
  io: CommandIO,
  setExit: (code: number) => void,
  version: string,
): void {
  program
    .command('controller')
    .description('run the controller manager (upstream flags; see controller --help)')
    .helpOption(false)
    .passThroughOptions()
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .argument('[flags...]')
    .action(async (flags: string[]) => setExit(await runController(flags, io, { version })));
}

/** Runs the manager until the signal aborts; returns the exit code. */
export async function runController(
  argv: readonly string[],
  io: CommandIO,
  run: ControllerRunOptions = {},
): Promise<number> {
  let parsed;
  try {
    parsed = parseControllerFlags(argv);
  } catch (err: unknown) {
    if (!(err instanceof FlagError)) throw err;
    io.stderr(`error: ${err.message}\n`);
    return 2;
  }
  if (parsed.help) {
    io.stdout(controllerHelp());
    return 0;
  }
  const flags = parsed.values;
  if (flags.get('version')) {
    io.stdout(
      `agent-sandbox controller\n  version: ${run.version ?? 'unknown'}\n  node: ${process.version}\n  platform: ${process.platform}/${process.arch}\n`,
    );
    return 0;
  }
  const selected = selectedControllers(flags.get('controllers') as string);
  const explicit = parsed.set.has('controllers') && flags.get('controllers') !== '*';
  const needExtensions = selected.filter((n) => CONTROLLERS[n]?.extension);
  if (explicit && needExtensions.length && !flags.get('extensions')) {
    io.stderr(
      `error: --controllers: ${needExtensions.join(', ')} run only with --extensions; add --extensions or drop them from --controllers\n`,
    );
    return 2;
  }
  const unavailable = selected.filter((n) => CONTROLLERS[n]?.extension && !CONTROLLERS[n].create);
  if (selected.length === 0 && !flags.get('enable-webhook')) {
    io.stderr(
      'error: --controllers=none with --enable-webhook=false leaves the manager nothing to do; select controllers or enable the webhook\n',
    );
    return 2;
  }
  if (flags.get('extensions') && unavailable.length) {
    // Failing beats warning: with a warning the manager would run, and SandboxClaims,
    // SandboxWarmPools and SandboxTemplates would sit unreconciled with no status to say why.
    io.stderr(
      `error: --extensions: the ${unavailable.join(', ')} controllers are not available yet in this build; ` +
        'run without --extensions (or --extensions=false) to run the Sandbox controller alone\n',
    );
    return 2;
  }

  const logger = makeLogger(flags, parsed.set.has('zap-log-level'), io);
  for (const w of parsed.warnings) logger.warn(w);
  const env = run.env ?? process.env;
  const tracing = await setupTracing({
    enabled: flags.get('enable-tracing') as boolean,
    env,
    logger,
  });
  let client: KubeClient | undefined;
  let webhook: WebhookHandle | undefined;
  try {
    const kubeconfig = flags.get('kubeconfig') as string;
    const config = loadKubeConfig({ ...(kubeconfig ? { kubeconfig } : {}), env });
    const registry = new Registry();
    const metrics = new RuntimeMetrics(registry);
    client = new KubeClient({
      config,
      qps: flags.get('kube-api-qps') as number,
      burst: flags.get('kube-api-burst') as number,
      metrics: metrics.clientMetrics(),
    });
    const leaderNamespace = flags.get('leader-election-namespace') as string;
    const webhookOnly = selected.length === 0;
    const manager = new Manager({
      client,
      logger,
      registry,
      metrics,
      metricsBindAddress: flags.get('metrics-bind-address') as string,
      healthProbeBindAddress: flags.get('health-probe-bind-address') as string,
      tracer: tracing.tracer,
      cacheTransforms: sandboxCacheTransforms,
      // With no reconcilers nothing needs one leader: every replica serves the webhook.
      ...(flags.get('leader-elect') && !webhookOnly
        ? {
            leaderElection: {
              name: LEADER_ELECTION_ID,
              ...(leaderNamespace ? { namespace: leaderNamespace } : {}),
            },
          }
        : {}),
    });
    // The Sandbox gauges read an informer cache; webhook-only starts no informer at all.
    let agentMetrics: AgentSandboxMetrics | undefined;
    if (!webhookOnly) {
      const sandboxes = manager.getInformer<KubeObject & SandboxForMetrics>(SANDBOXES);
      agentMetrics = new AgentSandboxMetrics(registry, {
        listSandboxes: () => sandboxes.cache.list(),
        buildInfo: { gitVersion: run.version ?? 'unknown' },
      });
    } else logger.info('--controllers=none: no reconcilers, serving the conversion webhook only');
    const ctx: ControllerContext = {
      client,
      manager,
      flags,
      ...(agentMetrics !== undefined ? { metrics: agentMetrics } : {}),
    };
    for (const [name, entry] of Object.entries(CONTROLLERS)) {
      if (!selected.includes(name)) continue;
      if (entry.extension && !flags.get('extensions')) continue;
      if (!entry.create) continue;
      manager.add(entry.create(ctx));
      logger.info({ controller: name }, 'controller registered');
    }
    const signal = run.signal ?? setupSignalHandler();
    if (flags.get('enable-webhook')) {
      const urlHost = flags.get('webhook-url-host') as string;
      webhook = await startWebhook({
        client,
        logger,
        port: flags.get('webhook-port') as number,
        certDir: flags.get('webhook-cert-dir') as string,
        certName: flags.get('webhook-cert-name') as string,
        keyName: flags.get('webhook-key-name') as string,
        serviceName: flags.get('webhook-service-name') as string,
        namespace: flags.get('webhook-namespace') as string,
        clusterDomain: flags.get('cluster-domain') as string,
        manageCerts: flags.get('manage-webhook-certs') as boolean,
        extensions: flags.get('extensions') as boolean,
        ...(urlHost ? { urlHost } : {}),
      });
    }
    const started = manager.start(signal);
    void reportAddresses(manager, logger, started, {
      metrics: flags.get('metrics-bind-address') !== '0',
      probes: flags.get('health-probe-bind-address') !== '0',
    });
    await started;
    logger.info('controller manager stopped');
    return 0;
  } catch (err: unknown) {
    if (err instanceof KubeError || err instanceof RuntimeError || err instanceof WebhookError) {
      logger.error({ err }, 'controller manager failed');
      io.stderr(`error: ${err.message}${causeOf(err)}\n`);
      return 1;
    }
    throw err;
  } finally {
    await webhook?.close();
    await client?.close();
    await tracing.shutdown();
  }
}

/** Logs the bound metrics and probe addresses once they are bound (port 0 picks them). */
async function reportAddresses(
  manager: Manager,
  logger: Logger,
  started: Promise<void>,
  wants: { metrics: boolean; probes: boolean },
): Promise<void> {
  let done = false;
  void started.finally(() => (done = true)).catch(() => undefined);
  while (!done) {
    const { metrics, probes } = manager.addresses;
    if ((metrics || !wants.metrics) && (probes || !wants.probes)) {
      logger.info({ metricsAddress: metrics, probeAddress: probes }, 'serving');
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

function causeOf(err: Error): string {
  return err.cause instanceof Error ? `: ${err.cause.message}` : '';
}

const ZAP_TO_PINO: Record<string, string> = {
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  error: 'error',
  dpanic: 'fatal',
  panic: 'fatal',
  fatal: 'fatal',
};

/**
 * pino on stderr at --zap-log-level (integers are zap verbosity: 1 debug, 2+ trace);
 * --zap-devel alone means debug, as zap's development defaults do.
 */
function makeLogger(
  flags: ReadonlyMap<string, FlagValue>,
  levelSet: boolean,
  io: CommandIO,
): Logger {
  const zap = flags.get('zap-log-level') as string;
  const level =
    !levelSet && flags.get('zap-devel')
      ? 'debug'
      : /^\d+$/.test(zap)
        ? Number(zap) === 1
          ? 'debug'
          : 'trace'
        : (ZAP_TO_PINO[zap] ?? 'info');
  return pino({ level, base: { logger: 'controller-manager' } }, { write: (s) => io.stderr(s) });
}

// `agent-sandbox controller [flags]`: the controller manager (spec §18.1) — upstream's flag names
// and defaults (controller-flags.ts), kubeconfig from --kubeconfig, KUBECONFIG or in-cluster,
// /metrics with controller_runtime_* and agent_sandbox_* families, /healthz and /readyz, leader
// election on the `a3317529.agent-sandbox.x-k8s.io` Lease (released on SIGTERM), tracing.
// `--controllers=none` (our extension) runs the conversion webhook alone: no informers, no Lease.
// The flags become typed options (controller-options.ts) for @agent-sandbox/controllers'
// runControllerManager, which `agent-sandbox start` calls too (through @agent-sandbox/local).
import {
  ControllersError,
  runControllerManager,
  type ManagerCompanion,
} from '@agent-sandbox/controllers';
import { KubeError, loadKubeConfig } from '@agent-sandbox/kube';
import { RuntimeError } from '@agent-sandbox/runtime';
import { failureOf } from '../errors.ts';
import { withStreams, type CommandIO } from '../io.ts';
import { exitCodeFor } from '../report-error.ts';
import { controllerHelp, parseControllerFlags, type ParsedFlags } from './controller-flags.ts';
import { controllerLogger } from './controller-logger.ts';
import { controllerManagerOptions, resolveControllers } from './controller-options.ts';
import { setupTracing } from './controller-tracing.ts';
import { WebhookError } from './controller-webhook-certs.ts';
import { startWebhook } from './controller-webhook.ts';

export {
  CONTROLLERS,
  LEADER_ELECTION_ID,
  type ControllerContext,
} from '@agent-sandbox/controllers';

export interface ControllerRunOptions {
  /** Stops the manager when aborted. @default the IO's stop signal (first SIGINT or SIGTERM) */
  signal?: AbortSignal;
  /** @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  version?: string;
}

/** Runs the manager until the signal aborts; returns the exit code. */
export async function runController(
  argv: readonly string[],
  io: CommandIO,
  run: ControllerRunOptions = {},
): Promise<number> {
  try {
    return await controllerCommand(argv, io, run);
  } catch (err: unknown) {
    return exitCodeFor(err, io);
  }
}

async function controllerCommand(
  argv: readonly string[],
  io: CommandIO,
  run: ControllerRunOptions,
): Promise<number> {
  const parsed = parseControllerFlags(argv);
  if (parsed.help) {
    io.stdout(controllerHelp());
    return 0;
  }
  const f = parsed.flags;
  if (f.version) {
    io.stdout(
      `agent-sandbox controller\n  version: ${run.version ?? 'unknown'}\n  node: ${process.version}\n  platform: ${process.platform}/${process.arch}\n`,
    );
    return 0;
  }
  const controllers = resolveControllers(parsed);
  const logger = controllerLogger(
    {
      zapLogLevel: f['zap-log-level'],
      levelSet: parsed.set.has('zap-log-level'),
      zapDevel: f['zap-devel'],
    },
    io,
  );
  for (const w of parsed.warnings) logger.warn(w);
  const env = run.env ?? process.env;
  const tracing = await setupTracing({ enabled: f['enable-tracing'], env, logger });
  const stop = run.signal
    ? { signal: run.signal, dispose: () => undefined }
    : withStreams(io).stopSignal();
  try {
    const kubeconfig = f.kubeconfig;
    const kubeConfig = loadKubeConfig({ ...(kubeconfig ? { kubeconfig } : {}), env });
    await runControllerManager(
      {
        ...controllerManagerOptions(parsed, controllers),
        kubeConfig,
        logger,
        tracer: tracing.tracer,
        version: run.version ?? 'unknown',
        companions: f['enable-webhook'] ? [webhookCompanion(parsed)] : [],
      },
      stop.signal,
    );
    return 0;
  } catch (err: unknown) {
    const failure = failureOf(err, {
      withCause: [KubeError, RuntimeError, WebhookError, ControllersError],
    });
    if (!failure) throw err;
    logger.error({ err }, 'controller manager failed');
    throw failure;
  } finally {
    stop.dispose();
    await tracing.shutdown();
  }
}

/** The conversion webhook (controller-webhook.ts) on the manager's client. */
function webhookCompanion(parsed: ParsedFlags): ManagerCompanion {
  const f = parsed.flags;
  return {
    name: 'conversion-webhook',
    start: ({ client, logger }) =>
      startWebhook({
        client,
        logger,
        port: f['webhook-port'],
        certDir: f['webhook-cert-dir'],
        certName: f['webhook-cert-name'],
        keyName: f['webhook-key-name'],
        serviceName: f['webhook-service-name'],
        namespace: f['webhook-namespace'],
        clusterDomain: f['cluster-domain'],
        manageCerts: f['manage-webhook-certs'],
        extensions: f.extensions,
        ...(f['webhook-url-host'] ? { urlHost: f['webhook-url-host'] } : {}),
      }),
  };
}

// `agent-sandbox router [flags]`: the sandbox router (@agent-sandbox/router) with upstream's
// sandbox-router flags. Serves until the stop signal; access log lines and lifecycle messages go
// to stderr as JSON.
import { readFile } from 'node:fs/promises';
import { KubeClient, KubeError, loadKubeConfig } from '@agent-sandbox/kube';
import {
  RouterError,
  startRouter,
  type AuthzMode,
  type RouterOptions,
} from '@agent-sandbox/router';
import { parseBindAddress } from '@agent-sandbox/runtime';
import { CliError, failureOf, FlagError } from '../errors.ts';
import { withStreams, type CommandIO } from '../io.ts';
import { exitCodeFor } from '../report-error.ts';
import { parseRouterFlags, routerHelp, type RouterFlags } from './router-flags.ts';

export interface RouterRunOptions {
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  version?: string;
  /** Called once every listener is bound (tests). */
  onReady?: (urls: { proxy: string; probe?: string; metrics?: string }) => void;
}

export async function runRouter(
  argv: readonly string[],
  io: CommandIO,
  run: RouterRunOptions = {},
): Promise<number> {
  try {
    return await routerCommand(argv, io, run);
  } catch (err: unknown) {
    return exitCodeFor(err, io);
  }
}

const bind = (text: string) => parseBindAddress(text);

async function routerOptions(
  f: RouterFlags,
  env: NodeJS.ProcessEnv,
  log: (msg: object) => void,
): Promise<RouterOptions> {
  const proxy = bind(f['http-bind-address']);
  if (!proxy)
    throw new FlagError('--http-bind-address must be set (this router serves plain HTTP only)');
  const needsClient = f['cache-enabled'] || f['authz-mode'] === 'tokenreview';
  let secret: string | undefined;
  if (f['authz-mode'] === 'scoped-token') {
    if (!f['authz-scoped-token-secret-file'])
      throw new FlagError(
        '--authz-scoped-token-secret-file is required with --authz-mode=scoped-token',
      );
    secret = (
      await readFile(f['authz-scoped-token-secret-file'], 'utf8').catch((err: unknown) => {
        throw new FlagError(
          `--authz-scoped-token-secret-file: ${err instanceof Error ? err.message : String(err)}`,
        );
      })
    ).trim();
  }
  const probe = bind(f['health-probe-bind-address']);
  const metrics = bind(f['metrics-bind-address']);
  return {
    proxy,
    ...(probe ? { probe } : {}),
    ...(metrics ? { metrics } : {}),
    ...(needsClient
      ? {
          client: new KubeClient({
            config: loadKubeConfig({ ...(f.kubeconfig ? { kubeconfig: f.kubeconfig } : {}), env }),
          }),
        }
      : {}),
    cacheEnabled: f['cache-enabled'],
    cacheNamespace: f['cache-namespace'],
    clusterDomain: f['cluster-domain'],
    allowLoopbackPodIp: f['allow-loopback-pod-ip'],
    proxyTimeoutMs: f['proxy-timeout'],
    responseHeaderTimeoutMs: f['response-header-timeout'],
    upstreamMaxRetries: f['upstream-max-retries'],
    upstreamRetryInitialDelayMs: f['upstream-retry-initial-delay'],
    upstreamRetryMaxDelayMs: f['upstream-retry-max-delay'],
    maxRequestBodyBytes: f['max-request-body-bytes'],
    authzMode: f['authz-mode'] as AuthzMode,
    tokenReview: {
      ttlMs: f['authz-tokenreview-ttl'],
      cacheSize: f['authz-tokenreview-cache-size'],
      requireToken: f['authz-tokenreview-require-token'],
      audiences: f['authz-tokenreview-audiences']
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    },
    ...(secret !== undefined ? { scopedTokenSecret: secret } : {}),
    ...(f['sandbox-domain'] ? { sandboxDomain: f['sandbox-domain'] } : {}),
    ...(f['access-log']
      ? { accessLog: (e: object) => log({ logger: 'sandbox-router.access', msg: 'request', ...e }) }
      : {}),
  };
}

async function routerCommand(
  argv: readonly string[],
  io: CommandIO,
  run: RouterRunOptions,
): Promise<number> {
  const parsed = parseRouterFlags(argv);
  if (parsed.help) {
    io.stdout(routerHelp());
    return 0;
  }
  const f = parsed.flags;
  if (f.version) {
    io.stdout(
      `agent-sandbox router\n  version: ${run.version ?? 'unknown'}\n  node: ${process.version}\n`,
    );
    return 0;
  }
  const log = (msg: object) =>
    io.stderr(`${JSON.stringify({ ts: new Date().toISOString(), ...msg })}\n`);
  const options = await routerOptions(f, run.env ?? process.env, log);
  const stop = run.signal
    ? { signal: run.signal, dispose: () => undefined }
    : withStreams(io).stopSignal();
  try {
    const router = await startRouter({
      ...options,
      log: (msg, fields) => log({ logger: 'sandbox-router', msg, ...fields }),
      version: run.version ?? 'unknown',
    }).catch((err: unknown) => {
      const failure = failureOf(err, { complete: [RouterError], withCause: [KubeError] });
      if (failure) throw failure;
      if (err instanceof Error && 'code' in err && (err as { code: unknown }).code === 'EADDRINUSE')
        throw new CliError('Failed', `router: ${err.message}`);
      throw err;
    });
    log({
      logger: 'sandbox-router',
      msg: 'serving',
      proxy: router.proxyUrl,
      probe: router.probeUrl,
      metrics: router.metricsUrl,
    });
    run.onReady?.({
      proxy: router.proxyUrl,
      ...(router.probeUrl ? { probe: router.probeUrl } : {}),
      ...(router.metricsUrl ? { metrics: router.metricsUrl } : {}),
    });
    await new Promise<void>((resolve) =>
      stop.signal.aborted
        ? resolve()
        : stop.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    log({ logger: 'sandbox-router', msg: 'shutting down' });
    await router.close();
    await options.client?.close();
    return 0;
  } finally {
    stop.dispose();
  }
}

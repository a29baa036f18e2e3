// resolveConnection(): ConnectionOptions (+ the injected environment) → one validated Connection
// with a Kubernetes client, the namespace, how to reach the data plane and the tracer.
import { KubeClient, loadKubeConfig, type KubeConfig } from '@agent-sandbox/kube';
import { trace, type Tracer } from '@opentelemetry/api';
import { SANDBOXD_GRPC_PORT, SANDBOXD_REST_PORT } from '@agent-sandbox/protocol';
import { ConfigError, InvalidArgumentError, fromKubeError } from './errors.ts';
import type { ConnectionOptions, Env } from './options.ts';
import { checkDnsLabel, checkDnsSubdomain, checkPort } from './validation.ts';

export const SDK_NAME = '@agent-sandbox/sdk';
export const SDK_VERSION = '0.1.0';
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

export interface DataPlaneTarget {
  /** Set: every data-plane call goes through this router. */
  routerUrl: string | undefined;
  /** The router's per-sandbox host domain (getHost). */
  sandboxDomain: string | undefined;
  restPort: number;
  grpcPort: number;
  /** Deadline for reaching the daemon and starting a command (ConnectionOptions.connectTimeoutMs). */
  connectTimeoutMs: number;
}

/** Everything a Sandbox handle needs to talk to the control and data planes. */
export interface Connection {
  kube: KubeClient;
  namespace: string;
  dataPlane: DataPlaneTarget;
  tracer: Tracer;
  requestTimeoutMs: number;
}

/** Validates and resolves the options (explicit → env → default); throws SdkErrors only. */
export function resolveConnection(options: ConnectionOptions, env: Env): Connection {
  const kubeConfig = resolveKubeConfig(options, env);
  const namespace = options.namespace ?? env['AGENT_SANDBOX_NAMESPACE'] ?? kubeConfig.namespace;
  checkDnsLabel('namespace', namespace);
  const requestTimeoutMs =
    options.requestTimeoutMs ??
    numberFromEnv(env, 'AGENT_SANDBOX_REQUEST_TIMEOUT_MS') ??
    DEFAULT_REQUEST_TIMEOUT_MS;
  checkPositiveMs('requestTimeoutMs', requestTimeoutMs);
  const connectTimeoutMs =
    options.connectTimeoutMs ??
    numberFromEnv(env, 'AGENT_SANDBOX_CONNECT_TIMEOUT_MS') ??
    DEFAULT_CONNECT_TIMEOUT_MS;
  checkPositiveMs('connectTimeoutMs', connectTimeoutMs);
  const routerUrl = options.routerUrl ?? (env['AGENT_SANDBOX_ROUTER_URL'] || undefined);
  if (routerUrl !== undefined) checkHttpUrl('routerUrl', routerUrl);
  const sandboxDomain = options.sandboxDomain ?? (env['AGENT_SANDBOX_SANDBOX_DOMAIN'] || undefined);
  if (sandboxDomain !== undefined) checkDnsSubdomain('sandboxDomain', sandboxDomain.toLowerCase());
  const dataPlane: DataPlaneTarget = {
    routerUrl: routerUrl?.replace(/\/+$/, ''),
    sandboxDomain: sandboxDomain?.toLowerCase(),
    restPort: checkPort('sandboxdPorts.rest', options.sandboxdPorts?.rest ?? SANDBOXD_REST_PORT),
    grpcPort: checkPort('sandboxdPorts.grpc', options.sandboxdPorts?.grpc ?? SANDBOXD_GRPC_PORT),
    connectTimeoutMs,
  };
  const provider = options.tracerProvider ?? trace.getTracerProvider();
  let kube: KubeClient;
  try {
    kube = new KubeClient({
      config: kubeConfig,
      timeoutMs: requestTimeoutMs,
      userAgent: `${SDK_NAME}/${SDK_VERSION}`,
    });
  } catch (err: unknown) {
    throw fromKubeError(err);
  }
  return {
    kube,
    namespace,
    dataPlane,
    tracer: provider.getTracer(SDK_NAME, SDK_VERSION),
    requestTimeoutMs,
  };
}

function resolveKubeConfig(options: ConnectionOptions, env: Env): KubeConfig {
  const explicit = options.apiServer ?? apiServerFromEnv(env);
  if (explicit) {
    checkHttpUrl('apiServer.url', explicit.url);
    const config: KubeConfig = {
      server: explicit.url.replace(/\/+$/, ''),
      namespace: 'default',
      insecureSkipTlsVerify: explicit.insecureSkipTlsVerify ?? false,
    };
    if (explicit.token) config.token = explicit.token;
    if (explicit.caPem) config.caPem = explicit.caPem;
    if (explicit.clientCertPem) config.clientCertPem = explicit.clientCertPem;
    if (explicit.clientKeyPem) config.clientKeyPem = explicit.clientKeyPem;
    return config;
  }
  const context = options.context ?? (env['AGENT_SANDBOX_CONTEXT'] || undefined);
  try {
    return loadKubeConfig({
      env,
      ...(options.kubeconfig ? { kubeconfig: options.kubeconfig } : {}),
      ...(context ? { context } : {}),
    });
  } catch (err: unknown) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ConfigError(
      `no Kubernetes connection: ${why} (pass kubeconfig or apiServer, or set KUBECONFIG or AGENT_SANDBOX_API_URL)`,
      { cause: err },
    );
  }
}

function apiServerFromEnv(env: Env): ConnectionOptions['apiServer'] {
  const url = env['AGENT_SANDBOX_API_URL'];
  if (!url) return undefined;
  const token = env['AGENT_SANDBOX_TOKEN'];
  return token ? { url, token } : { url };
}

function numberFromEnv(env: Env, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new ConfigError(`${name}=${raw} is not a number`);
  return n;
}

function checkPositiveMs(name: string, value: number): void {
  if (!Number.isInteger(value) || value <= 0)
    throw new InvalidArgumentError(`${name} ${value} must be a whole number of milliseconds > 0`);
}

function checkHttpUrl(name: string, value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError(`${name} "${value}" is not a URL; use e.g. http://host:port`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidArgumentError(`${name} "${value}" must be an http:// or https:// URL`);
}

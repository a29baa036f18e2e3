// Connection options shared by every entry point (Sandbox.create, connect, list), resolved once
// in resolveConnection(): explicit option → environment variable → default, each documented with
// @default. The environment comes in as an object; only env.ts supplies process.env.
import type { TracerProvider } from '@opentelemetry/api';

export type Env = Readonly<Record<string, string | undefined>>;

/** An API server given explicitly instead of through a kubeconfig. */
export interface ApiServerOptions {
  /** e.g. `https://127.0.0.1:6443`. */
  url: string;
  /** Bearer token. */
  token?: string;
  /** PEM CA bundle that signed the server's certificate; absent means the system roots. */
  caPem?: string;
  /** @default false */
  insecureSkipTlsVerify?: boolean;
  clientCertPem?: string;
  clientKeyPem?: string;
}

/** Where a sandbox's daemon (sandboxd) listens when the SDK dials its Pod IP directly. */
export interface SandboxdPorts {
  /** REST (files). @default 8080 */
  rest?: number;
  /** gRPC (processes). @default 9090 */
  grpc?: number;
}

export interface ConnectionOptions {
  /**
   * The API server, explicitly; wins over every kubeconfig setting.
   * @default env AGENT_SANDBOX_API_URL (+ AGENT_SANDBOX_TOKEN), else the kubeconfig
   */
  apiServer?: ApiServerOptions;
  /**
   * Path of a kubeconfig file.
   * @default env KUBECONFIG, then the in-cluster service account, then ~/.kube/config
   */
  kubeconfig?: string;
  /** Context of the kubeconfig to use. @default env AGENT_SANDBOX_CONTEXT, then current-context */
  context?: string;
  /**
   * Namespace of the sandboxes.
   * @default env AGENT_SANDBOX_NAMESPACE, then the kubeconfig context's namespace, then 'default'
   */
  namespace?: string;
  /**
   * Base URL of the sandbox router; data-plane calls go through it with `X-Sandbox-*` headers.
   * @default env AGENT_SANDBOX_ROUTER_URL; unset: the SDK dials the sandbox's Pod IP
   */
  routerUrl?: string;
  /**
   * Domain of the router's per-sandbox host names, `<port>-<sandbox>.<namespace>.<domain>`
   * (the router's sandbox domain), used by getHost() with `routerUrl`.
   * @default env AGENT_SANDBOX_SANDBOX_DOMAIN; unset: getHost() needs it when routerUrl is set
   */
  sandboxDomain?: string;
  /** Ports of sandboxd on the Pod IP (direct mode only). @default { rest: 8080, grpc: 9090 } */
  sandboxdPorts?: SandboxdPorts;
  /**
   * Deadline of each Kubernetes API request, in ms.
   * @default env AGENT_SANDBOX_REQUEST_TIMEOUT_MS, then 30_000
   */
  requestTimeoutMs?: number;
  /**
   * How long a command may take to reach the sandbox's daemon and start (connection, HTTP/2
   * handshake, spawn), in ms; past it the call fails naming the sandbox and the address instead
   * of waiting out the command's own time limit. The same deadline holds for a file call's answer
   * (a body given whole gets a second more per MiB; a streamed one restarts it with each chunk
   * sent), a one-shot gRPC call (kill, stdin, resize) and a file watch's connection.
   * @default env AGENT_SANDBOX_CONNECT_TIMEOUT_MS, then 10_000
   */
  connectTimeoutMs?: number;
  /** Spans go to this provider. @default the global OpenTelemetry provider (no-op without an SDK) */
  tracerProvider?: TracerProvider;
  /**
   * The environment the defaults above are read from (not the sandbox's: that is `env` of
   * Sandbox.create). @default process.env
   */
  hostEnv?: Env;
}

/** What to create a sandbox from: exactly one of the three. */
export interface SandboxSource {
  /** Take a sandbox from this SandboxWarmPool (a warm start when it has a ready member). */
  warmPool?: string;
  /**
   * Create one cold from this SandboxTemplate, through a claim on the replicas-0 pool
   * `shadow-pool-<template>` (upstream's name for it), which is created when missing.
   */
  template?: string;
  /** Run this image with no template: a Sandbox with one container named `sandbox`. */
  image?: string;
}

export interface CreateSpec extends SandboxSource {
  /** Name of the claim (or of the Sandbox, for `image`). @default `sandbox-<8 hex digits>` */
  name?: string;
  /** Lifetime from now, in ms; the sandbox is deleted then (setTimeout() moves it). @default none */
  timeoutMs?: number;
  /** Environment variables of the sandbox; with a warm pool they force a cold start. @default {} */
  env?: Record<string, string>;
  /** Labels of the claim (or Sandbox); list() selects by them. @default {} */
  labels?: Record<string, string>;
  /** Annotations of the claim (or Sandbox), returned by info() as `metadata`. @default {} */
  metadata?: Record<string, string>;
  /** How long to wait until the sandbox is Ready, in ms. @default 180_000 */
  readyTimeoutMs?: number;
  /** Aborts the wait; what was created is deleted. */
  signal?: AbortSignal;
}

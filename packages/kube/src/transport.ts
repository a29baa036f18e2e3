// The connections KubeClient talks over (ADR 0032): HTTP/1.1 keep-alive through undici, with
// requests on a bounded pool and watches apart, so a controller's many long watches can neither
// starve nor be starved by its requests.
import { Agent, fetch as undiciFetch } from 'undici';
import type { KubeConfig } from './kubeconfig.ts';

export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal },
) => Promise<Response>;

export interface TransportOptions {
  /** Connections per API server for requests (watches have their own). */
  maxConnections: number;
  /** How long an idle connection stays open when the server sends no Keep-Alive hint. */
  keepAliveTimeoutMs: number;
}

export const DEFAULT_TRANSPORT_OPTIONS: TransportOptions = {
  maxConnections: 16,
  // kube-apiserver closes idle connections after 90 s and sends no hint; Node servers send one
  // (undici then closes 2 s before the server would).
  keepAliveTimeoutMs: 30_000,
};

/**
 * Two dispatchers for one API server. Contract: `request` and `watch` reuse idle connections;
 * `request` opens at most `maxConnections` and queues the rest; `watch` opens one per open
 * watch (a watch holds its connection until the stream ends) and has no body timeout (watches
 * are long and quiet; timeoutSeconds bounds them). `close` aborts both, open watches included.
 */
export interface Transport {
  request: FetchLike;
  watch: FetchLike;
  close(): Promise<void>;
}

export function createTransport(config: KubeConfig, options: TransportOptions): Transport {
  const connect = {
    rejectUnauthorized: !config.insecureSkipTlsVerify,
    ...(config.caPem ? { ca: config.caPem } : {}),
    ...(config.clientCertPem ? { cert: config.clientCertPem } : {}),
    ...(config.clientKeyPem ? { key: config.clientKeyPem } : {}),
    ...(config.tlsServerName ? { servername: config.tlsServerName } : {}),
  };
  const keepAliveTimeout = options.keepAliveTimeoutMs;
  const requests = new Agent({ connect, keepAliveTimeout, connections: options.maxConnections });
  const watches = new Agent({ connect, keepAliveTimeout, bodyTimeout: 0 });
  const via =
    (agent: Agent): FetchLike =>
    (url, init) =>
      undiciFetch(url, { ...init, dispatcher: agent }) as unknown as Promise<Response>;
  return {
    request: via(requests),
    watch: via(watches),
    close: async () => {
      await Promise.all([requests.destroy(), watches.destroy()]);
    },
  };
}

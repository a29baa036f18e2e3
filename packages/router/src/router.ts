// Composes the router: the proxy port, the probe port (/healthz, /readyz) and the metrics port
// (dataplane §2.1, §2.11, §2.16). With the cache on, nothing is bound before the first Pod list
// is in (upstream blocks the same way). Library code: the caller passes options and logger.
import { Agent, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeClient } from '@agent-sandbox/kube';
import { ROUTER_HEALTHZ_BODY } from '@agent-sandbox/protocol';
import {
  allowAll,
  scopedTokenAuthorizer,
  tokenReviewAuthorizer,
  type Authorizer,
} from './authz.ts';
import { InvalidOptionError } from './errors.ts';
import { RouterMetrics } from './metrics.ts';
import { PodIpCache } from './pod-cache.ts';
import { SandboxWaker } from './wake.ts';
import { answerRefusals } from '@agent-sandbox/protocol/node';
import {
  detailBody,
  handleRequest,
  handleUpgrade,
  type AccessLogEntry,
  type ProxyDeps,
} from './proxy.ts';

export type AuthzMode = 'allow-all' | 'tokenreview' | 'scoped-token';

export interface RouterOptions {
  /** host:port; port 0 picks a free one. @default { host: '0.0.0.0', port: 8080 } */
  proxy?: { host: string; port: number };
  /** Probe listener; undefined = off. */
  probe?: { host: string; port: number };
  /** Metrics listener; undefined = off. */
  metrics?: { host: string; port: number };
  /** Needed for the cache and tokenreview. */
  client?: KubeClient;
  /** @default false */
  cacheEnabled?: boolean;
  /** '' = all namespaces */
  cacheNamespace?: string;
  /** @default cluster.local */
  clusterDomain?: string;
  /** @default false */
  allowLoopbackPodIp?: boolean;
  /** @default 180_000 */
  proxyTimeoutMs?: number;
  /** @default 30_000 */
  responseHeaderTimeoutMs?: number;
  /** Inbound request headers must arrive within this (Go's ReadHeaderTimeout). @default 10_000 */
  readHeaderTimeoutMs?: number;
  /** @default 3 */
  upstreamMaxRetries?: number;
  /** @default 200 */
  upstreamRetryInitialDelayMs?: number;
  /** @default 800 */
  upstreamRetryMaxDelayMs?: number;
  /** 0 = unlimited. @default 0 */
  maxRequestBodyBytes?: number;
  /** @default allow-all */
  authzMode?: AuthzMode;
  tokenReview?: {
    audiences?: string[];
    ttlMs?: number;
    cacheSize?: number;
    requireToken?: boolean;
  };
  /** Secret for scoped-token mode (≥ 32 bytes). */
  scopedTokenSecret?: string;
  /**
   * Beyond upstream: a request for a suspended (or not yet Ready) Sandbox resumes it and waits up
   * to this long for Ready; 0 = off. Needs `client`. @default 0
   */
  wakeTimeoutMs?: number;
  /** Beyond upstream: serve `<port>-<sandbox>.<namespace>.<sandboxDomain>` hosts. */
  sandboxDomain?: string;
  accessLog?: (entry: AccessLogEntry) => void;
  /** Structured log lines for errors a boundary answered (bugs, not backend failures). */
  log?: (msg: string, fields: Record<string, unknown>) => void;
  /** @default 0.1.0 */
  version?: string;
}

export interface RunningRouter {
  proxyUrl: string;
  probeUrl?: string;
  metricsUrl?: string;
  metrics: RouterMetrics;
  /** Marks unready, then closes every listener. */
  close(): Promise<void>;
}

function authorizerFor(o: RouterOptions): Authorizer {
  switch (o.authzMode ?? 'allow-all') {
    case 'allow-all':
      return allowAll;
    case 'tokenreview':
      if (!o.client)
        throw new InvalidOptionError(
          '--authz-mode=tokenreview needs a Kubernetes client (--kubeconfig)',
        );
      return tokenReviewAuthorizer({ client: o.client, ...o.tokenReview });
    case 'scoped-token':
      if (!o.scopedTokenSecret)
        throw new InvalidOptionError(
          '--authz-mode=scoped-token needs --authz-scoped-token-secret-file',
        );
      return scopedTokenAuthorizer(o.scopedTokenSecret);
    default:
      throw new InvalidOptionError(
        `--authz-mode "${String(o.authzMode)}" must be allow-all, tokenreview or scoped-token`,
      );
  }
}

function listen(server: Server, at: { host: string; port: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => {
      server.off('error', reject);
      const a = server.address() as AddressInfo;
      resolve(`http://${at.host.includes(':') ? `[${at.host}]` : at.host}:${a.port}`);
    });
  });
}

const closeServer = (s: Server) =>
  new Promise<void>((resolve) => {
    s.close(() => resolve());
    s.closeAllConnections();
  });

export async function startRouter(o: RouterOptions = {}): Promise<RunningRouter> {
  const metrics = new RouterMetrics(o.version ?? '0.1.0');
  const authorizer = authorizerFor(o);
  const stop = new AbortController();
  let cache: PodIpCache | undefined;
  if (o.cacheEnabled) {
    if (!o.client)
      throw new InvalidOptionError('--cache-enabled needs a Kubernetes client (--kubeconfig)');
    cache = new PodIpCache(o.client, o.cacheNamespace || undefined);
    void cache.informer.run(stop.signal).catch(() => undefined);
    try {
      await cache.informer.waitForSync(AbortSignal.any([stop.signal, AbortSignal.timeout(60_000)]));
    } catch (err: unknown) {
      stop.abort();
      throw new InvalidOptionError(
        `pod cache did not sync within 60s (check pods get/list/watch RBAC): ${String(err)}`,
      );
    }
  }
  let waker: SandboxWaker | undefined;
  if (o.wakeTimeoutMs) {
    if (!o.client) throw new InvalidOptionError('wake-on-request needs a Kubernetes client');
    waker = new SandboxWaker({
      client: o.client,
      timeoutMs: o.wakeTimeoutMs,
      ...(o.cacheNamespace ? { namespace: o.cacheNamespace } : {}),
    });
    void waker.informer.run(stop.signal).catch(() => undefined);
    try {
      await waker.informer.waitForSync(AbortSignal.any([stop.signal, AbortSignal.timeout(60_000)]));
    } catch (err: unknown) {
      stop.abort();
      throw new InvalidOptionError(
        `sandbox cache did not sync within 60s (check sandboxes get/list/watch RBAC): ${String(err)}`,
      );
    }
  }
  const agent = new Agent({
    keepAlive: true,
    maxSockets: Infinity,
    maxFreeSockets: 16,
    keepAliveMsecs: 30_000,
    timeout: 90_000,
  });
  const deps: ProxyDeps = {
    authorizer,
    ...(cache ? { cache } : {}),
    metrics,
    agent,
    clusterDomain: o.clusterDomain ?? 'cluster.local',
    allowLoopbackPodIp: o.allowLoopbackPodIp ?? false,
    proxyTimeoutMs: o.proxyTimeoutMs ?? 180_000,
    responseHeaderTimeoutMs: o.responseHeaderTimeoutMs ?? 30_000,
    maxRetries: o.upstreamMaxRetries ?? 3,
    retryInitialDelayMs: o.upstreamRetryInitialDelayMs ?? 200,
    retryMaxDelayMs: o.upstreamRetryMaxDelayMs ?? 800,
    maxRequestBodyBytes: o.maxRequestBodyBytes ?? 0,
    ...(o.sandboxDomain ? { sandboxDomain: o.sandboxDomain } : {}),
    ...(o.accessLog ? { accessLog: o.accessLog } : {}),
    ...(o.log ? { log: o.log } : {}),
    ...(waker ? { waker } : {}),
  };
  const servers: Server[] = [];
  let ready = false;
  const readHeaderTimeoutMs = o.readHeaderTimeoutMs ?? 10_000;
  // Node checks header deadlines every connectionsCheckingInterval (30 s by default), which would
  // let a slowloris client hold a connection for 40 s; check often enough to keep the bound.
  const serverOptions = {
    connectionsCheckingInterval: Math.max(100, Math.min(1000, readHeaderTimeoutMs / 2)),
  };
  const proxy = createServer(serverOptions, (req, res) => handleRequest(req, res, deps));
  // Requests Node's parser refuses, and CONNECT, get upstream's `{"detail"}` shape too.
  answerRefusals(proxy, (r) => detailBody(r.message));
  proxy.on('upgrade', (req, socket, head) =>
    handleUpgrade(req, socket as import('node:net').Socket, head, deps),
  );
  proxy.headersTimeout = readHeaderTimeoutMs;
  proxy.requestTimeout = 0;
  proxy.keepAliveTimeout = 120_000;
  servers.push(proxy);
  const result: RunningRouter = {
    proxyUrl: await listen(proxy, o.proxy ?? { host: '0.0.0.0', port: 8080 }),
    metrics,
    close: async () => {
      ready = false;
      stop.abort();
      await Promise.all(servers.map(closeServer));
      agent.destroy();
    },
  };
  if (o.probe) {
    const probe = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path === '/healthz')
        res.writeHead(200, { 'content-type': 'application/json' }).end(ROUTER_HEALTHZ_BODY);
      else if (path === '/readyz')
        res
          .writeHead(ready ? 200 : 503, { 'content-type': 'text/plain' })
          .end(ready ? 'ok' : 'draining');
      else res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
    });
    answerRefusals(probe, (r) => detailBody(r.message));
    servers.push(probe);
    result.probeUrl = await listen(probe, o.probe);
  }
  if (o.metrics) {
    const m = createServer((req, res) => {
      if ((req.url ?? '').split('?')[0] !== '/metrics') return void res.writeHead(404).end();
      metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    });
    answerRefusals(m, (r) => detailBody(r.message));
    servers.push(m);
    result.metricsUrl = await listen(m, o.metrics);
  }
  ready = true;
  return result;
}

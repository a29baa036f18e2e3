// The proxy port's request path (dataplane §2.5–§2.8, §2.10): parse → authorize → resolve → dial
// with retries (dial-class failures only: no body byte has left yet) → stream both ways with no
// buffering. Upgrades (WebSocket and others) are spliced at the socket level with no timeout.
// One error boundary per entry (handleRequest, handleUpgrade): a throw or rejection anywhere on
// the way ends as upstream's `{"detail"}` JSON 502 (the cause logged), never a crash.
import {
  request as httpRequest,
  type Agent,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { connect, type Socket } from 'node:net';
import {
  originForm,
  requestRefusal,
  ROUTER_HEALTHZ_BODY,
  RouterDetail,
} from '@agent-sandbox/protocol';
import type { Authorizer } from './authz.ts';
import { RouterError } from './errors.ts';
import { errorReason, type RouterMetrics } from './metrics.ts';
import type { PodIpCache } from './pod-cache.ts';
import { hostRoute, parseRoute, type RouteTarget } from './routing.ts';
import type { SandboxWaker } from './wake.ts';

export interface AccessLogEntry {
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  client_ip: string;
  sandbox_id: string;
  sandbox_namespace: string;
  bytes_out: number;
  user_agent: string;
}

export interface ProxyDeps {
  authorizer: Authorizer;
  cache?: PodIpCache;
  metrics: RouterMetrics;
  agent: Agent;
  clusterDomain: string;
  allowLoopbackPodIp: boolean;
  /** Per-request deadline (upgrades exempt). */
  proxyTimeoutMs: number;
  responseHeaderTimeoutMs: number;
  maxRetries: number;
  retryInitialDelayMs: number;
  retryMaxDelayMs: number;
  /** 0 = unlimited */
  maxRequestBodyBytes: number;
  /** Beyond upstream: `<port>-<sandbox>.<namespace>.<domain>` routing. */
  sandboxDomain?: string;
  accessLog?: (entry: AccessLogEntry) => void;
  /** Errors the boundary answered (a bug, not a backend failure). */
  log?: (msg: string, fields: Record<string, unknown>) => void;
  /** Beyond upstream: resume suspended Sandboxes on request (wake.ts). */
  waker?: SandboxWaker;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
]);
const DROPPED = new Set([
  'host',
  'authorization',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
]);

type Resolved = {
  host: string;
  port: number;
  source: 'pod-ip' | 'cache' | 'cache-name' | 'dns' | 'wake';
  evictKey?: string;
};

/** Resolve order (§2.3): header pod IP, cache by UID, cache by name, DNS. */
export function resolveTarget(
  t: RouteTarget,
  cache: PodIpCache | undefined,
  clusterDomain: string,
): Resolved {
  if (t.podIp) return { host: t.podIp, port: t.port, source: 'pod-ip' };
  if (cache) {
    const byUid = t.uid ? cache.lookupUid(t.uid) : undefined;
    if (byUid) return { host: byUid.ip, port: t.port, source: 'cache', evictKey: t.uid! };
    const byName = cache.lookupName(t.namespace, t.id);
    if (byName)
      return {
        host: byName.ip,
        port: t.port,
        source: 'cache-name',
        evictKey: `${t.namespace}/${t.id}`,
      };
  }
  return { host: `${t.id}.${t.namespace}.svc.${clusterDomain}`, port: t.port, source: 'dns' };
}

/** Upstream request headers: hop-by-hop, Host, Authorization and Forwarded-* removed; X-Forwarded-* set. */
export function upstreamHeaders(
  req: IncomingMessage,
  target: { host: string; port: number },
  upgrade: boolean,
  tls: boolean,
): OutgoingHttpHeaders {
  const named = new Set(
    (req.headers.connection ?? '').split(',').map((s) => s.trim().toLowerCase()),
  );
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || DROPPED.has(k) || named.has(k)) continue;
    if (HOP_BY_HOP.has(k) && !(upgrade && (k === 'upgrade' || k === 'connection'))) continue;
    if (upgrade && k === 'origin') continue;
    out[k] = v;
  }
  const hostPart = target.host.includes(':') ? `[${target.host}]` : target.host;
  out.host = `${hostPart}:${target.port}`;
  out['x-forwarded-for'] = req.socket.remoteAddress ?? '';
  if (req.headers.host) out['x-forwarded-host'] = req.headers.host;
  out['x-forwarded-proto'] = tls ? 'https' : 'http';
  if (upgrade) {
    out.connection = 'Upgrade';
    out.upgrade = req.headers.upgrade ?? '';
  }
  return out;
}

export function detailBody(detail: string): string {
  return `${JSON.stringify({ detail })}\n`;
}

const first = (req: IncomingMessage) => (name: string) => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

const DIAL_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'ECONNRESET',
  'EADDRNOTAVAIL',
]);
const codeOf = (err: unknown) =>
  typeof err === 'object' && err !== null && 'code' in err
    ? String((err as { code: unknown }).code)
    : '';

interface Prepared {
  target: RouteTarget;
  resolved: Resolved;
}

/** Routing + authorization shared by plain requests and upgrades; a string is a refusal. */
async function prepare(
  req: IncomingMessage,
  deps: ProxyDeps,
): Promise<Prepared | { status: number; detail: string; namespace: string }> {
  const byHost = hostRoute(req.headers.host ?? '', deps.sandboxDomain);
  const get = byHost ? (n: string) => byHost[n] ?? first(req)(n) : first(req);
  const parsed = parseRoute(get, { allowLoopbackPodIp: deps.allowLoopbackPodIp });
  if (!parsed.ok) return { status: 400, detail: parsed.detail, namespace: parsed.namespace ?? '-' };
  const t = parsed.target;
  try {
    await deps.authorizer.authorize({
      authorization: first(req)('authorization'),
      namespace: t.namespace,
      id: t.id,
      redirects: t.podIp !== undefined || t.uid !== undefined,
    });
    deps.metrics.authz.inc({ sandbox_namespace: t.namespace, decision: 'allow' });
  } catch (err: unknown) {
    deps.metrics.authz.inc({ sandbox_namespace: t.namespace, decision: 'deny' });
    const status =
      err instanceof RouterError
        ? err.code === 'Unauthenticated'
          ? 401
          : err.code === 'Forbidden'
            ? 403
            : 500
        : 500;
    return {
      status,
      detail: err instanceof Error ? err.message : String(err),
      namespace: t.namespace,
    };
  }
  // A Sandbox that does not serve now (suspended, or not Ready yet): resume it and wait, then
  // dial the IP it reports (a pod-IP header from before the suspension is stale by then).
  if (deps.waker?.needsWake(t.namespace, t.id)) {
    const woken = await deps.waker.wake(
      t.namespace,
      t.id,
      AbortSignal.timeout(deps.proxyTimeoutMs),
    );
    deps.metrics.wakes.inc({
      sandbox_namespace: t.namespace,
      outcome: woken.ok ? 'ready' : woken.status === 504 ? 'timeout' : 'failed',
    });
    if (!woken.ok) return { status: woken.status, detail: woken.detail, namespace: t.namespace };
    return { target: t, resolved: { host: woken.ip, port: t.port, source: 'wake' } };
  }
  return { target: t, resolved: resolveTarget(t, deps.cache, deps.clusterDomain) };
}

const delay = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** Handles one non-upgrade request on the proxy port. */
export function handleRequest(req: IncomingMessage, res: ServerResponse, deps: ProxyDeps): void {
  const started = performance.now();
  const target = originForm(req.url ?? '/');
  const path = target.split('?')[0] ?? '/';
  const refusal = requestRefusal(req.method ?? '', req.rawHeaders);
  if (refusal) {
    const body = detailBody(refusal.message);
    res.shouldKeepAlive = false;
    res
      .writeHead(refusal.status, {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      })
      .end(body);
    return;
  }
  if (path === '/healthz') {
    res
      .writeHead(200, {
        'content-type': 'application/json',
        'content-length': String(ROUTER_HEALTHZ_BODY.length),
      })
      .end(ROUTER_HEALTHZ_BODY);
    return;
  }
  deps.metrics.inflight.inc();
  let namespace = '-';
  let bytesOut = 0;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    deps.metrics.inflight.dec();
    const labels = {
      method: req.method ?? '',
      code: String(res.statusCode),
      sandbox_namespace: namespace,
    };
    deps.metrics.requests.inc(labels);
    deps.metrics.duration.observe(labels, (performance.now() - started) / 1000);
    deps.accessLog?.({
      method: req.method ?? '',
      path,
      status: res.statusCode,
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      client_ip: req.socket.remoteAddress ?? '',
      sandbox_id: first(req)('x-sandbox-id') ?? '',
      sandbox_namespace: first(req)('x-sandbox-namespace') ?? '',
      bytes_out: bytesOut,
      user_agent: first(req)('user-agent') ?? '',
    });
  };
  res.once('finish', finish);
  res.once('close', finish);
  const fail = (status: number, detail: string) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const body = detailBody(detail);
    res
      .writeHead(status, {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        // A body still arriving (a slow client cut at the deadline) is not read on: close.
        ...(req.complete ? {} : { connection: 'close' }),
      })
      .end(body);
  };
  req.pause();
  // A body cut short errors `req`; forward() sees it as 'aborted', and an unheard 'error' event
  // must not end the process.
  req.on('error', () => undefined);
  Promise.resolve()
    .then(() => prepare(req, deps))
    .then((p) => {
      if ('detail' in p) {
        namespace = p.namespace;
        return fail(p.status, p.detail);
      }
      namespace = p.target.namespace;
      return forward(req, res, deps, { ...p, path: target }, (n) => (bytesOut += n), fail);
    })
    .catch((err: unknown) => {
      logFailure(deps, req, err);
      fail(502, RouterDetail.backendUnreachable(first(req)('x-sandbox-id') ?? ''));
    });
}

function logFailure(deps: ProxyDeps, req: IncomingMessage, err: unknown): void {
  deps.log?.('proxy request failed', {
    method: req.method,
    path: (req.url ?? '').split('?')[0]?.slice(0, 256),
    error: err instanceof Error ? err.message : String(err),
  });
}

async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  deps: ProxyDeps,
  p: Prepared & { path: string },
  count: (n: number) => void,
  fail: (status: number, detail: string) => void,
): Promise<void> {
  const { target, resolved } = p;
  const deadline = AbortSignal.timeout(deps.proxyTimeoutMs);
  const headers = upstreamHeaders(req, resolved, false, false);
  let delayMs = deps.retryInitialDelayMs > 0 ? deps.retryInitialDelayMs : 200;
  const maxDelay = deps.retryMaxDelayMs > 0 ? deps.retryMaxDelayMs : 800;
  let bodyBytes = 0;
  for (let attempt = 0; ; attempt++) {
    const outcome = await new Promise<'done' | { dialError: unknown }>((resolve) => {
      let sent = false;
      const up = httpRequest({
        host: resolved.host,
        port: resolved.port,
        method: req.method,
        path: p.path,
        headers,
        agent: deps.agent,
        signal: deadline,
      });
      const headerTimer = setTimeout(
        () => up.destroy(Object.assign(new Error('response header timeout'), { code: 'TIMEOUT' })),
        deps.responseHeaderTimeoutMs,
      );
      up.once('socket', (s: Socket) => {
        const go = () => {
          sent = true;
          req.on('data', (c: Buffer) => {
            bodyBytes += c.length;
            if (deps.maxRequestBodyBytes > 0 && bodyBytes > deps.maxRequestBodyBytes)
              up.destroy(
                Object.assign(new Error('request body too large'), { code: 'BODY_LIMIT' }),
              );
          });
          req.pipe(up);
          req.resume();
        };
        if (s.connecting) s.once('connect', go);
        else go();
      });
      up.once('response', (ur: IncomingMessage) => {
        clearTimeout(headerTimer);
        const out: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(ur.headers))
          if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
        res.writeHead(ur.statusCode ?? 502, out);
        // A stream (no length) gets its head at once; a sized body carries the head in its first
        // write, one packet and one client wake-up fewer per small response (/execute, /exists).
        if (ur.headers['content-length'] === undefined) res.flushHeaders();
        ur.on('data', (c: Buffer) => {
          count(c.length);
          if (!res.write(c)) {
            ur.pause();
            res.once('drain', () => ur.resume());
          }
        });
        ur.once('end', () => {
          res.end();
          resolve('done');
        });
        // The backend went away mid-body: the head has left, so cut the client off too.
        ur.on('error', () => {
          res.destroy();
          resolve('done');
        });
        res.once('close', () => {
          if (!ur.complete) up.destroy();
        });
      });
      let failed = false;
      up.on('error', (err: unknown) => {
        clearTimeout(headerTimer);
        if (failed) return; // a second error on a dead request is not news
        failed = true;
        if (!sent && DIAL_CODES.has(codeOf(err))) {
          resolve({ dialError: err });
          return;
        }
        deps.metrics.upstreamErrors.inc({
          sandbox_namespace: target.namespace,
          reason: deadline.aborted ? 'timeout' : errorReason(err),
        });
        fail(502, RouterDetail.backendUnreachable(target.id));
        resolve('done');
      });
      req.once('aborted', () => up.destroy());
    });
    if (outcome === 'done') return;
    const dead = codeOf(outcome.dialError) !== 'ECONNREFUSED';
    if (
      dead &&
      resolved.evictKey &&
      deps.cache &&
      (resolved.source === 'cache' || resolved.source === 'cache-name')
    ) {
      if (
        deps.cache.evict(
          resolved.source === 'cache' ? 'uid' : 'name',
          resolved.evictKey,
          resolved.host,
        )
      ) {
        deps.metrics.invalidations.inc({ sandbox_namespace: target.namespace });
      }
    }
    if (attempt >= deps.maxRetries || deadline.aborted) {
      deps.metrics.upstreamErrors.inc({
        sandbox_namespace: target.namespace,
        reason: errorReason(outcome.dialError),
      });
      fail(502, RouterDetail.backendUnreachable(target.id));
      return;
    }
    deps.metrics.retries.inc({ sandbox_namespace: target.namespace });
    await delay(delayMs, deadline);
    delayMs = Math.min(delayMs * 2, maxDelay);
  }
}

/** Upgrade pass-through: the request head is rewritten, then bytes are spliced both ways. */
export function handleUpgrade(
  req: IncomingMessage,
  client: Socket,
  head: Buffer,
  deps: ProxyDeps,
): void {
  client.on('error', () => client.destroy());
  const refuse = (status: number, detail: string) => {
    const body = detailBody(detail);
    client.end(
      `HTTP/1.1 ${status} ${status === 502 ? 'Bad Gateway' : 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  };
  prepare(req, deps)
    .then((p) => {
      if ('detail' in p) return refuse(p.status, p.detail);
      const headers = upstreamHeaders(req, p.resolved, true, false);
      const upstream = connect(p.resolved.port, p.resolved.host);
      upstream.once('error', () => refuse(502, RouterDetail.backendUnreachable(p.target.id)));
      upstream.once('connect', () => {
        const lines = [`${req.method} ${originForm(req.url ?? '/')} HTTP/1.1`];
        for (const [k, v] of Object.entries(headers))
          for (const x of Array.isArray(v) ? v : [v]) lines.push(`${k}: ${String(x)}`);
        upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head.length > 0) upstream.write(head);
        upstream.removeAllListeners('error');
        upstream.on('error', () => client.destroy());
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        upstream.pipe(client);
        client.pipe(upstream);
      });
    })
    .catch((err: unknown) => {
      logFailure(deps, req, err);
      refuse(502, RouterDetail.backendUnreachable(first(req)('x-sandbox-id') ?? ''));
    });
}

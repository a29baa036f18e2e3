// The router's Prometheus metrics (dataplane §2.14) in a private registry. No label carries a
// sandbox ID: namespace is the only per-tenant label, so cardinality stays bounded.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export class RouterMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'sandbox_router_requests_total',
    help: 'Proxied requests',
    labelNames: ['method', 'code', 'sandbox_namespace'],
    registers: [this.registry],
  });
  readonly duration = new Histogram({
    name: 'sandbox_router_request_duration_seconds',
    help: 'Request duration',
    labelNames: ['method', 'code', 'sandbox_namespace'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 180],
    registers: [this.registry],
  });
  readonly inflight = new Gauge({
    name: 'sandbox_router_inflight_requests',
    help: 'Requests in flight',
    registers: [this.registry],
  });
  readonly upstreamErrors = new Counter({
    name: 'sandbox_router_upstream_errors_total',
    help: 'Upstream round-trip errors',
    labelNames: ['sandbox_namespace', 'reason'],
    registers: [this.registry],
  });
  readonly retries = new Counter({
    name: 'sandbox_router_upstream_retries_total',
    help: 'Dial retries',
    labelNames: ['sandbox_namespace'],
    registers: [this.registry],
  });
  readonly invalidations = new Counter({
    name: 'sandbox_router_cache_invalidations_total',
    help: 'Pod IP cache evictions after dead-host dials',
    labelNames: ['sandbox_namespace'],
    registers: [this.registry],
  });
  /** Beyond upstream: requests that waited for a Sandbox to resume (wake.ts). */
  readonly wakes = new Counter({
    name: 'sandbox_router_wakes_total',
    help: 'Requests that found their Sandbox suspended or not ready and waited for it',
    labelNames: ['sandbox_namespace', 'outcome'],
    registers: [this.registry],
  });
  readonly authz = new Counter({
    name: 'sandbox_router_authz_decisions_total',
    help: 'Authorization decisions',
    labelNames: ['sandbox_namespace', 'decision'],
    registers: [this.registry],
  });
  readonly buildInfo = new Gauge({
    name: 'sandbox_router_build_info',
    help: 'Build information',
    labelNames: ['git_version', 'platform'],
    registers: [this.registry],
  });
  constructor(version: string) {
    this.buildInfo.set(
      { git_version: version, platform: `${process.platform}/${process.arch}` },
      1,
    );
  }
}

/** upstream_errors_total `reason` from a Node socket/HTTP error. */
export function errorReason(err: unknown): 'timeout' | 'tls' | 'eof' | 'dial' | 'other' {
  const code =
    typeof err === 'object' && err !== null && 'code' in err
      ? String((err as { code: unknown }).code)
      : '';
  if (
    code === 'ETIMEDOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'ABORT_ERR' ||
    code === 'TIMEOUT'
  )
    return 'timeout';
  if (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL')) return 'tls';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE')
    return 'eof';
  if (
    [
      'ECONNREFUSED',
      'ENOTFOUND',
      'EAI_AGAIN',
      'EHOSTUNREACH',
      'ENETUNREACH',
      'EADDRNOTAVAIL',
    ].includes(code)
  )
    return 'dial';
  return 'other';
}

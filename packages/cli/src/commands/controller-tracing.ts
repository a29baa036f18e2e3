// Tracing for the controller manager (spec §19.2): OTLP when `--enable-tracing` is set or the
// standard OTEL_* environment asks for it, a no-op otherwise; W3C TraceContext only; service
// name `agent-sandbox-controller`. Upstream exports OTLP/gRPC; we export OTLP/HTTP JSON (default
// http://localhost:4318/v1/traces), so point OTEL_EXPORTER_OTLP_ENDPOINT at the collector's HTTP
// port. Spans are flushed on shutdown.
import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import {
  AsyncLocalStorageContextManager,
  BatchingTracerProvider,
  W3CTraceContextPropagator,
} from './tracing-sdk.ts';

export const SERVICE_NAME = 'agent-sandbox-controller';

export interface TracingOptions {
  /** `--enable-tracing` */
  enabled: boolean;
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
}

export interface Tracing {
  /** The `agent-sandbox-controller` tracer (a no-op one when tracing is off). */
  tracer: Tracer;
  /** Where spans go; undefined when tracing is off. */
  url?: string;
  /** Flushes queued spans and unregisters the globals. */
  shutdown(): Promise<void>;
}

/** True when the flag or the environment turns tracing on (OTEL_SDK_DISABLED=true wins). */
export function tracingWanted(
  enabled: boolean,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (env['OTEL_SDK_DISABLED']?.toLowerCase() === 'true') return false;
  if (env['OTEL_TRACES_EXPORTER'] === 'none') return false;
  return (
    enabled ||
    env['OTEL_TRACES_EXPORTER'] === 'otlp' ||
    Boolean(env['OTEL_EXPORTER_OTLP_ENDPOINT']) ||
    Boolean(env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'])
  );
}

/** The traces URL per the OTLP exporter spec's environment variables. */
export function tracesUrl(env: Readonly<Record<string, string | undefined>>): string {
  const specific = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'];
  if (specific) return specific;
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT'] || 'http://localhost:4318';
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/** `k1=v1,k2=v2` (URL-encoded values) from OTEL_EXPORTER_OTLP_[TRACES_]HEADERS. */
export function otlpHeaders(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const source of [
    env['OTEL_EXPORTER_OTLP_HEADERS'],
    env['OTEL_EXPORTER_OTLP_TRACES_HEADERS'],
  ])
    for (const pair of (source ?? '').split(',')) {
      const i = pair.indexOf('=');
      if (i <= 0) continue;
      headers[decodeURIComponent(pair.slice(0, i).trim())] = decodeURIComponent(
        pair.slice(i + 1).trim(),
      );
    }
  return headers;
}

export function setupTracing(options: TracingOptions): Tracing {
  const { env, logger } = options;
  if (!tracingWanted(options.enabled, env))
    return { tracer: trace.getTracer(SERVICE_NAME), shutdown: async () => undefined };
  const url = tracesUrl(env);
  let warned = false;
  const provider = new BatchingTracerProvider({
    url,
    headers: otlpHeaders(env),
    serviceName: env['OTEL_SERVICE_NAME'] || SERVICE_NAME,
    onError: (err) => {
      // Once: a missing collector must not flood the log every 5 s.
      if (warned) return;
      warned = true;
      logger.warn({ err, url }, 'OTLP trace export failed; spans are dropped until it recovers');
    },
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  logger.info({ url }, 'tracing enabled (OTLP/HTTP JSON)');
  return {
    tracer: provider.getTracer(SERVICE_NAME),
    url,
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

// Tracing for the controller manager (spec §19.2): OTLP when `--enable-tracing` is set or the
// standard OTEL_* environment asks for it, a no-op otherwise; W3C TraceContext only; service
// name `agent-sandbox-controller`. Upstream exports OTLP/gRPC; we export OTLP/HTTP JSON (default
// http://localhost:4318/v1/traces), so point OTEL_EXPORTER_OTLP_ENDPOINT at the collector's HTTP
// port. Spans are flushed on shutdown.
//
// The OpenTelemetry SDK (ADR 0014) is imported only when tracing is on: loading it costs start
// time and memory a controller without tracing should not pay.
import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from 'pino';

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

/**
 * Starts tracing if the flag or the environment asks for it: the SDK's tracer provider with a
 * batching OTLP/HTTP JSON exporter, the AsyncLocalStorage context manager and the W3C
 * TraceContext propagator, all registered globally. Otherwise the api's no-op tracer.
 */
/**
 * The export timeout in ms from OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT, or undefined for the
 * exporter's default (10 s). Retries of a failed export (an unreachable collector included) stop
 * at this deadline, so it also bounds how long shutdown waits for the last batch.
 */
export function otlpTimeoutMillis(
  env: Readonly<Record<string, string | undefined>>,
): number | undefined {
  for (const key of ['OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', 'OTEL_EXPORTER_OTLP_TIMEOUT']) {
    const value = env[key]?.trim();
    if (!value) continue;
    const ms = Number(value);
    if (!Number.isInteger(ms) || ms <= 0) {
      throw new Error(`${key}=${value}: want a positive whole number of milliseconds, e.g. 10000`);
    }
    return ms;
  }
  return undefined;
}

export async function setupTracing(options: TracingOptions): Promise<Tracing> {
  const { env, logger } = options;
  if (!tracingWanted(options.enabled, env))
    return { tracer: trace.getTracer(SERVICE_NAME), shutdown: async () => undefined };
  const timeoutMillis = otlpTimeoutMillis(env);
  const [sdk, core, hooks, otlp, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/core'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const url = tracesUrl(env);
  let warned = false;
  const exportFailed = (err: unknown): void => {
    // Once: a missing collector must not flood the log every 5 s.
    if (warned) return;
    warned = true;
    logger.warn({ err, url }, 'OTLP trace export failed; spans are dropped until it recovers');
  };
  // The exporter reads OTEL_* from process.env itself; the URL and headers are passed explicitly
  // because the manager's environment is injectable (tests, embedded use).
  const exporter = warnOnFailure(
    new otlp.OTLPTraceExporter({
      url,
      headers: otlpHeaders(env),
      ...(timeoutMillis === undefined ? {} : { timeoutMillis }),
    }),
    core.ExportResultCode.SUCCESS,
    exportFailed,
  );
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({
      'service.name': env['OTEL_SERVICE_NAME'] || SERVICE_NAME,
    }),
    spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
  });
  context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  logger.info({ url }, 'tracing enabled (OTLP/HTTP JSON)');
  return {
    tracer: provider.getTracer(SERVICE_NAME),
    url,
    shutdown: async () => {
      // The last batch failing (collector gone) must not fail the manager's shutdown.
      await provider.shutdown().catch(exportFailed);
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** `exporter`, calling `onError` for every export that did not succeed. */
function warnOnFailure(
  exporter: SpanExporter,
  success: ExportResult['code'],
  onError: (err: unknown) => void,
): SpanExporter {
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
      exporter.export(spans, (result) => {
        if (result.code !== success) onError(result.error);
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

// Small helpers for the reconcilers' spans (spec §19.2): errors recorded the OpenTelemetry way
// (an `exception` event plus status ERROR) and child spans under an explicit parent context.
import {
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';

/** Marks `span` failed with `err` (recorded as an exception event and the status message). */
export function recordSpanError(span: Span, err: unknown): void {
  const error = err instanceof Error ? err : new Error(String(err));
  span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
}

/**
 * Runs `fn` inside a span named `name`, a child of the span in `parent`; a throw is recorded on
 * the span and rethrown. `fn` gets the span and the context to start grandchildren from.
 */
export async function inSpan<T>(
  tracer: Tracer,
  parent: Context,
  name: string,
  options: SpanOptions,
  fn: (span: Span, ctx: Context) => Promise<T>,
): Promise<T> {
  const span = tracer.startSpan(name, options, parent);
  try {
    return await fn(span, trace.setSpan(parent, span));
  } catch (err: unknown) {
    recordSpanError(span, err);
    throw err;
  } finally {
    span.end();
  }
}

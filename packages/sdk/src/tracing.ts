// One span per SDK operation (`sandbox.create`, `commands.run`, ...) through @opentelemetry/api
// only: without an SDK installed by the application every call is a no-op.
import {
  SpanStatusCode,
  context,
  propagation,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api';

/**
 * A point in an operation worth seeing on its span's timeline (e.g. `sandbox.claim.created`);
 * `at` is a performance.now() reading when the moment was recorded earlier than the call.
 */
export type MarkEvent = (name: string, at?: number) => void;

/** Marks nothing: for callers outside a span. */
export const NO_MARK: MarkEvent = () => undefined;

/** Runs `fn` inside an active span; an error is recorded on the span and rethrown. */
export async function withSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  fn: (setAttributes: (a: Attributes) => void, mark: MarkEvent) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn((a) => span.setAttributes(a), markOn(span));
    } catch (err: unknown) {
      const e = err instanceof Error ? err : new Error(String(err));
      span.recordException(e);
      span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
      if (typeof (err as { code?: unknown }).code === 'string')
        span.setAttribute('error.type', (err as { code: string }).code);
      throw err;
    } finally {
      span.end();
    }
  });
}

function markOn(span: Span): MarkEvent {
  // A span that records nothing (no SDK installed) costs no clock reads.
  if (!span.isRecording()) return NO_MARK;
  return (name, at) => span.addEvent(name, at ?? performance.now());
}

/**
 * The active trace context as upstream's claim annotation value (`{"traceparent": ...}`), or
 * undefined when no propagator is installed or no span is recording.
 */
export function traceContextAnnotation(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier['traceparent'] ? JSON.stringify(carrier) : undefined;
}

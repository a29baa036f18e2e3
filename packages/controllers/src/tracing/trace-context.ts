// The `opentelemetry.io/trace-context` annotation (spec §9, §19.2): a JSON map of W3C
// TraceContext headers (`{"traceparent":"00-…","tracestate":"…"}`), the same carrier a Go
// MapCarrier marshals to. Parsing and formatting the headers is @opentelemetry/core's
// W3CTraceContextPropagator (ADR 0014); this file only reads and writes the JSON map and turns a
// malformed value into the root context plus a reason.
import {
  ROOT_CONTEXT,
  defaultTextMapGetter,
  defaultTextMapSetter,
  isSpanContextValid,
  trace,
  type Context,
} from '@opentelemetry/api';
import {
  TRACE_PARENT_HEADER,
  TRACE_STATE_HEADER,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';

// Used directly rather than through the global propagator: the spec fixes the format, and the
// reconciler must behave the same with the api's no-op globals (tests, tracing off).
const propagator = new W3CTraceContextPropagator();

const WANT = 'want {"traceparent":"00-…"}';
const TRACEPARENT_FORM = '"<version>-<32 hex trace-id>-<16 hex parent-id>-<2 hex flags>"';

/** The parent context an annotation value carries, or why it was ignored. */
export type AnnotationContext = { context: Context } | { context: Context; ignored: string };

/**
 * The parent context from an `opentelemetry.io/trace-context` annotation value. Absent, empty or
 * `{}` gives the root context; anything malformed gives the root context plus the reason, so the
 * caller can log it and carry on (a bad annotation never fails a reconcile).
 */
export function contextFromAnnotation(value: string | undefined): AnnotationContext {
  if (value === undefined || value.trim() === '') return { context: ROOT_CONTEXT };
  let carrier: unknown;
  try {
    carrier = JSON.parse(value);
  } catch {
    return { context: ROOT_CONTEXT, ignored: `not JSON; ${WANT}` };
  }
  if (typeof carrier !== 'object' || carrier === null || Array.isArray(carrier)) {
    return { context: ROOT_CONTEXT, ignored: `not a JSON object; ${WANT}` };
  }
  const headers = carrier as Record<string, unknown>;
  for (const key of [TRACE_PARENT_HEADER, TRACE_STATE_HEADER]) {
    if (headers[key] !== undefined && typeof headers[key] !== 'string') {
      return { context: ROOT_CONTEXT, ignored: `"${key}" is not a string` };
    }
  }
  if (headers[TRACE_PARENT_HEADER] === undefined) return { context: ROOT_CONTEXT };
  const ctx = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
  const sc = trace.getSpanContext(ctx);
  // The propagator leaves the context alone on a malformed header and accepts all-zero ids,
  // which W3C TraceContext forbids; both are "no usable parent".
  if (sc === undefined || !isSpanContextValid(sc)) {
    return {
      context: ROOT_CONTEXT,
      ignored: `"traceparent" is not ${TRACEPARENT_FORM} (lower-case hex, not version ff, nothing after version 00's flags, ids not all zeros)`,
    };
  }
  return { context: ctx };
}

/** The annotation value carrying `ctx`'s span (JSON map of W3C headers); undefined if none. */
export function annotationFromContext(ctx: Context): string | undefined {
  const carrier: Record<string, string> = {};
  propagator.inject(ctx, carrier, defaultTextMapSetter);
  if (carrier[TRACE_PARENT_HEADER] === undefined) return undefined;
  // Sorted keys, as Go's encoding/json marshals a map.
  return JSON.stringify(carrier, Object.keys(carrier).sort());
}

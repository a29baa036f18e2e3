// W3C TraceContext (https://www.w3.org/TR/trace-context/) for the `opentelemetry.io/trace-context`
// annotation (spec §9, §19.2): the annotation holds a JSON map of propagation headers
// (`{"traceparent":"00-…","tracestate":"…"}`), the same carrier a Go MapCarrier marshals to.
// The propagator is ours rather than @opentelemetry/core's: see docs/adr/0012.
import {
  ROOT_CONTEXT,
  TraceFlags,
  createTraceState,
  defaultTextMapGetter,
  defaultTextMapSetter,
  isSpanContextValid,
  trace,
  type Context,
  type SpanContext,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
} from '@opentelemetry/api';

export const TRACEPARENT = 'traceparent';
export const TRACESTATE = 'tracestate';

// version "-" trace-id "-" parent-id "-" trace-flags, lowercase hex; a future version may append
// more fields after another "-" (the spec's forward-compatibility rule).
const TRACEPARENT_RE = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The remote span context a `traceparent` header names, or a reason it is unusable. Follows the
 * W3C parsing rules: version `ff` is invalid, version `00` allows nothing after the flags, and an
 * all-zero trace-id or parent-id is invalid.
 */
export function parseTraceparent(value: string): SpanContext | { invalid: string } {
  const m = TRACEPARENT_RE.exec(value.trim());
  if (m === null) {
    return { invalid: 'not "<version>-<32 hex trace-id>-<16 hex parent-id>-<2 hex flags>"' };
  }
  const [, version, traceId, spanId, flags, rest] = m as unknown as [
    string,
    string,
    string,
    string,
    string,
    string | undefined,
  ];
  if (version === 'ff') return { invalid: 'version ff is forbidden' };
  if (version === '00' && rest !== undefined) return { invalid: 'version 00 has exactly 4 fields' };
  const sc: SpanContext = {
    traceId,
    spanId,
    traceFlags: parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(sc) ? sc : { invalid: 'trace-id and parent-id must not be all zeros' };
}

/** The W3C TraceContext propagator (`traceparent`, `tracestate`) over @opentelemetry/api. */
export class W3CTraceContextPropagator implements TextMapPropagator {
  inject(ctx: Context, carrier: unknown, setter: TextMapSetter = defaultTextMapSetter): void {
    const sc = trace.getSpanContext(ctx);
    if (sc === undefined || !isSpanContextValid(sc)) return;
    const flags = (sc.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0');
    setter.set(carrier, TRACEPARENT, `00-${sc.traceId}-${sc.spanId}-${flags}`);
    const state = sc.traceState?.serialize();
    if (state) setter.set(carrier, TRACESTATE, state);
  }

  extract(ctx: Context, carrier: unknown, getter: TextMapGetter = defaultTextMapGetter): Context {
    const header = first(getter.get(carrier, TRACEPARENT));
    if (header === undefined) return ctx;
    const parsed = parseTraceparent(header);
    if ('invalid' in parsed) return ctx;
    const state = getter.get(carrier, TRACESTATE);
    const joined = Array.isArray(state) ? state.join(',') : state;
    return trace.setSpanContext(
      ctx,
      joined ? { ...parsed, traceState: createTraceState(joined) } : parsed,
    );
  }

  fields(): string[] {
    return [TRACEPARENT, TRACESTATE];
  }
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

const propagator = new W3CTraceContextPropagator();

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
    return { context: ROOT_CONTEXT, ignored: 'not JSON; want {"traceparent":"00-…"}' };
  }
  if (typeof carrier !== 'object' || carrier === null || Array.isArray(carrier)) {
    return { context: ROOT_CONTEXT, ignored: 'not a JSON object; want {"traceparent":"00-…"}' };
  }
  const headers = carrier as Record<string, unknown>;
  for (const key of [TRACEPARENT, TRACESTATE]) {
    if (headers[key] !== undefined && typeof headers[key] !== 'string') {
      return { context: ROOT_CONTEXT, ignored: `"${key}" is not a string` };
    }
  }
  const header = headers[TRACEPARENT] as string | undefined;
  if (header === undefined) return { context: ROOT_CONTEXT };
  const parsed = parseTraceparent(header);
  if ('invalid' in parsed) {
    return { context: ROOT_CONTEXT, ignored: `"traceparent" ${parsed.invalid}` };
  }
  return { context: propagator.extract(ROOT_CONTEXT, headers) };
}

/** The annotation value carrying `ctx`'s span (JSON map of W3C headers); undefined if none. */
export function annotationFromContext(ctx: Context): string | undefined {
  const carrier: Record<string, string> = {};
  propagator.inject(ctx, carrier);
  if (carrier[TRACEPARENT] === undefined) return undefined;
  // Sorted keys, as Go's encoding/json marshals a map.
  return JSON.stringify(carrier, Object.keys(carrier).sort());
}

// RecordingTracer: an in-memory OpenTelemetry Tracer for scenario tests that assert on spans.
import type { ReconcileContext } from '@agent-sandbox/runtime';
import { SpanStatusCode, isSpanContextValid, trace, type Context } from '@opentelemetry/api';
import { randomBytes } from 'node:crypto';

/** The real OpenTelemetry Tracer interface, as the runtime hands it to reconcilers. */
export type Tracer = ReconcileContext['tracer'];
type Span = ReturnType<Tracer['startSpan']>;
type SpanAttributes = NonNullable<NonNullable<Parameters<Tracer['startSpan']>[1]>['attributes']>;

/** A span as the RecordingTracer saw it. */
export interface RecordedSpan {
  name: string;
  attributes: Record<string, unknown>;
  ended: boolean;
  /** Fresh ids per span; the trace id is the parent's when the start context carried one. */
  traceId: string;
  spanId: string;
  /** The span id of the parent in the context the span was started with. */
  parentSpanId?: string;
  /** `addEvent` calls, in order (recordException adds an `exception` event, like the SDK). */
  events: { name: string; attributes: Record<string, unknown> }[];
  /** The last `setStatus`; UNSET until then. */
  status: { code: SpanStatusCode; message?: string };
}

/**
 * Keeps every span in memory, like the SDK's InMemorySpanExporter. Written while the workspace's
 * api pin ruled the SDK out; since ADR 0014 (api 1.9.1) sdk-trace-base could replace it.
 */
export class RecordingTracer implements Tracer {
  readonly spans: RecordedSpan[] = [];

  startSpan(name: string, options: { attributes?: SpanAttributes } = {}, ctx?: Context): Span {
    const parent = ctx === undefined ? undefined : trace.getSpanContext(ctx);
    const valid = parent !== undefined && isSpanContextValid(parent);
    const recorded: RecordedSpan = {
      name,
      attributes: { ...options.attributes },
      ended: false,
      traceId: valid ? parent.traceId : randomBytes(16).toString('hex'),
      spanId: randomBytes(8).toString('hex'),
      ...(valid ? { parentSpanId: parent.spanId } : {}),
      events: [],
      status: { code: SpanStatusCode.UNSET },
    };
    this.spans.push(recorded);
    return recordingSpan(recorded);
  }

  /** The ended spans whose parent is `span`, in start order. */
  childrenOf(span: RecordedSpan): RecordedSpan[] {
    return this.spans.filter(
      (s) => s.ended && s.traceId === span.traceId && s.parentSpanId === span.spanId,
    );
  }

  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    ...rest: unknown[]
  ): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const options = rest.length > 1 ? (rest[0] as { attributes?: SpanAttributes }) : {};
    return fn(this.startSpan(name, options)) as ReturnType<F>;
  }
}

function recordingSpan(recorded: RecordedSpan): Span {
  const span: Span = {
    spanContext: () => ({
      traceId: recorded.traceId,
      spanId: recorded.spanId,
      traceFlags: 1,
    }),
    setAttribute: (key, value) => {
      recorded.attributes[key] = value;
      return span;
    },
    setAttributes: (attributes) => {
      Object.assign(recorded.attributes, attributes);
      return span;
    },
    addEvent: (name, attributesOrTime) => {
      // The second argument is either the event's attributes or its time (number, HrTime, Date).
      const isTime =
        typeof attributesOrTime !== 'object' ||
        Array.isArray(attributesOrTime) ||
        attributesOrTime instanceof Date;
      recorded.events.push({ name, attributes: isTime ? {} : { ...attributesOrTime } });
      return span;
    },
    addLink: () => span,
    addLinks: () => span,
    setStatus: (status) => {
      recorded.status = { ...status };
      return span;
    },
    updateName: (name) => {
      recorded.name = name;
      return span;
    },
    end: () => {
      recorded.ended = true;
    },
    isRecording: () => !recorded.ended,
    recordException: (exception) => {
      const message = typeof exception === 'string' ? exception : (exception.message ?? '');
      recorded.events.push({ name: 'exception', attributes: { 'exception.message': message } });
    },
  };
  return span;
}

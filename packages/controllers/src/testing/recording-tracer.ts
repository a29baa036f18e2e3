// RecordingTracer: an in-memory OpenTelemetry Tracer for scenario tests that assert on spans.
import type { ReconcileContext } from '@agent-sandbox/runtime';

/** The real OpenTelemetry Tracer interface, as the runtime hands it to reconcilers. */
export type Tracer = ReconcileContext['tracer'];
type Span = ReturnType<Tracer['startSpan']>;
type SpanAttributes = NonNullable<NonNullable<Parameters<Tracer['startSpan']>[1]>['attributes']>;

/** A span as the RecordingTracer saw it. */
export interface RecordedSpan {
  name: string;
  attributes: Record<string, unknown>;
  ended: boolean;
}

/**
 * Keeps every span in memory, like the SDK's InMemorySpanExporter. Why not the SDK: every
 * Node-20 release of @opentelemetry/sdk-trace-base declares the peer `@opentelemetry/api
 * <1.10.0` and the workspace pins 1.10.0 (see packages/cli/src/commands/tracing-sdk.ts).
 */
export class RecordingTracer implements Tracer {
  readonly spans: RecordedSpan[] = [];

  startSpan(name: string, options: { attributes?: SpanAttributes } = {}): Span {
    const recorded: RecordedSpan = { name, attributes: { ...options.attributes }, ended: false };
    this.spans.push(recorded);
    return recordingSpan(recorded);
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
      traceId: '0'.repeat(31) + '1',
      spanId: '0'.repeat(15) + '1',
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
    addEvent: () => span,
    addLink: () => span,
    addLinks: () => span,
    setStatus: () => span,
    updateName: (name) => {
      recorded.name = name;
      return span;
    },
    end: () => {
      recorded.ended = true;
    },
    isRecording: () => !recorded.ended,
    recordException: () => undefined,
  };
  return span;
}

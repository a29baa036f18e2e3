// A minimal OpenTelemetry trace SDK over @opentelemetry/api 1.10: spans, an AsyncLocalStorage
// context manager, the W3C TraceContext propagator and a batching OTLP/HTTP JSON exporter.
// Why not @opentelemetry/sdk-*: every Node-20 release of the SDK (2.x / 0.2xx) declares the peer
// `@opentelemetry/api <1.10.0`, and the workspace pins api 1.10.0 (runtime); npm refuses the
// install (ERESOLVE) or downgrades runtime's api. The 3.x / 0.3xx SDK that accepts 1.10 needs
// Node >= 22.15 (machine-notes §4). Replace this file with the SDK when the project moves to 22.
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  isSpanContextValid,
  trace,
  type Attributes,
  type AttributeValue,
  type Context,
  type ContextManager,
  type Exception,
  type Link,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
  type TimeInput,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';

/** A finished span, as exported. */
export interface SpanData {
  name: string;
  scope: string;
  context: SpanContext;
  parentSpanId?: string;
  kind: SpanKind;
  startNs: bigint;
  endNs: bigint;
  attributes: Attributes;
  events: { name: string; timeNs: bigint; attributes: Attributes }[];
  status: SpanStatus;
}

function nowNs(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
}

function toNs(t: TimeInput | undefined): bigint {
  if (t === undefined) return nowNs();
  if (Array.isArray(t)) return BigInt(t[0]) * 1_000_000_000n + BigInt(t[1]);
  if (t instanceof Date) return BigInt(t.getTime()) * 1_000_000n;
  return BigInt(Math.round(t * 1e6));
}

class RecordingSpan implements Span {
  readonly #data: SpanData;
  readonly #onEnd: (d: SpanData) => void;
  #ended = false;

  constructor(data: SpanData, onEnd: (d: SpanData) => void) {
    this.#data = data;
    this.#onEnd = onEnd;
  }
  spanContext(): SpanContext {
    return this.#data.context;
  }
  setAttribute(key: string, value: AttributeValue): this {
    if (!this.#ended) this.#data.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    for (const [k, v] of Object.entries(attributes)) if (v !== undefined) this.setAttribute(k, v);
    return this;
  }
  addEvent(name: string, attrsOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.#ended) return this;
    const isTime =
      typeof attrsOrTime === 'number' || Array.isArray(attrsOrTime) || attrsOrTime instanceof Date;
    this.#data.events.push({
      name,
      timeNs: toNs(isTime ? attrsOrTime : time),
      attributes: isTime || attrsOrTime === undefined ? {} : { ...attrsOrTime },
    });
    return this;
  }
  addLink(_link: Link): this {
    return this;
  }
  addLinks(_links: Link[]): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    if (!this.#ended) this.#data.status = status;
    return this;
  }
  updateName(name: string): this {
    if (!this.#ended) this.#data.name = name;
    return this;
  }
  end(endTime?: TimeInput): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#data.endNs = toNs(endTime);
    this.#onEnd(this.#data);
  }
  isRecording(): boolean {
    return !this.#ended;
  }
  recordException(exception: Exception, time?: TimeInput): void {
    const e =
      typeof exception === 'string' ? { message: exception } : (exception as Error | undefined);
    this.addEvent(
      'exception',
      {
        'exception.type': (e && 'name' in e && e.name) || 'Error',
        'exception.message': e?.message ?? '',
      },
      time,
    );
  }
}

class SdkTracer implements Tracer {
  constructor(
    private readonly scope: string,
    private readonly onEnd: (d: SpanData) => void,
    private readonly active: () => Context,
  ) {}

  startSpan(name: string, options: SpanOptions = {}, ctx: Context = this.active()): Span {
    const parent = options.root ? undefined : trace.getSpanContext(ctx);
    const valid = parent !== undefined && isSpanContextValid(parent);
    if (valid && (parent.traceFlags & TraceFlags.SAMPLED) === 0)
      return trace.wrapSpanContext({ ...parent, spanId: randomBytes(8).toString('hex') });
    const context: SpanContext = {
      traceId: valid ? parent.traceId : randomBytes(16).toString('hex'),
      spanId: randomBytes(8).toString('hex'),
      traceFlags: TraceFlags.SAMPLED,
      ...(valid && parent.traceState ? { traceState: parent.traceState } : {}),
    };
    return new RecordingSpan(
      {
        name,
        scope: this.scope,
        context,
        ...(valid ? { parentSpanId: parent.spanId } : {}),
        kind: options.kind ?? SpanKind.INTERNAL,
        startNs: toNs(options.startTime),
        endNs: 0n,
        attributes: { ...options.attributes },
        events: [],
        status: { code: SpanStatusCode.UNSET },
      },
      this.onEnd,
    );
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    ctx: Context,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    a?: SpanOptions | F,
    b?: Context | F,
    c?: F,
  ): ReturnType<F> {
    const fn = (c ?? (typeof b === 'function' ? b : a)) as F;
    const options = typeof a === 'object' ? a : {};
    const parentCtx = typeof b === 'object' ? b : this.active();
    const span = this.startSpan(name, options, parentCtx);
    return contextStorage.run(trace.setSpan(parentCtx, span), () => fn(span)) as ReturnType<F>;
  }
}

const contextStorage = new AsyncLocalStorage<Context>();

/** Context propagation across async calls (what @opentelemetry/context-async-hooks does). */
export class AsyncLocalStorageContextManager implements ContextManager {
  active(): Context {
    return contextStorage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return contextStorage.run(ctx, () => fn.apply(thisArg, args));
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const fn = target as (...args: unknown[]) => unknown;
    return ((...args: unknown[]) => contextStorage.run(ctx, () => fn(...args))) as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    return this;
  }
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The W3C TraceContext propagator (`traceparent`, `tracestate`). */
export class W3CTraceContextPropagator implements TextMapPropagator {
  inject(ctx: Context, carrier: unknown, setter: TextMapSetter): void {
    const sc = trace.getSpanContext(ctx);
    if (!sc || !isSpanContextValid(sc)) return;
    const flags = (sc.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0');
    setter.set(carrier, 'traceparent', `00-${sc.traceId}-${sc.spanId}-${flags}`);
    const state = sc.traceState?.serialize();
    if (state) setter.set(carrier, 'tracestate', state);
  }
  extract(ctx: Context, carrier: unknown, getter: TextMapGetter): Context {
    const raw = getter.get(carrier, 'traceparent');
    const m = TRACEPARENT.exec((Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '');
    if (!m) return ctx;
    const sc: SpanContext = {
      traceId: m[1] as string,
      spanId: m[2] as string,
      traceFlags: parseInt(m[3] as string, 16) & TraceFlags.SAMPLED,
      isRemote: true,
    };
    return isSpanContextValid(sc) ? trace.setSpanContext(ctx, sc) : ctx;
  }
  fields(): string[] {
    return ['traceparent', 'tracestate'];
  }
}

export interface OtlpExporterOptions {
  /** Full traces URL, e.g. http://localhost:4318/v1/traces */
  url: string;
  headers: Record<string, string>;
  serviceName: string;
  /** Called when an export fails (the spans are dropped). */
  onError: (err: unknown) => void;
  /** @default 5000 */
  scheduledDelayMs?: number;
  /** @default 2048 */
  maxQueueSize?: number;
}

/** Batches finished spans and POSTs them as OTLP/HTTP JSON. */
export class BatchingTracerProvider implements TracerProvider {
  readonly #o: OtlpExporterOptions;
  #queue: SpanData[] = [];
  #timer: NodeJS.Timeout;
  #inflight = new Set<Promise<void>>();
  #shut = false;

  constructor(options: OtlpExporterOptions) {
    this.#o = options;
    this.#timer = setInterval(() => void this.forceFlush(), options.scheduledDelayMs ?? 5000);
    this.#timer.unref();
  }

  getTracer(name: string): Tracer {
    return new SdkTracer(
      name,
      (d) => {
        if (this.#shut || this.#queue.length >= (this.#o.maxQueueSize ?? 2048)) return;
        this.#queue.push(d);
      },
      () => contextStorage.getStore() ?? ROOT_CONTEXT,
    );
  }

  /** Exports what is queued and waits for every export in flight. */
  async forceFlush(): Promise<void> {
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length) {
      const p = this.#export(batch);
      this.#inflight.add(p);
      void p.finally(() => this.#inflight.delete(p));
    }
    await Promise.all([...this.#inflight]);
  }

  async shutdown(): Promise<void> {
    clearInterval(this.#timer);
    await this.forceFlush();
    this.#shut = true;
  }

  async #export(batch: SpanData[]): Promise<void> {
    try {
      const res = await fetch(this.#o.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...this.#o.headers },
        body: JSON.stringify(otlpJson(batch, this.#o.serviceName)),
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`OTLP export to ${this.#o.url}: HTTP ${res.status}`);
    } catch (err: unknown) {
      this.#o.onError(err);
    }
  }
}

type OtlpValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { arrayValue: { values: OtlpValue[] } };

function otlpValue(v: unknown): OtlpValue {
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number')
    return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(otlpValue) } };
  return { stringValue: String(v) };
}

function otlpAttributes(a: Attributes): { key: string; value: OtlpValue }[] {
  return Object.entries(a)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([key, v]) => ({ key, value: otlpValue(v) }));
}

/** The OTLP/JSON ExportTraceServiceRequest of a batch. */
export function otlpJson(batch: SpanData[], serviceName: string): object {
  const scopes = new Map<string, SpanData[]>();
  for (const s of batch) scopes.set(s.scope, [...(scopes.get(s.scope) ?? []), s]);
  return {
    resourceSpans: [
      {
        resource: { attributes: otlpAttributes({ 'service.name': serviceName }) },
        scopeSpans: [...scopes].map(([name, spans]) => ({
          scope: { name },
          spans: spans.map((s) => ({
            traceId: s.context.traceId,
            spanId: s.context.spanId,
            ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
            name: s.name,
            kind: s.kind + 1,
            startTimeUnixNano: String(s.startNs),
            endTimeUnixNano: String(s.endNs),
            attributes: otlpAttributes(s.attributes),
            events: s.events.map((e) => ({
              timeUnixNano: String(e.timeNs),
              name: e.name,
              attributes: otlpAttributes(e.attributes),
            })),
            status: {
              code: s.status.code,
              ...(s.status.message ? { message: s.status.message } : {}),
            },
          })),
        })),
      },
    ],
  };
}

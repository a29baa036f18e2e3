import { ROOT_CONTEXT, TraceFlags, createTraceState, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import {
  W3CTraceContextPropagator,
  annotationFromContext,
  contextFromAnnotation,
  parseTraceparent,
} from './trace-context.ts';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';
const HEADER = `00-${TRACE_ID}-${SPAN_ID}-01`;

describe('parseTraceparent', () => {
  it('reads version 00 with the sampled flag', () => {
    expect(parseTraceparent(HEADER)).toEqual({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
  });

  it('keeps only the sampled bit of the flags and tolerates surrounding spaces', () => {
    expect(parseTraceparent(` 00-${TRACE_ID}-${SPAN_ID}-00 `)).toMatchObject({ traceFlags: 0 });
    expect(parseTraceparent(`00-${TRACE_ID}-${SPAN_ID}-03`)).toMatchObject({ traceFlags: 1 });
  });

  it('accepts extra fields only from a future version', () => {
    expect(parseTraceparent(`01-${TRACE_ID}-${SPAN_ID}-01-what-ever`)).toMatchObject({
      traceId: TRACE_ID,
    });
    expect(parseTraceparent(`${HEADER}-extra`)).toEqual({
      invalid: 'version 00 has exactly 4 fields',
    });
  });

  it.each([
    ['upper-case hex', HEADER.toUpperCase()],
    ['short trace-id', `00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`],
    ['missing flags', `00-${TRACE_ID}-${SPAN_ID}`],
    ['garbage', 'hello'],
  ])('rejects %s', (_, value) => {
    expect(parseTraceparent(value)).toHaveProperty('invalid');
  });

  it('rejects version ff and all-zero ids', () => {
    expect(parseTraceparent(`ff-${TRACE_ID}-${SPAN_ID}-01`)).toEqual({
      invalid: 'version ff is forbidden',
    });
    expect(parseTraceparent(`00-${'0'.repeat(32)}-${SPAN_ID}-01`)).toHaveProperty('invalid');
    expect(parseTraceparent(`00-${TRACE_ID}-${'0'.repeat(16)}-01`)).toHaveProperty('invalid');
  });
});

describe('contextFromAnnotation', () => {
  it('gives the remote parent with its tracestate', () => {
    const got = contextFromAnnotation(
      JSON.stringify({ traceparent: HEADER, tracestate: 'a=1,b=2' }),
    );
    expect(got).not.toHaveProperty('ignored');
    const sc = trace.getSpanContext(got.context);
    expect(sc).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1, isRemote: true });
    expect(sc?.traceState?.get('b')).toBe('2');
    expect(sc?.traceState?.serialize()).toBe('a=1,b=2');
  });

  it('gives the root context, silently, for no annotation, an empty one or {}', () => {
    for (const value of [undefined, '', '  ', '{}']) {
      expect(contextFromAnnotation(value)).toEqual({ context: ROOT_CONTEXT });
    }
  });

  it.each([
    ['not JSON', '00-abc', 'not JSON'],
    ['a JSON array', '["x"]', 'not a JSON object'],
    ['JSON null', 'null', 'not a JSON object'],
    ['a JSON string', JSON.stringify(HEADER), 'not a JSON object'],
    ['a numeric traceparent', '{"traceparent":5}', '"traceparent" is not a string'],
    ['a list tracestate', `{"traceparent":"${HEADER}","tracestate":["a=1"]}`, '"tracestate"'],
    ['a bad traceparent', '{"traceparent":"00-zz"}', '"traceparent" not "<version>'],
  ])('ignores %s and says why', (_, value, why) => {
    const got = contextFromAnnotation(value);
    expect(got.context).toBe(ROOT_CONTEXT);
    expect('ignored' in got ? got.ignored : '').toContain(why);
  });
});

describe('annotationFromContext', () => {
  it('writes the JSON map with sorted keys, and round-trips', () => {
    const ctx = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: TraceFlags.SAMPLED,
      traceState: createTraceState('k=v'),
    });
    const value = annotationFromContext(ctx);
    expect(value).toBe(`{"traceparent":"${HEADER}","tracestate":"k=v"}`);
    expect(trace.getSpanContext(contextFromAnnotation(value).context)).toMatchObject({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
    });
  });

  it('writes nothing without a valid span context', () => {
    expect(annotationFromContext(ROOT_CONTEXT)).toBeUndefined();
  });
});

describe('W3CTraceContextPropagator', () => {
  it('names its fields and leaves the context alone on a bad header', () => {
    const p = new W3CTraceContextPropagator();
    expect(p.fields()).toEqual(['traceparent', 'tracestate']);
    expect(p.extract(ROOT_CONTEXT, { traceparent: 'bad' })).toBe(ROOT_CONTEXT);
    const carrier: Record<string, string> = {};
    p.inject(ROOT_CONTEXT, carrier);
    expect(carrier).toEqual({});
  });
});

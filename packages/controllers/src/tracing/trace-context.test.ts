import { ROOT_CONTEXT, TraceFlags, createTraceState, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { annotationFromContext, contextFromAnnotation } from './trace-context.ts';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';
const HEADER = `00-${TRACE_ID}-${SPAN_ID}-01`;

/** The span context an annotation with just this traceparent gives, or why it was ignored. */
function parent(traceparent: string) {
  const got = contextFromAnnotation(JSON.stringify({ traceparent }));
  return 'ignored' in got ? { ignored: got.ignored } : trace.getSpanContext(got.context);
}

describe('the traceparent rules (W3C TraceContext)', () => {
  it('reads version 00 with the sampled flag', () => {
    expect(parent(HEADER)).toEqual({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    expect(parent(`00-${TRACE_ID}-${SPAN_ID}-00`)).toMatchObject({ traceFlags: 0 });
  });

  it('accepts extra fields only from a future version', () => {
    expect(parent(`01-${TRACE_ID}-${SPAN_ID}-01-what-ever`)).toMatchObject({ traceId: TRACE_ID });
    expect(parent(`${HEADER}-extra`)).toHaveProperty('ignored');
  });

  it.each([
    ['upper-case hex', HEADER.toUpperCase()],
    ['short trace-id', `00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`],
    ['missing flags', `00-${TRACE_ID}-${SPAN_ID}`],
    ['garbage', 'hello'],
    ['version ff', `ff-${TRACE_ID}-${SPAN_ID}-01`],
    ['an all-zero trace-id', `00-${'0'.repeat(32)}-${SPAN_ID}-01`],
    ['an all-zero parent-id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
  ])('rejects %s, naming the field and the expected form', (_, value) => {
    const got = parent(value);
    expect(got).toHaveProperty('ignored');
    expect((got as { ignored: string }).ignored).toMatch(
      /^"traceparent" is not "<version>-<32 hex trace-id>-<16 hex parent-id>-<2 hex flags>"/,
    );
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
    ['a bad traceparent', '{"traceparent":"00-zz"}', '"traceparent" is not "<version>'],
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

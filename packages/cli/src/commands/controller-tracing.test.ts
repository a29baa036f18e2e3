import { context, propagation, trace } from '@opentelemetry/api';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import {
  otlpHeaders,
  otlpTimeoutMillis,
  setupTracing,
  tracesUrl,
  tracingWanted,
} from './controller-tracing.ts';

const logger = pino({ level: 'silent' });

interface Received {
  path: string;
  contentType: string;
  auth: string;
  body: {
    resourceSpans: {
      resource: { attributes: { key: string; value: { stringValue?: string } }[] };
      scopeSpans: {
        scope: { name: string };
        spans: {
          name: string;
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          attributes: { key: string; value: { stringValue?: string } }[];
          events: { name: string }[];
        }[];
      }[];
    }[];
  };
}

let collector: Server | undefined;
afterEach(() => collector?.close());

async function fakeCollector(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  collector = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        auth: req.headers['authorization'] ?? '',
        body: JSON.parse(body) as Received['body'],
      });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => collector?.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`, received };
}

describe('controller tracing', () => {
  it('is a no-op without --enable-tracing or OTEL_* configuration', async () => {
    const t = await setupTracing({ enabled: false, env: {}, logger });
    expect(t.url).toBeUndefined();
    const span = t.tracer.startSpan('ReconcileSandbox');
    expect(span.isRecording()).toBe(false);
    span.end();
    await t.shutdown();
  });

  it('decides from the flag and the OTEL environment', () => {
    expect(tracingWanted(true, {})).toBe(true);
    expect(tracingWanted(false, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe(true);
    expect(tracingWanted(false, { OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingWanted(true, { OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingWanted(false, {})).toBe(false);
    expect(tracesUrl({})).toBe('http://localhost:4318/v1/traces');
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toBe(
      'http://c:4318/v1/traces',
    );
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t/x' })).toBe('http://t/x');
    expect(otlpHeaders({ OTEL_EXPORTER_OTLP_HEADERS: 'a=1, b=two%20words' })).toEqual({
      a: '1',
      b: 'two words',
    });
  });

  it('exports nested spans over OTLP/HTTP JSON on shutdown, with W3C propagation', async () => {
    const { url, received } = await fakeCollector();
    const t = await setupTracing({
      enabled: true,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: url,
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer x',
      },
      logger,
    });
    expect(t.url).toBe(`${url}/v1/traces`);

    // The parent comes from a Sandbox's trace-context annotation (spec §19.2).
    const parent = propagation.extract(context.active(), {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    let injected: Record<string, string> = {};
    await t.tracer.startActiveSpan('ReconcileSandbox', {}, parent, async (span) => {
      await new Promise((r) => setTimeout(r, 5));
      const child = t.tracer.startSpan('reconcilePod');
      child.addEvent('NewPodStatusObserved', { 'pod.Name': 'sb', 'pod.Phase': 'Pending' });
      child.end();
      injected = {};
      propagation.inject(context.active(), injected);
      span.setAttribute('sandbox', 'default/sb');
      span.end();
    });
    expect(trace.getActiveSpan()).toBeUndefined();
    await t.shutdown();

    expect(received).toHaveLength(1);
    const r = received[0] as Received;
    expect(r.path).toBe('/v1/traces');
    expect(r.contentType).toBe('application/json');
    expect(r.auth).toBe('Bearer x');
    const rs = r.body.resourceSpans[0];
    expect(rs?.resource.attributes).toContainEqual({
      key: 'service.name',
      value: { stringValue: 'agent-sandbox-controller' },
    });
    const spans = rs?.scopeSpans[0]?.spans ?? [];
    expect(rs?.scopeSpans[0]?.scope.name).toBe('agent-sandbox-controller');
    const root = spans.find((s) => s.name === 'ReconcileSandbox');
    const pod = spans.find((s) => s.name === 'reconcilePod');
    expect(root?.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(root?.parentSpanId).toBe('b7ad6b7169203331');
    expect(pod?.traceId).toBe(root?.traceId);
    expect(pod?.parentSpanId).toBe(root?.spanId);
    expect(pod?.events.map((e) => e.name)).toEqual(['NewPodStatusObserved']);
    expect(injected['traceparent']).toBe(`00-${root?.traceId}-${root?.spanId}-01`);
  });

  it('reads the export timeout and names the variable when it is bad', () => {
    expect(otlpTimeoutMillis({})).toBeUndefined();
    expect(otlpTimeoutMillis({ OTEL_EXPORTER_OTLP_TIMEOUT: '2500' })).toBe(2500);
    expect(
      otlpTimeoutMillis({
        OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
        OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '7',
      }),
    ).toBe(7);
    expect(() => otlpTimeoutMillis({ OTEL_EXPORTER_OTLP_TIMEOUT: '2s' })).toThrow(
      /OTEL_EXPORTER_OTLP_TIMEOUT=2s: want a positive whole number of milliseconds/,
    );
  });

  it('keeps running when the collector is unreachable, and warns once', async () => {
    const lines: { msg: string; url?: string }[] = [];
    const recording = pino(
      { level: 'warn' },
      { write: (line: string) => lines.push(JSON.parse(line) as { msg: string }) },
    );
    // The exporter retries a refused connection until the export timeout (OTLP spec); a short
    // one keeps the shutdown short.
    const t = await setupTracing({
      enabled: true,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_EXPORTER_OTLP_TIMEOUT: '300' },
      logger: recording,
    });
    t.tracer.startSpan('ReconcileSandbox').end();
    await expect(t.shutdown()).resolves.toBeUndefined();
    expect(lines.map((l) => [l.msg, l.url])).toEqual([
      [
        'OTLP trace export failed; spans are dropped until it recovers',
        'http://127.0.0.1:1/v1/traces',
      ],
    ]);
  });
});

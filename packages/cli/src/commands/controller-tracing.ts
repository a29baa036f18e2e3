// Tracing for the controller manager (spec §19.2): placeholder until the OTLP exporter lands.
import { trace, type Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';

export interface TracingOptions {
  enabled: boolean;
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
}

export interface Tracing {
  tracer: Tracer;
  shutdown(): Promise<void>;
}

export function setupTracing(options: TracingOptions): Tracing {
  void options;
  return { tracer: trace.getTracer('agent-sandbox-controller'), shutdown: async () => undefined };
}

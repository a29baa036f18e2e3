// The node's exec metrics (ADR 0037): how each exec ran — forked by the in-sandbox daemon or
// through the runtime's exec — per runtime handler, so operators see when execs fall back.
// Labels are a fixed word and a configured handler (runc, runsc, bubblewrap): bounded. The
// streaming server serves the registry on /metrics, as kubelet serves its own on :10250.
import { Counter, Histogram, Registry } from 'prom-client';
import type { ExecEvent } from './pod-containers-backend.ts';

/** From the request to the process running: a daemon ack is ~1 ms, a runtime start 10–100 ms. */
const START_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export class ExecMetrics {
  readonly registry: Registry;
  readonly execs: Counter<'path' | 'runtime'>;
  readonly startSeconds: Histogram<'path' | 'runtime'>;

  constructor(registry: Registry = new Registry()) {
    this.registry = registry;
    const registers = [registry];
    this.execs = new Counter({
      name: 'agent_sandbox_node_execs_total',
      help: 'Execs started on this node, by path (daemon: forked by the in-sandbox daemon; runtime: the runtime exec) and runtime handler',
      labelNames: ['path', 'runtime'],
      registers,
    });
    this.startSeconds = new Histogram({
      name: 'agent_sandbox_node_exec_start_seconds',
      help: 'Time from an exec request to its process running, by path and runtime handler',
      labelNames: ['path', 'runtime'],
      buckets: START_BUCKETS,
      registers,
    });
  }

  /** Counts one started exec (PodContainersBackendOptions.onExec). */
  readonly observe = (e: ExecEvent): void => {
    const labels = { path: e.path, runtime: e.runtime };
    this.execs.inc(labels);
    this.startSeconds.observe(labels, e.startMs / 1000);
  };
}

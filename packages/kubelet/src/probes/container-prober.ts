// Runs a container instance's probes on their periods (kubelet-and-oci §2.4) from its start
// until `stop()`: each outcome is folded in by probe-state.ts; flag changes and a startup or
// liveness failure are reported to the pod worker, which publishes status or kills the container.
import type { Container } from '@agent-sandbox/kube-types';
import {
  activeProbes,
  containerFlags,
  initialProbeState,
  observe,
  probeTiming,
  unhealthy,
  type ProbeKind,
  type ProbeStates,
} from './probe-state.ts';
import { runProbe, type ProbeTarget } from './probe-runner.ts';

export interface ProberEvents {
  flags(f: { started: boolean; ready: boolean }): void;
  /** Fired once: the container must be killed and restarted under the restart policy. */
  unhealthy(kind: 'startup' | 'liveness', message: string): void;
}

const FIELD: Record<ProbeKind, 'startupProbe' | 'livenessProbe' | 'readinessProbe'> = {
  startup: 'startupProbe',
  liveness: 'livenessProbe',
  readiness: 'readinessProbe',
};

export class ContainerProber {
  readonly #container: Container;
  readonly #target: ProbeTarget;
  readonly #events: ProberEvents;
  #states: ProbeStates = {};
  readonly #timers = new Set<NodeJS.Timeout>();
  #stopped = false;

  constructor(container: Container, target: ProbeTarget, events: ProberEvents) {
    this.#container = container;
    this.#target = target;
    this.#events = events;
    for (const kind of ['startup', 'liveness', 'readiness'] as const)
      if (container[FIELD[kind]]) this.#states[kind] = initialProbeState(kind);
  }

  /** The flags before any probe ran. */
  get flags(): { started: boolean; ready: boolean } {
    return containerFlags(this.#states);
  }

  start(): void {
    for (const kind of Object.keys(this.#states) as ProbeKind[]) {
      const t = probeTiming(this.#container[FIELD[kind]] ?? {});
      this.#schedule(kind, t.initialDelayMs);
    }
  }

  stop(): void {
    this.#stopped = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  #schedule(kind: ProbeKind, ms: number): void {
    if (this.#stopped) return;
    const t = setTimeout(() => {
      this.#timers.delete(t);
      void this.#tick(kind);
    }, ms);
    this.#timers.add(t);
  }

  async #tick(kind: ProbeKind): Promise<void> {
    const probe = this.#container[FIELD[kind]] ?? {};
    const timing = probeTiming(probe);
    if (activeProbes(this.#states).includes(kind)) {
      const outcome = await runProbe(probe, timing.timeoutMs, this.#target);
      if (this.#stopped) return;
      const before = containerFlags(this.#states);
      this.#states = {
        ...this.#states,
        [kind]: observe(this.#states[kind] ?? initialProbeState(kind), outcome.ok, timing),
      };
      const after = containerFlags(this.#states);
      const bad = unhealthy(this.#states);
      if (bad) {
        this.stop();
        this.#events.unhealthy(
          bad,
          `${bad === 'startup' ? 'Startup' : 'Liveness'} probe failed: ${outcome.message}`,
        );
        return;
      }
      if (before.started !== after.started || before.ready !== after.ready)
        this.#events.flags(after);
    }
    this.#schedule(kind, timing.periodMs);
  }
}

// Timings of the steps a Pod takes on this node from pickup to a running container, for profiling
// cold starts (bench/node prints them). The agent only reports them; what to do with them is the
// caller's (NodeAgentOptions.onPhase). Times are monotonic milliseconds (performance.now()), so an
// in-process caller can line them up with its own clock.

/** One timed step of one Pod; an instant event has `startMs === endMs`. */
export interface PodPhase {
  /** `namespace/name`. */
  pod: string;
  uid: string;
  /** e.g. `network`, `rootfs`, `runtime-start`, `status-running` (bench/README.md lists them). */
  phase: string;
  startMs: number;
  endMs: number;
}

export type PodPhaseSink = (phase: PodPhase) => void;

/** A sink bound to one Pod: `time()` runs a step and reports it, `mark()` reports an instant. */
export interface PodPhaseTimer {
  time<T>(phase: string, step: () => Promise<T>): Promise<T>;
  mark(phase: string): void;
}

export function podPhaseTimer(
  sink: PodPhaseSink | undefined,
  pod: string,
  uid: string,
): PodPhaseTimer {
  if (!sink) return { time: (_phase, step) => step(), mark: () => undefined };
  return {
    async time(phase, step) {
      const startMs = performance.now();
      try {
        return await step();
      } finally {
        sink({ pod, uid, phase, startMs, endMs: performance.now() });
      }
    },
    mark(phase) {
      const now = performance.now();
      sink({ pod, uid, phase, startMs: now, endMs: now });
    },
  };
}

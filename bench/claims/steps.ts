// The rate-stepping search of bench:claims (pure): the highest claim rate a target sustains
// (client-watch p99 ≤ 500 ms, every claim Ready, ≥ 90 % of the asked rate created). Rates grow
// by `factor` from `from` until a step breaks, then `refine` bisections between the highest rate
// that held and the lowest that broke narrow the answer (when even the first rate breaks, rates
// fall by `factor` down to 1/s first); the search stops at `max` or when the next step would start
// past the budget.

export interface StepSchedule {
  /** First rate (claims/s). */
  from: number;
  /** Rate multiplier while every step holds. */
  factor: number;
  /** Seconds of claims per step (count = rate × seconds, at most the pool). */
  seconds: number;
  /** No step above this rate. */
  max: number;
  /** Bisections after the first broken step. */
  refine: number;
  /** No step starts after this many seconds of the phase. */
  budgetSeconds: number;
}

/**
 * The default: on 2 cores the embedded server held 20/s at p99 46 ms (2026-12-02, quiet) and a
 * claim costs ~12 writes against a raw write rate of ~580/s, so the answer lies between 4 and 64:
 * 4, 8, 16, 32, 64 then two bisections is at most 7 steps of ~30–60 s each (10 s of claims, their
 * Ready, the deletes and the pool's refill), inside the 10 minutes per target.
 */
export const DEFAULT_STEPS: StepSchedule = {
  from: 4,
  factor: 2,
  seconds: 10,
  max: 1000,
  refine: 2,
  budgetSeconds: 540,
};

export interface StepOutcome {
  rate: number;
  held: boolean;
}

const tenth = (n: number): number => Math.round(n * 10) / 10;

/** The next rate to step to after `done` (in the order run), or undefined: the search is over. */
export function nextStepRate(done: readonly StepOutcome[], s: StepSchedule): number | undefined {
  const last = done.at(-1);
  if (last === undefined) return s.from;
  const broke = done.filter((x) => !x.held).map((x) => x.rate);
  if (broke.length === 0) {
    const next = tenth(last.rate * s.factor);
    return next <= s.max && next > last.rate ? next : undefined;
  }
  const lo = highestHeld(done);
  if (lo === undefined) {
    // Even the first rate broke (a loaded machine): step down, not below 1/s.
    const down = tenth(Math.min(...broke) / s.factor);
    return down >= 1 && down < Math.min(...broke) ? down : undefined;
  }
  // Bisections are the steps run once both a held and a broken rate were known.
  const bracketed = done.findIndex((_, i) => {
    const head = done.slice(0, i + 1);
    return head.some((x) => x.held) && head.some((x) => !x.held);
  });
  if (done.length - 1 - bracketed >= s.refine) return undefined;
  const hi = Math.min(...broke.filter((r) => r > lo));
  const mid = tenth((lo + hi) / 2);
  return mid > lo && mid < hi ? mid : undefined;
}

export function highestHeld(done: readonly StepOutcome[]): number | undefined {
  const held = done.filter((x) => x.held).map((x) => x.rate);
  return held.length === 0 ? undefined : Math.max(...held);
}

/** The schedule in words, for the report. */
export function describeSchedule(s: StepSchedule): string {
  return (
    `from ${s.from}/s ×${s.factor} per step (≤ ${s.max}/s), ${s.seconds} s of claims each, ` +
    `then ${s.refine} bisection(s) after the first break; no step starts after ${s.budgetSeconds} s`
  );
}

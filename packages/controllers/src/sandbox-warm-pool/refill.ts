// How fast a warm pool refills, as data (spec §13.2 steps 7, 8 and 10): the replenish hold
// (`--sandbox-warm-pool-replenish-delay`: after a member loss, wait before creating replacements,
// so a burst of claims drains the pool to cold creates instead of racing its refill), the refill
// token bucket (`--sandbox-warm-pool-max-refill-rate` creates/s per pool), and the not-progressing
// signal for members held unschedulable. The state lives in memory per pool, like upstream's: a
// restarted manager starts with a full bucket and without a hold ("first observation never defers").

/** Per-pool state carried from one pass to the next. */
export interface RefillState {
  /** Active members the last pass counted, plus the creates it made. */
  baseline?: number;
  /** End of the replenish hold (epoch ms). */
  holdUntilMs?: number;
  /** Refill tokens left when last counted, and when that was. */
  tokens?: number;
  tokensAtMs?: number;
  /** A WarmPoolNotProgressing event was recorded and no recovery since. */
  notProgressing?: boolean;
}

export interface ReplenishDecision {
  state: RefillState;
  /** Creates wait this long (the hold is on). */
  holdMs?: number;
}

/**
 * The replenish hold: a drop of active members below the last count (re)arms a hold of `delayMs`
 * while the pool is below `desired`; a pass at or above `desired` clears it; the first pass never
 * defers. `delayMs` <= 0 turns it off.
 */
export function replenishHold(
  state: RefillState,
  current: number,
  desired: number,
  nowMs: number,
  delayMs: number,
): ReplenishDecision {
  if (delayMs <= 0 || current >= desired)
    return { state: { ...withoutHold(state), baseline: current } };
  const dropped = state.baseline !== undefined && current < state.baseline;
  const holdUntilMs = dropped ? nowMs + delayMs : state.holdUntilMs;
  if (holdUntilMs !== undefined && holdUntilMs > nowMs) {
    return { state: { ...state, baseline: current, holdUntilMs }, holdMs: holdUntilMs - nowMs };
  }
  return { state: { ...withoutHold(state), baseline: current } };
}

function withoutHold(state: RefillState): RefillState {
  const next = { ...state };
  delete next.holdUntilMs;
  return next;
}

/** Creates made this pass join the baseline, so losses during a refill still count as drops. */
export function afterCreates(state: RefillState, created: number): RefillState {
  return { ...state, baseline: (state.baseline ?? 0) + created };
}

export interface TokenGrant {
  state: RefillState;
  /** Whole tokens granted (creates allowed now). */
  granted: number;
  /** Nothing granted: the next token accrues in this many ms. */
  waitMs?: number;
}

/**
 * Takes up to `want` whole tokens from a bucket of capacity max(1, rate) that starts full and
 * accrues `rate` tokens per second. `rate` <= 0 is unlimited.
 */
export function takeTokens(
  state: RefillState,
  want: number,
  nowMs: number,
  rate: number,
): TokenGrant {
  if (rate <= 0) return { state, granted: want };
  const capacity = Math.max(1, rate);
  const elapsed = state.tokensAtMs === undefined ? 0 : Math.max(0, nowMs - state.tokensAtMs);
  const tokens = Math.min(capacity, (state.tokens ?? capacity) + (elapsed / 1000) * rate);
  const granted = Math.min(want, Math.floor(tokens));
  const next = { ...state, tokens: tokens - granted, tokensAtMs: nowMs };
  if (granted > 0) return { state: next, granted };
  return { state: next, granted: 0, waitMs: Math.ceil(((1 - next.tokens) / rate) * 1000) };
}

/** Gives back tokens whose creates were not attempted (the expectations gate said no). */
export function refundTokens(state: RefillState, n: number, rate: number): RefillState {
  if (rate <= 0 || n <= 0) return state;
  return { ...state, tokens: Math.min(Math.max(1, rate), (state.tokens ?? 0) + n) };
}

export interface PoolEvent {
  type: 'Normal' | 'Warning';
  reason: 'WarmPoolNotProgressing' | 'WarmPoolProgressing';
  action: 'Reconciling';
  note: string;
}

export interface ProgressDecision {
  state: RefillState;
  /** Recorded once per transition. */
  event?: PoolEvent;
  /** While members are held, look again after the recheck interval. */
  recheckMs?: number;
}

/** Step 10: members held unschedulable past the readiness grace make the pool not progressing. */
export function progress(
  state: RefillState,
  unschedulable: number,
  desired: number,
  readinessGraceMs: number,
  recheckMs: number,
): ProgressDecision {
  if (unschedulable > 0) {
    const next = { ...state, notProgressing: true };
    if (state.notProgressing === true) return { state: next, recheckMs };
    const note =
      `${unschedulable}/${desired} sandboxes are unschedulable past the ` +
      `${goDuration(readinessGraceMs)} readiness grace period; holding them instead of ` +
      'replacing (replacements would be equally unschedulable)';
    return {
      state: next,
      recheckMs,
      event: { type: 'Warning', reason: 'WarmPoolNotProgressing', action: 'Reconciling', note },
    };
  }
  if (state.notProgressing !== true) return { state };
  return {
    state: { ...state, notProgressing: false },
    event: {
      type: 'Normal',
      reason: 'WarmPoolProgressing',
      action: 'Reconciling',
      note: 'Warm pool is progressing again',
    },
  };
}

/** Go's time.Duration.String() for whole milliseconds: 5m0s, 1h0m0s, 1m30s, 1.5s, 500ms, 0s. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const rest = ms % 60_000;
  const whole = Math.floor(rest / 1000);
  const frac = rest % 1000;
  const s =
    frac === 0 ? `${whole}s` : `${whole}.${String(frac).padStart(3, '0').replace(/0+$/, '')}s`;
  if (h > 0) return `${h}h${m}m${s}`;
  if (m > 0) return `${m}m${s}`;
  return s;
}

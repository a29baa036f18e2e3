// The restart-chaos scenario as data: which Sandboxes the driver creates (the mix of Service,
// volumeClaimTemplates and expiry), when it suspends and resumes them, and when the manager is
// killed. Pure: one seed gives one plan, so a failing run replays with the same choices (the
// timing of the API server and the manager still varies from run to run).

/** A seeded PRNG returning floats in [0, 1). */
export type Random = () => number;

/**
 * mulberry32: a 32-bit seeded generator. Eight lines, no dependency; statistical quality is
 * irrelevant here, only reproducibility from a printed seed matters.
 */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed from `value` (an env var), else a fresh random one; rejects non-integers clearly. */
export function chaosSeed(value: string | undefined, envName: string): number {
  if (value === undefined || value === '') return Math.floor(Math.random() * 2 ** 31);
  if (!/^\d+$/.test(value))
    throw new Error(`${envName}=${value} is not a seed; use a non-negative integer, e.g. 12345`);
  return Number(value) >>> 0;
}

export type OperatingMode = 'Running' | 'Suspended';

export interface PlannedSandbox {
  name: string;
  /** spec.service: true, false, or unset (undefined). */
  service: boolean | undefined;
  /** Names of spec.volumeClaimTemplates. */
  volumeClaimTemplates: string[];
  /** shutdownTime = run start + atMs, with this shutdownPolicy; absent: never expires. */
  expiry?: { atMs: number; policy: 'Delete' | 'Retain' };
  /** spec.operatingMode at creation. */
  initialMode: OperatingMode;
  /** When the driver creates it, ms after the run starts. */
  createAtMs: number;
  /** Later spec.operatingMode patches, in time order. */
  ops: { atMs: number; mode: OperatingMode }[];
  /** Later spec.service patches (true ↔ false), in time order. */
  serviceOps: { atMs: number; service: boolean }[];
}

export interface PlannedKill {
  /** How long the manager lives after it reports serving. */
  liveMs: number;
  /** How long it stays down before the restart. */
  downMs: number;
}

export interface ChaosPlan {
  seed: number;
  sandboxes: PlannedSandbox[];
  kills: PlannedKill[];
}

export interface ChaosPlanOptions {
  seed: number;
  /** @default 200 */
  sandboxes?: number;
  /** @default 6 */
  kills?: number;
  /** Creates are spread over [0, createWindowMs). @default 15_000 */
  createWindowMs?: number;
  /** Suspends, resumes and expiries all fall before this. @default 40_000 */
  chaosWindowMs?: number;
  /**
   * A manager lives uniformly between these after it serves; with ~2–4 s of startup on 2 cores
   * the default six kills fall inside the chaos window, while the driver still writes.
   * @default [500, 3_500]
   */
  liveMs?: [number, number];
  /** @default [0, 700] */
  downMs?: [number, number];
}

/**
 * One plan per seed: ~40% service true, ~15% false, ~12% flipping it; ~35% with PVCs; ~30%
 * expiring; ~45% suspended or resumed at least once.
 */
export function chaosPlan(options: ChaosPlanOptions): ChaosPlan {
  const random = seededRandom(options.seed);
  const between = (lo: number, hi: number): number => Math.floor(lo + random() * (hi - lo));
  const createWindowMs = options.createWindowMs ?? 15_000;
  const chaosWindowMs = options.chaosWindowMs ?? 40_000;
  const sandboxes: PlannedSandbox[] = [];
  for (let i = 0; i < (options.sandboxes ?? 200); i++) {
    const createAtMs = Math.floor((i / (options.sandboxes ?? 200)) * createWindowMs);
    const s = random();
    const service = s < 0.4 ? true : s < 0.55 ? false : undefined;
    const v = random();
    const volumeClaimTemplates = v < 0.25 ? ['data'] : v < 0.35 ? ['data', 'cache'] : [];
    const e = random();
    const expiry =
      e < 0.15
        ? { atMs: between(createAtMs + 2_000, chaosWindowMs), policy: 'Delete' as const }
        : e < 0.3
          ? { atMs: between(createAtMs + 2_000, chaosWindowMs), policy: 'Retain' as const }
          : undefined;
    const initialMode: OperatingMode = random() < 0.05 ? 'Suspended' : 'Running';
    const ops: PlannedSandbox['ops'] = [];
    const o = random();
    // 0 ops ~55%, 1 op ~25% (suspend or resume), 2 ~15%, 3 ~5%: flips of the current mode.
    const count = o < 0.55 ? 0 : o < 0.8 ? 1 : o < 0.95 ? 2 : 3;
    let mode = initialMode;
    let at = createAtMs;
    for (let k = 0; k < count; k++) {
      at = between(at + 300, Math.max(at + 400, chaosWindowMs));
      mode = mode === 'Running' ? 'Suspended' : 'Running';
      ops.push({ atMs: at, mode });
    }
    // ~12% flip spec.service once or twice: the Service is created, or deleted (false), mid-run.
    const serviceOps: PlannedSandbox['serviceOps'] = [];
    const f = random();
    let current = service;
    let flipAt = createAtMs;
    for (let k = 0; k < (f < 0.08 ? 1 : f < 0.12 ? 2 : 0); k++) {
      flipAt = between(flipAt + 300, Math.max(flipAt + 400, chaosWindowMs));
      current = current !== true;
      serviceOps.push({ atMs: flipAt, service: current });
    }
    sandboxes.push({
      name: `sb-${String(i).padStart(3, '0')}`,
      service,
      volumeClaimTemplates,
      ...(expiry ? { expiry } : {}),
      initialMode,
      createAtMs,
      ops,
      serviceOps,
    });
  }
  const [liveLo, liveHi] = options.liveMs ?? [500, 3_500];
  const [downLo, downHi] = options.downMs ?? [0, 700];
  const kills: PlannedKill[] = [];
  for (let k = 0; k < (options.kills ?? 6); k++)
    kills.push({ liveMs: between(liveLo, liveHi), downMs: between(downLo, downHi) });
  return { seed: options.seed, sandboxes, kills };
}

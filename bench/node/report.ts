// The node bench's tables: the watched marks of each cold start and the agent's step breakdown
// (median duration and median end, both from the create call), per runtime and kind.
import { percentiles, type Percentiles } from '../claims/stats.ts';
import type { ColdRound } from './cold-start.ts';

export interface PhaseRow {
  phase: string;
  /** Median of the step's own duration. */
  durationMs: number;
  /** Median of when it ended, ms after the create call. */
  endMs: number;
  n: number;
}

/** Marks by name → percentiles over the rounds. */
export function markPercentiles(rounds: readonly ColdRound[]): Record<string, Percentiles> {
  const out: Record<string, Percentiles> = {};
  const names = [...new Set(rounds.flatMap((r) => Object.keys(r.marks)))];
  for (const name of names) {
    const p = percentiles(rounds.map((r) => r.marks[name]).filter((v) => v !== undefined));
    if (p) out[name] = p;
  }
  return out;
}

/** The agent's steps in the order they ended (median end), with median durations. */
export function phaseRows(rounds: readonly ColdRound[]): PhaseRow[] {
  const byPhase = new Map<string, { d: number[]; e: number[] }>();
  for (const r of rounds)
    for (const p of r.phases) {
      const v = byPhase.get(p.phase) ?? { d: [], e: [] };
      v.d.push(p.endMs - p.startMs);
      v.e.push(p.endMs);
      byPhase.set(p.phase, v);
    }
  return [...byPhase.entries()]
    .map(([phase, v]) => ({
      phase,
      durationMs: percentiles(v.d)?.p50 ?? NaN,
      endMs: percentiles(v.e)?.p50 ?? NaN,
      n: v.d.length,
    }))
    .sort((a, b) => a.endMs - b.endMs);
}

export function phaseTable(title: string, rows: readonly PhaseRow[]): string {
  const lines = [
    `| ${title}: agent step | n | p50 duration ms | p50 ends at ms |`,
    '| --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.phase} | ${r.n} | ${r.durationMs} | ${r.endMs} |`),
  ];
  return lines.join('\n');
}

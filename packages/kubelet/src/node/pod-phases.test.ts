import { describe, expect, it } from 'vitest';
import { podPhaseTimer, type PodPhase } from './pod-phases.ts';

describe('podPhaseTimer', () => {
  it('reports each step with its pod, its span and its result, also when it throws', async () => {
    const seen: PodPhase[] = [];
    const t = podPhaseTimer((p) => seen.push(p), 'default/a', 'u1');
    t.mark('observed');
    expect(await t.time('network', () => Promise.resolve(42))).toBe(42);
    await expect(t.time('volumes', () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(seen.map((p) => [p.pod, p.uid, p.phase])).toEqual([
      ['default/a', 'u1', 'observed'],
      ['default/a', 'u1', 'network'],
      ['default/a', 'u1', 'volumes'],
    ]);
    expect(seen[0]?.endMs).toBe(seen[0]?.startMs);
    for (const p of seen) expect(p.endMs).toBeGreaterThanOrEqual(p.startMs);
    expect(seen[2]?.startMs).toBeGreaterThanOrEqual(seen[1]?.endMs ?? Infinity);
  });

  it('without a sink only runs the steps', async () => {
    const t = podPhaseTimer(undefined, 'default/a', 'u1');
    t.mark('observed');
    expect(await t.time('network', () => Promise.resolve('ok'))).toBe('ok');
  });
});

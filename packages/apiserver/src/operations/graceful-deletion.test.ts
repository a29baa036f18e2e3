import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../objects.ts';
import { gracefulStep, podDeletionGrace } from './graceful-deletion.ts';

const NOW = new Date('2026-01-01T00:00:00Z');

function pod(spec: Record<string, unknown>, phase = 'Running', meta = {}): KubeObject {
  return { metadata: { name: 'p', ...meta }, spec, status: { phase } } as KubeObject;
}

describe('podDeletionGrace', () => {
  const bound = { nodeName: 'n', terminationGracePeriodSeconds: 40 };
  it('takes the request, else the spec, else 0', () => {
    expect(podDeletionGrace(pod(bound), 5)).toBe(5);
    expect(podDeletionGrace(pod(bound), undefined)).toBe(40);
    expect(podDeletionGrace(pod({ nodeName: 'n' }), undefined)).toBe(0);
  });
  it('is 0 for an unbound or terminal Pod, and 1 for a negative request', () => {
    expect(podDeletionGrace(pod({ terminationGracePeriodSeconds: 40 }), 10)).toBe(0);
    expect(podDeletionGrace(pod(bound, 'Succeeded'), 10)).toBe(0);
    expect(podDeletionGrace(pod(bound, 'Failed'), undefined)).toBe(0);
    expect(podDeletionGrace(pod(bound), -3)).toBe(1);
  });
});

describe('gracefulStep', () => {
  const grace = (g: number | undefined) => g ?? 30;
  it('marks a first deletion at now + grace', () => {
    expect(gracefulStep(pod({}), undefined, grace, NOW)).toEqual({
      kind: 'mark',
      deletionTimestamp: '2026-01-01T00:00:30Z',
      grace: 30,
      firstMark: true,
    });
    expect(gracefulStep(pod({}), -7, grace, NOW)).toMatchObject({ grace: 1 });
  });
  const marked = (ts: string, g: number | undefined) =>
    pod({}, 'Running', { deletionTimestamp: ts, deletionGracePeriodSeconds: g });
  it('leaves a pending deletion alone unless the grace gets shorter', () => {
    const m = marked('2026-01-01T00:00:20Z', 30);
    expect(gracefulStep(m, undefined, grace, NOW)).toEqual({ kind: 'pending' });
    expect(gracefulStep(m, 30, grace, NOW)).toEqual({ kind: 'pending' });
    expect(gracefulStep(m, 100, grace, NOW)).toEqual({ kind: 'pending' });
    expect(gracefulStep(m, 25, grace, NOW)).toEqual({
      kind: 'mark',
      deletionTimestamp: '2026-01-01T00:00:15Z',
      grace: 25,
      firstMark: false,
    });
  });
  it('never moves the mark before now: grace 1 unless 0 was asked', () => {
    const m = marked('2026-01-01T00:00:05Z', 30);
    expect(gracefulStep(m, 10, grace, NOW)).toMatchObject({
      deletionTimestamp: '2026-01-01T00:00:00Z',
      grace: 1,
    });
    expect(gracefulStep(m, 0, grace, NOW)).toMatchObject({ grace: 0 });
  });
  it('takes the ordinary path for a mark with grace 0 or none', () => {
    expect(gracefulStep(marked('2026-01-01T00:00:00Z', 0), 5, grace, NOW)).toEqual({
      kind: 'ordinary',
    });
    expect(gracefulStep(marked('2026-01-01T00:00:00Z', undefined), 5, grace, NOW)).toEqual({
      kind: 'ordinary',
    });
  });
});

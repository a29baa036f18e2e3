// The pool status pace (status-pace.ts): no-op writes skipped, count churn throttled to one write
// per interval with the trailing write left to a requeued pass, spec acknowledgements and changes
// into or out of the settled pool at once.
import { describe, expect, it } from 'vitest';
import { paceStatus, statusPatchBody, type StatusPaceInput } from './status-pace.ts';

const SELECTOR = 'agents.x-k8s.io/warm-pool-sandbox=abc';
const stored = { replicas: 3, readyReplicas: 2, selector: SELECTOR, observedGeneration: 1 };
const at = (over: Partial<StatusPaceInput>): StatusPaceInput => ({
  stored,
  next: stored,
  desired: 4,
  lastWriteMs: 10_000,
  nowMs: 10_400,
  intervalMs: 1_000,
  ...over,
});

describe('paceStatus', () => {
  it('an equal status is never written, whatever the pace', () => {
    expect(paceStatus(at({})).kind).toBe('unchanged');
    expect(paceStatus(at({ lastWriteMs: undefined })).kind).toBe('unchanged');
  });

  it('zero counts equal absent ones (omitempty)', () => {
    const empty = { selector: SELECTOR, observedGeneration: 1 };
    const zeros = { ...empty, replicas: 0, readyReplicas: 0 };
    expect(paceStatus(at({ stored: empty, next: zeros })).kind).toBe('unchanged');
    expect(paceStatus(at({ stored: zeros, next: empty })).kind).toBe('unchanged');
  });

  it('a count change with no write in the interval is written at once, without zeros', () => {
    const next = { ...stored, readyReplicas: 0 };
    expect(paceStatus(at({ next, lastWriteMs: undefined }))).toEqual({
      kind: 'write',
      status: { replicas: 3, selector: SELECTOR, observedGeneration: 1 },
    });
    expect(paceStatus(at({ next, nowMs: 11_000 })).kind).toBe('write');
  });

  it('a count change within the interval waits for its end', () => {
    expect(paceStatus(at({ next: { ...stored, readyReplicas: 3 } }))).toEqual({
      kind: 'defer',
      afterMs: 600,
    });
    expect(paceStatus(at({ next: { ...stored, replicas: 2 }, nowMs: 10_999.5 }))).toEqual({
      kind: 'defer',
      afterMs: 1,
    });
  });

  it('a new generation or selector is written at once, counts with it', () => {
    const generation = { ...stored, readyReplicas: 3, observedGeneration: 2 };
    expect(paceStatus(at({ next: generation }))).toEqual({ kind: 'write', status: generation });
    const first = { replicas: 3, selector: SELECTOR, observedGeneration: 1 };
    expect(paceStatus(at({ stored: {}, next: first })).kind).toBe('write');
  });

  it('a change into or out of the settled pool (desired members, all Ready) is written at once', () => {
    const settled = { ...stored, replicas: 4, readyReplicas: 4 };
    expect(paceStatus(at({ next: settled }))).toEqual({ kind: 'write', status: settled });
    const drawn = { ...stored, replicas: 3, readyReplicas: 3 };
    expect(paceStatus(at({ stored: settled, next: drawn }))).toEqual({
      kind: 'write',
      status: drawn,
    });
    // Between two unsettled states the pace holds.
    expect(paceStatus(at({ next: { ...stored, replicas: 4, readyReplicas: 3 } })).kind).toBe(
      'defer',
    );
    expect(paceStatus(at({ next: { ...stored, replicas: 5, readyReplicas: 4 } })).kind).toBe(
      'defer',
    );
    const empty = { selector: SELECTOR, observedGeneration: 1 };
    expect(paceStatus(at({ next: empty, desired: 0 }))).toEqual({ kind: 'write', status: empty });
  });

  it('interval 0 writes every change', () => {
    const next = { ...stored, readyReplicas: 3 };
    expect(paceStatus(at({ next, nowMs: 10_000, intervalMs: 0 })).kind).toBe('write');
  });

  it('a clock that went back does not hold the write for longer than the interval', () => {
    const next = { ...stored, readyReplicas: 3 };
    expect(paceStatus(at({ next, nowMs: 9_000 })).kind).toBe('write');
  });
});

describe('statusPatchBody', () => {
  it('names every field, absent ones null so the merge patch clears them', () => {
    expect(statusPatchBody({ selector: SELECTOR, observedGeneration: 4 })).toEqual({
      replicas: null,
      readyReplicas: null,
      selector: SELECTOR,
      observedGeneration: 4,
    });
  });
});

import { describe, expect, it } from 'vitest';
import { initialRecord, sandboxRetryMs, waitingToCreate } from './container-record.ts';

describe('sandboxRetryMs', () => {
  it('doubles from the base to the cap', () => {
    const mid = () => 0.5; // no jitter
    expect([1, 2, 3, 4, 5, 6, 7, 20].map((n) => sandboxRetryMs(n, 1000, 30_000, mid))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it('jitters by at most a fifth either way', () => {
    expect(sandboxRetryMs(1, 1000, 30_000, () => 0)).toBe(800);
    expect(sandboxRetryMs(1, 1000, 30_000, () => 1)).toBe(1200);
    expect(sandboxRetryMs(10, 1000, 30_000, () => 1)).toBe(36_000);
  });
});

describe('waitingToCreate', () => {
  it('keeps the default reason while the sandbox is retried, the cause as the message', () => {
    expect(waitingToCreate(false, 'configmap "cm" not found')).toEqual({
      kind: 'waiting',
      reason: 'ContainerCreating',
      message: 'Failed to create pod sandbox: configmap "cm" not found',
    });
    // An app container behind init containers waits for them, whatever the sandbox does.
    expect(waitingToCreate(true, 'x')).toMatchObject({ reason: 'PodInitializing' });
    expect(waitingToCreate(false)).toEqual(initialRecord('c', 'i', false).state);
    expect(waitingToCreate(true)).toEqual({ kind: 'waiting', reason: 'PodInitializing' });
  });
});

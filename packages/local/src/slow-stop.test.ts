// reportSlow on fake timers: told every SLOW_STOP_MS with the elapsed time while the stop is
// pending, never after it settled, not at all without a listener.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SLOW_STOP_MS, reportSlow } from './slow-stop.ts';

describe('reportSlow', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reports a part still stopping every SLOW_STOP_MS until it stops', async () => {
    const told: Array<[string, number]> = [];
    let finish: () => void = () => undefined;
    const stopping = new Promise<void>((r) => (finish = r));
    const done = reportSlow('node-agent', stopping, (part, ms) => told.push([part, ms]));
    await vi.advanceTimersByTimeAsync(2 * SLOW_STOP_MS + 1_000);
    finish();
    await done;
    await vi.advanceTimersByTimeAsync(3 * SLOW_STOP_MS);
    expect(told).toEqual([
      ['node-agent', SLOW_STOP_MS],
      ['node-agent', 2 * SLOW_STOP_MS],
    ]);
  });

  it('says nothing about a quick stop and passes its rejection on', async () => {
    const told: string[] = [];
    await reportSlow('router', Promise.resolve(), (part) => told.push(part));
    await expect(
      reportSlow('router', Promise.reject(new Error('boom')), (part) => told.push(part)),
    ).rejects.toThrow('boom');
    expect(told).toEqual([]);
  });
});

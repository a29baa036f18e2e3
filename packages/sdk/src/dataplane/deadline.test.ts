import { describe, expect, it } from 'vitest';
import { answerDeadlineMs, reportingPulls } from './deadline.ts';

describe('answerDeadlineMs', () => {
  it('is connectTimeoutMs for no body, a stream and small bodies', () => {
    expect(answerDeadlineMs(1000, undefined)).toBe(1000);
    expect(answerDeadlineMs(1000, 'hi')).toBe(1000);
    expect(answerDeadlineMs(1000, new Blob(['hi']).stream())).toBe(1000);
  });

  it('adds a second per whole MiB of a body given whole (bytes, text, Blob)', () => {
    const mib = 1024 * 1024;
    expect(answerDeadlineMs(1000, new Uint8Array(3 * mib))).toBe(4000);
    expect(answerDeadlineMs(1000, new Uint8Array(mib - 1))).toBe(1000);
    expect(answerDeadlineMs(1000, 'é'.repeat(mib))).toBe(3000); // two bytes each in UTF-8
    expect(answerDeadlineMs(500, new Blob([new Uint8Array(2 * mib)]))).toBe(2500);
  });
});

describe('reportingPulls', () => {
  it('passes every chunk through and reports each pull', async () => {
    let pulls = 0;
    const out = reportingPulls(new Blob(['ab', 'cd']).stream(), () => pulls++);
    expect(await new Response(out).text()).toBe('abcd');
    expect(pulls).toBeGreaterThanOrEqual(2); // at least one chunk and the end
  });
});

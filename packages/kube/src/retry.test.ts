import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_BACKOFF, mayRetry, retryDelayMs, transportFailure } from './retry.ts';

const coded = (code: string): Error => Object.assign(new Error(code), { code });

describe('transportFailure', () => {
  it('finds the code on the error, down its causes and inside an AggregateError', () => {
    expect(transportFailure(coded('ECONNREFUSED'))).toBe('not-connected');
    expect(transportFailure(new TypeError('fetch failed', { cause: coded('ECONNRESET') }))).toBe(
      'broken',
    );
    const socket = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    expect(transportFailure(new TypeError('fetch failed', { cause: socket }))).toBe('broken');
    // Happy eyeballs: every address refused.
    const all = new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')], 'connect');
    expect(transportFailure(new TypeError('fetch failed', { cause: all }))).toBe('not-connected');
    expect(transportFailure(coded('UND_ERR_CONNECT_TIMEOUT'))).toBe('not-connected');
  });

  it('calls TLS and certificate failures, aborts and unknown values "other"', () => {
    expect(transportFailure(coded('ERR_TLS_CERT_ALTNAME_INVALID'))).toBe('other');
    expect(transportFailure(coded('DEPTH_ZERO_SELF_SIGNED_CERT'))).toBe('other');
    expect(transportFailure(new DOMException('aborted', 'AbortError'))).toBe('other');
    expect(transportFailure('ECONNRESET')).toBe('other');
    const loop: { code?: string; cause?: unknown } = {};
    loop.cause = loop;
    expect(transportFailure(loop)).toBe('other');
  });
});

describe('mayRetry', () => {
  it('retries anything that never connected, and only replay-safe requests on a broken one', () => {
    expect(mayRetry('not-connected', false)).toBe(true);
    expect(mayRetry('not-connected', true)).toBe(true);
    expect(mayRetry('broken', true)).toBe(true);
    expect(mayRetry('broken', false)).toBe(false);
    expect(mayRetry('other', true)).toBe(false);
  });
});

describe('retryDelayMs', () => {
  it('doubles from the initial delay, caps it and adds at most 20% jitter', () => {
    const b = DEFAULT_RETRY_BACKOFF;
    expect([0, 1, 2, 3, 4, 5].map((n) => retryDelayMs(b, n, 0))).toEqual([
      50, 100, 200, 400, 800, 1000,
    ]);
    expect(retryDelayMs(b, 0, 0.999)).toBe(60);
    expect(retryDelayMs(b, 9, 0.999)).toBe(1200);
  });
});

import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  parseMaxMutatingRequestsInflight,
  parseMaxRequestsInflight,
  parseRequestTimeout,
} from './limits.ts';

describe('limit flag values', () => {
  it('--request-timeout takes Go durations in milliseconds; 0 turns it off', () => {
    expect(parseRequestTimeout('60s')).toBe(60_000);
    expect(parseRequestTimeout('1m30s')).toBe(90_000);
    expect(parseRequestTimeout('250ms')).toBe(250);
    expect(parseRequestTimeout('0')).toBe(0);
    expect(() => parseRequestTimeout('1d')).toThrow(InvalidArgumentError);
  });

  it('the in-flight limits take whole numbers ≥ 0; 0 is no limit', () => {
    expect(parseMaxRequestsInflight('400')).toBe(400);
    expect(parseMaxRequestsInflight('0')).toBe(0);
    expect(parseMaxMutatingRequestsInflight('+2')).toBe(2);
    expect(() => parseMaxMutatingRequestsInflight('')).toThrow(
      '--max-mutating-requests-inflight must be a whole number ≥ 0 (0: no limit), got ""',
    );
    expect(() => parseMaxRequestsInflight('99999999999999999999')).toThrow(
      '--max-requests-inflight must be a whole number ≥ 0',
    );
  });
});

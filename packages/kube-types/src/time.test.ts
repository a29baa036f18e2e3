import { describe, expect, it } from 'vitest';
import { formatMicroTime, formatTime, formatUnixTime, parseTime } from './time.ts';

describe('MicroTime', () => {
  it('always has six fractional digits', () => {
    expect(formatMicroTime(Date.UTC(2025, 0, 2, 3, 4, 5, 678))).toBe('2025-01-02T03:04:05.678000Z');
    expect(formatMicroTime(new Date(Date.UTC(2025, 0, 2, 3, 4, 5)))).toBe(
      '2025-01-02T03:04:05.000000Z',
    );
  });
  it('formats Time with whole seconds and parses both', () => {
    expect(formatTime(Date.UTC(2025, 0, 2, 3, 4, 5, 999))).toBe('2025-01-02T03:04:05Z');
    expect(parseTime('2025-01-02T03:04:05.678000Z')).toBe(Date.UTC(2025, 0, 2, 3, 4, 5, 678));
    expect(parseTime(undefined)).toBeNaN();
  });
});

describe('formatUnixTime', () => {
  it("prints Go's zero time and times before 1970 with four-digit years", () => {
    expect(formatUnixTime(-62135596800)).toBe('0001-01-01T00:00:00Z');
    expect(formatUnixTime(-1, 500)).toBe('1969-12-31T23:59:59.000500Z');
    expect(formatMicroTime(-1)).toBe('1969-12-31T23:59:59.999000Z');
  });
});

import { describe, expect, it } from 'vitest';
import { formatMicroTime, formatTime, parseTime } from './time.ts';

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

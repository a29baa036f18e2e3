import { describe, expect, it } from 'vitest';
import { nameHash } from './name-hash.ts';

describe('nameHash', () => {
  // Test vectors from the upstream specification (spec conventions).
  it.each([
    ['', '811c9dc5'],
    ['a', 'e40c292c'],
    ['my-sandbox', '374de8f5'],
    ['sandbox-name', 'ab179450'],
    ['pool', '91dd7983'],
    ['test-template', '69155462'],
  ])('hashes %j to %s', (input, expected) => {
    expect(nameHash(input)).toBe(expected);
  });

  it('hashes UTF-8 bytes, not UTF-16 code units', () => {
    // FNV-1a of the two bytes 0xc3 0xa9 ("é" in UTF-8), computed by hand.
    let h = 0x811c9dc5;
    for (const b of [0xc3, 0xa9]) h = Math.imul(h ^ b, 0x01000193) >>> 0;
    expect(nameHash('é')).toBe(h.toString(16).padStart(8, '0'));
  });

  it('always gives 8 lowercase hex digits', () => {
    for (let i = 0; i < 500; i++) expect(nameHash(`sandbox-${i}`)).toMatch(/^[0-9a-f]{8}$/);
  });
});

import { describe, expect, it } from 'vitest';
import { encodeFilePath } from './paths.ts';

describe('encodeFilePath', () => {
  it('encodes like upstream Go SDK: unreserved kept, the rest upper-case %XX, / included', () => {
    expect(encodeFilePath('a/b c.txt')).toBe('a%2Fb%20c.txt');
    expect(encodeFilePath('/abs/x~_-.y')).toBe('%2Fabs%2Fx~_-.y');
    expect(encodeFilePath('é')).toBe('%C3%A9');
    expect(encodeFilePath('?#%')).toBe('%3F%23%25');
  });
  it('encodes the dot paths whole, which a URL parser would otherwise clean away', () => {
    expect(encodeFilePath('.')).toBe('%2E');
    expect(encodeFilePath('..')).toBe('%2E%2E');
  });
  it('refuses the empty path', () => {
    expect(() => encodeFilePath('')).toThrow('path must not be empty');
  });
});

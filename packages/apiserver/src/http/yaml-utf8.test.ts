import { describe, expect, it } from 'vitest';
import { yamlUtf8Error } from './yaml-utf8.ts';

const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);

describe('yamlUtf8Error (go-yaml reader words, as kube-apiserver answered them)', () => {
  it('accepts UTF-8 of every width', () => {
    expect(yamlUtf8Error(new TextEncoder().encode('a: "é € 𝄞"\n'))).toBeUndefined();
  });
  it('a byte no sequence starts with is a leading octet error', () => {
    // `{"\xff\xfe":1}`: kube said "yaml: invalid leading UTF-8 octet"
    expect(yamlUtf8Error(bytes(0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d))).toBe(
      'yaml: invalid leading UTF-8 octet',
    );
  });
  it('a sequence whose next byte is no continuation is a trailing octet error', () => {
    // `a: "\xc3\x28"`: kube said "yaml: invalid trailing UTF-8 octet"
    expect(yamlUtf8Error(bytes(0x61, 0x3a, 0x20, 0x22, 0xc3, 0x28, 0x22, 0x0a))).toBe(
      'yaml: invalid trailing UTF-8 octet',
    );
  });
  it('a sequence cut off by the end is incomplete', () => {
    expect(yamlUtf8Error(bytes(0x61, 0xe2, 0x82))).toBe('yaml: incomplete UTF-8 octet sequence');
  });
});

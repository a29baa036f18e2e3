// Prefix scans as half-open key ranges, so SQLite walks the (name, id) index instead of testing
// every row with LIKE (whose `_`/`%` and case folding would also be wrong for keys).

/**
 * The smallest string greater than every string that starts with `prefix`, under byte order of
 * UTF-8 (which is code point order), or `undefined` when there is none (empty prefix, or a
 * prefix made only of U+10FFFF). Every key k with `prefix <= k < end` starts with `prefix`.
 */
export function prefixEnd(prefix: string): string | undefined {
  const codePoints = Array.from(prefix);
  while (codePoints.length > 0) {
    const last = codePoints.pop() ?? '';
    const cp = last.codePointAt(0) ?? 0;
    if (cp < 0x10ffff) {
      // Skip the surrogate block: it cannot appear in well-formed UTF-8.
      const next = cp === 0xd7ff ? 0xe000 : cp + 1;
      return codePoints.join('') + String.fromCodePoint(next);
    }
  }
  return undefined;
}

/** Compares two keys in storage order (UTF-8 bytes), for callers that sort outside SQLite. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

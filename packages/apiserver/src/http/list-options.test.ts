import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { nestsDeeperThan } from './body.ts';
import { listOptions, parseInt64, parseUint64 } from './list-options.ts';

function statusOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err: unknown) {
    if (err instanceof ApiError) return { code: err.status.code, message: err.status.message };
    throw err;
  }
  return 'no error';
}

describe('list options as kube parses them', () => {
  it('parses integers like Go strconv, with its messages', () => {
    expect(parseInt64('+5')).toBe(5n);
    expect(parseInt64('-5')).toBe(-5n);
    expect(parseInt64(' 5')).toEqual({ error: 'strconv.ParseInt: parsing " 5": invalid syntax' });
    expect(parseInt64('9223372036854775808')).toEqual({
      error: 'strconv.ParseInt: parsing "9223372036854775808": value out of range',
    });
    expect(parseUint64('18446744073709551615')).toBe(18446744073709551615n);
    expect(parseUint64('-5')).toEqual({ error: 'strconv.ParseUint: parsing "-5": invalid syntax' });
  });

  it('answers a bad resourceVersion with 400 for a list and kube’s reasonless 500 for a watch', () => {
    const url = new URL('http://x/api/v1/configmaps?resourceVersion=abc');
    expect(statusOf(() => listOptions(url, false))).toMatchObject({ code: 400 });
    expect(statusOf(() => listOptions(url, true))).toMatchObject({ code: 500 });
  });

  it('validates resourceVersionMatch and sendInitialEvents as ValidateListOptions does', () => {
    const list = (q: string): unknown =>
      statusOf(() => listOptions(new URL(`http://x/?${q}`), false));
    expect(list('resourceVersionMatch=Foo')).toMatchObject({
      code: 422,
      message:
        'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Unsupported value: "Foo": supported values: "Exact", "NotOlderThan", ""]',
    });
    expect(list('resourceVersionMatch=NotOlderThan&resourceVersion=1')).toBe('no error');
    expect(list('limit=abc')).toMatchObject({ code: 400 });
  });

  it('measures nesting without recursion, at any depth', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
    expect(nestsDeeperThan(deep, 1000)).toBe(true);
    expect(nestsDeeperThan({ a: { b: [1] } }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: { b: [1] } }, 2)).toBe(true);
  });
});

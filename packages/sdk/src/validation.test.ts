import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from './errors.ts';
import { checkAnnotations, checkEnv, checkLabels, checkQualifiedKey } from './validation.ts';

describe('client-side checks', () => {
  it('accepts Kubernetes label keys and values', () => {
    expect(() => checkLabels('labels', { 'example.com/team': 'a-1', app: '' })).not.toThrow();
  });
  it.each([
    ['bad key', 'x', /the name must be/],
    ['Example.com/x', 'x', /the prefix before '\/' must be a DNS subdomain/],
    ['/x', 'x', /prefix/],
    ['ok', '-starts-with-dash', /value "-starts-with-dash"/],
    ['ok', 'x'.repeat(64), /at most 63/],
  ])('refuses label %j=%j', (k, v, message) => {
    expect(() => checkLabels('labels', { [k]: v })).toThrow(message);
    expect(() => checkLabels('labels', { [k]: v })).toThrow(InvalidArgumentError);
  });
  it('checks annotation keys but not values', () => {
    expect(() => checkAnnotations('metadata', { 'a.io/k': 'any value at all' })).not.toThrow();
    expect(() => checkQualifiedKey('metadata', 'a b')).toThrow(/metadata key "a b"/);
  });
  it('takes env names upstream accepts', () => {
    expect(() => checkEnv('env', { PATH_X: '1', '.hidden': '2', 'a-b.c': '3' })).not.toThrow();
    for (const bad of ['1X', '..x', '.', 'A B', ''])
      expect(() => checkEnv('env', { [bad]: 'v' })).toThrow(`env name "${bad}"`);
  });
});

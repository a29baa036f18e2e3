import { describe, expect, it } from 'vitest';
import { parseChallenge } from './auth-challenge.ts';

describe('parseChallenge', () => {
  it('parses a bearer challenge whose scope holds a comma', () => {
    expect(
      parseChallenge(
        'Bearer realm="https://auth.example/token",service="reg",scope="repository:x:pull,push"',
      ),
    ).toEqual({
      scheme: 'bearer',
      params: {
        realm: 'https://auth.example/token',
        service: 'reg',
        scope: 'repository:x:pull,push',
      },
    });
  });
  it('parses basic and unquoted values', () => {
    expect(parseChallenge('Basic realm=Registry')).toEqual({
      scheme: 'basic',
      params: { realm: 'Registry' },
    });
  });
  it('returns undefined for garbage', () => {
    expect(parseChallenge('')).toBeUndefined();
  });
});

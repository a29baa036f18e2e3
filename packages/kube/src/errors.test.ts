import { describe, expect, it } from 'vitest';
import {
  ApiError,
  apiErrorFromResponse,
  ignoreNotFound,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  KubeError,
} from './errors.ts';

const status = (code: number, reason: string, message: string): string =>
  JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  });

describe('apiErrorFromResponse', () => {
  it('keeps the server Status', () => {
    const err = apiErrorFromResponse(
      'get pods default/x',
      404,
      status(404, 'NotFound', 'pods "x" not found'),
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toBeInstanceOf(KubeError);
    expect(err.code).toBe('ApiError');
    expect(err.status.reason).toBe('NotFound');
    expect(err.message).toBe('get pods default/x: pods "x" not found');
    expect(isNotFound(err)).toBe(true);
    expect(isConflict(err)).toBe(false);
  });
  it('turns the plain-text 404 into NotFound as client-go does', () => {
    const err = apiErrorFromResponse('get', 404, '404 page not found\n');
    expect(err.status).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'the server could not find the requested resource',
    });
  });
  it('tells AlreadyExists from Conflict by reason, and 410 Expired is gone', () => {
    expect(isAlreadyExists(apiErrorFromResponse('c', 409, status(409, 'AlreadyExists', 'x')))).toBe(
      true,
    );
    expect(isConflict(apiErrorFromResponse('c', 409, status(409, 'AlreadyExists', 'x')))).toBe(
      false,
    );
    expect(isGone(apiErrorFromResponse('w', 410, status(410, 'Expired', 'too old')))).toBe(true);
    expect(isGone(new Error('410'))).toBe(false);
  });
  it('ignoreNotFound swallows only NotFound', () => {
    expect(
      ignoreNotFound(apiErrorFromResponse('g', 404, status(404, 'NotFound', 'x'))),
    ).toBeUndefined();
    const conflict = apiErrorFromResponse('u', 409, status(409, 'Conflict', 'x'));
    expect(() => ignoreNotFound(conflict)).toThrow(conflict);
  });
});

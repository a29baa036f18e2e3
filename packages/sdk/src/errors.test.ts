import { ApiError, KubeError } from '@agent-sandbox/kube';
import type { StatusReason } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import {
  AlreadyExistsError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  PermissionDeniedError,
  SdkError,
  ServerError,
  TimeoutError,
  errorFromStatus,
  fromKubeError,
} from './errors.ts';

describe('errors', () => {
  it.each([
    [400, 'InvalidArgument'],
    [401, 'Unauthenticated'],
    [403, 'PermissionDenied'],
    [404, 'NotFound'],
    [409, 'Conflict'],
    [413, 'InvalidArgument'],
    [429, 'RateLimited'],
    [500, 'Server'],
    [501, 'Unsupported'],
    [502, 'Connection'],
    [503, 'Connection'],
    [504, 'Timeout'],
  ])('HTTP %i → code %s, one root', (status, code) => {
    const err = errorFromStatus(status, 'x');
    expect(err).toBeInstanceOf(SdkError);
    expect(err.code).toBe(code);
    expect(err.status).toBe(status);
    expect(err.name).toBe(err.constructor.name);
  });
  it('maps the Kubernetes client errors, keeping the cause', () => {
    const status = (code: number, reason: StatusReason) =>
      new ApiError('create x', {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code,
        reason,
      });
    expect(fromKubeError(status(409, 'AlreadyExists'))).toBeInstanceOf(AlreadyExistsError);
    expect(fromKubeError(status(409, 'Conflict'))).toBeInstanceOf(ConflictError);
    expect(fromKubeError(status(404, 'NotFound'))).toBeInstanceOf(NotFoundError);
    expect(fromKubeError(status(403, 'Forbidden'))).toBeInstanceOf(PermissionDeniedError);
    expect(fromKubeError(status(500, 'InternalError'))).toBeInstanceOf(ServerError);
    const timeout = new KubeError('get x: no answer', { code: 'Timeout' });
    const mapped = fromKubeError(timeout);
    expect(mapped).toBeInstanceOf(TimeoutError);
    expect((mapped as Error).cause).toBe(timeout);
    expect(fromKubeError(new KubeError('connect ECONNREFUSED'))).toBeInstanceOf(ConnectionError);
    const other = new Error('not ours');
    expect(fromKubeError(other)).toBe(other);
  });
});

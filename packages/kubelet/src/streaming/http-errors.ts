// KubeletError → the HTTP answer of the streaming server: a kube `Status` body that kubectl and
// client-node decode and show (`Error from server (BadRequest): ...`).
import { isKubeletError, type KubeletErrorCode } from '../errors.ts';

export interface Failure {
  code: number;
  reason: string;
  message: string;
}

const BY_CODE: Partial<Record<KubeletErrorCode, [number, string]>> = {
  InvalidArgument: [400, 'BadRequest'],
  // kube answers 400 for containers that are not running ("is waiting to start: ...").
  NotRunning: [400, 'BadRequest'],
  NotFound: [404, 'NotFound'],
  Unauthorized: [401, 'Unauthorized'],
  Forbidden: [403, 'Forbidden'],
};

export function failureOf(err: unknown): Failure {
  const message = err instanceof Error ? err.message : String(err);
  const [code, reason] = (isKubeletError(err) && BY_CODE[err.code]) || [500, 'InternalError'];
  return { code, reason, message };
}

export function statusBody(f: Failure): string {
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: f.message,
    reason: f.reason,
    code: f.code,
  });
}

// The gRPC error boundary: SandboxdError codes → gRPC status codes, anything else INTERNAL.
import { status, type ServiceError } from '@grpc/grpc-js';
import { Metadata } from '@grpc/grpc-js';
import { errorText, SandboxdError, type SandboxdErrorCode } from '../errors.ts';

const GRPC_CODE: Record<SandboxdErrorCode, status> = {
  PathEscapes: status.PERMISSION_DENIED,
  PermissionDenied: status.PERMISSION_DENIED,
  NotFound: status.NOT_FOUND,
  InvalidArgument: status.INVALID_ARGUMENT,
  Conflict: status.ALREADY_EXISTS,
  TooLarge: status.RESOURCE_EXHAUSTED,
  ResourceExhausted: status.RESOURCE_EXHAUSTED,
  FailedPrecondition: status.FAILED_PRECONDITION,
  Unavailable: status.UNAVAILABLE,
  Internal: status.INTERNAL,
};

export function toServiceError(err: unknown): Partial<ServiceError> {
  const code = err instanceof SandboxdError ? GRPC_CODE[err.code] : status.INTERNAL;
  return { code, details: errorText(err), metadata: new Metadata() };
}

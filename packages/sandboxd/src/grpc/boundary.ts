// The gRPC listener's one error boundary. Services are written as plain async functions — unary
// `(request, call) => response`, server-streaming `(call) => void` — and `guarded` adapts each
// to grpc-js: a throw or rejection anywhere becomes the call's gRPC status (SandboxdError codes
// mapped, anything else INTERNAL, logged), so no handler needs its own try/catch.
import type {
  sendUnaryData,
  ServerUnaryCall,
  ServerWritableStream,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { GrpcServiceDefinition } from '@agent-sandbox/protocol';
import { errorText, SandboxdError, type LogFn } from '../errors.ts';
import { toServiceError } from './status.ts';

// Each service types its own requests (`never` parameters accept any of them); the boundary
// only forwards what grpc-js decoded.
export type UnaryHandler = (request: never, call: never) => Promise<unknown>;
export type StreamHandler = (call: never) => Promise<void>;
export type GuardedService = Record<string, UnaryHandler | StreamHandler>;

/** Adapts `service` to grpc-js with the boundary around every method of `definition`. */
export function guarded(
  definition: GrpcServiceDefinition,
  service: GuardedService,
  log: LogFn,
): UntypedServiceImplementation {
  const refuse = (method: string, err: unknown) => {
    const status = toServiceError(err);
    if (!(err instanceof SandboxdError) || err.code === 'Internal')
      log('grpc call failed', { method, code: status.code, error: errorText(err) });
    return status;
  };
  const out: UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(definition)) {
    const fn = service[name];
    if (!fn) continue; // grpc-js answers UNIMPLEMENTED for a method nobody serves
    const path = method.path;
    out[name] = method.responseStream
      ? (call: ServerWritableStream<unknown, unknown>) => {
          Promise.resolve()
            .then(() => (fn as (c: unknown) => Promise<void>)(call))
            .catch((err: unknown) => call.emit('error', refuse(path, err)));
        }
      : (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
          Promise.resolve()
            .then(() => (fn as (r: unknown, c: unknown) => Promise<unknown>)(call.request, call))
            .then(
              (res) => callback(null, res),
              (err: unknown) => callback(refuse(path, err)),
            );
        };
  }
  return out;
}

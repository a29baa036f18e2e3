// The sandboxd gRPC client: grpc-js generic clients over the protocol package's service
// definitions (grpcServiceDefinition), and the one table from gRPC status codes to the HTTP statuses errorFromStatus()
// turns into SdkErrors.
import * as grpc from '@grpc/grpc-js';
import { PROCESS_SERVICE, WATCHER_SERVICE, grpcServiceDefinition } from '@agent-sandbox/protocol';
import { AbortedError, errorFromStatus, type SdkError } from '../errors.ts';
import { noAnswer } from './deadline.ts';

/** A loaded client of one service; methods are called by name. */
export type ServiceClient = grpc.Client & Record<string, (...args: unknown[]) => unknown>;

/** `target`: host:port, or a daemon-target.ts target with its `options`. */
export function serviceClient(
  target: string,
  service: typeof PROCESS_SERVICE | typeof WATCHER_SERVICE,
  channelCredentials: grpc.ChannelCredentials = grpc.credentials.createInsecure(),
  options: grpc.ChannelOptions = {},
): ServiceClient {
  const Ctor = grpc.makeGenericClientConstructor(grpcServiceDefinition(service), service);
  return new Ctor(target, channelCredentials, options) as unknown as ServiceClient;
}

/** One daemon's client, with what a call's deadline and its messages need. */
export interface DaemonTarget {
  client: ServiceClient;
  /** host:port of the daemon. */
  address: string;
  sandboxName: string;
  connectTimeoutMs: number;
}

/**
 * Promisified unary call, due within the target's connectTimeoutMs (these calls do no work that
 * takes longer): past it, a ConnectionError naming the sandbox and address.
 */
export function unary<T>(
  target: DaemonTarget,
  method: string,
  request: object,
  context: string,
): Promise<T> {
  const { client, connectTimeoutMs } = target;
  return new Promise((resolve, reject) => {
    const fn = client[method] as (
      req: object,
      options: grpc.CallOptions,
      cb: (err: grpc.ServiceError | null, res: T) => void,
    ) => void;
    fn.call(client, request, { deadline: Date.now() + connectTimeoutMs }, (err, res) => {
      if (!err) resolve(res);
      else if (err.code === grpc.status.DEADLINE_EXCEEDED)
        reject(
          noAnswer(
            target.sandboxName,
            `its daemon at ${target.address} did not answer within ${connectTimeoutMs} ms`,
            context,
          ),
        );
      else reject(grpcError(context, err));
    });
  });
}

/** Resolves once the target's channel is connected; a ConnectionError past connectTimeoutMs. */
export function connected(target: DaemonTarget, context: string): Promise<void> {
  const { client, connectTimeoutMs } = target;
  return new Promise((resolve, reject) => {
    client.waitForReady(Date.now() + connectTimeoutMs, (err) => {
      if (!err) return resolve();
      reject(
        noAnswer(
          target.sandboxName,
          `no connection to its daemon at ${target.address} within ${connectTimeoutMs} ms`,
          context,
        ),
      );
    });
  });
}

const HTTP_OF_GRPC: Partial<Record<grpc.status, number>> = {
  [grpc.status.INVALID_ARGUMENT]: 400,
  [grpc.status.UNAUTHENTICATED]: 401,
  [grpc.status.PERMISSION_DENIED]: 403,
  [grpc.status.NOT_FOUND]: 404,
  [grpc.status.ALREADY_EXISTS]: 409,
  [grpc.status.FAILED_PRECONDITION]: 409,
  [grpc.status.RESOURCE_EXHAUSTED]: 429,
  [grpc.status.UNIMPLEMENTED]: 501,
  [grpc.status.UNAVAILABLE]: 503,
  [grpc.status.DEADLINE_EXCEEDED]: 504,
};

/** A gRPC failure as an SdkError (via errorFromStatus); CANCELLED is the caller's abort. */
export function grpcError(context: string, err: grpc.ServiceError): SdkError {
  const message = `${context}: ${err.details || grpc.status[err.code]}`;
  if (err.code === grpc.status.CANCELLED) return new AbortedError(message, { cause: err });
  return errorFromStatus(HTTP_OF_GRPC[err.code] ?? 500, message, err);
}

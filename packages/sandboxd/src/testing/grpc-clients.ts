// gRPC clients for tests: ProcessService generated at test time from upstream's process.proto in
// ../shared (so our server is checked against their definitions, not ours), and the watcher and
// session services from our descriptors (upstream ships no .proto for them here).
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { SESSION_SERVICE, WATCHER_SERVICE, grpcServiceDefinition } from '@agent-sandbox/protocol';

export const UPSTREAM_PROCESS_PROTO = fileURLToPath(
  new URL('../../../../../shared/upstream/protocol/process.proto', import.meta.url),
);

type Ctor = new (address: string, creds: grpc.ChannelCredentials) => grpc.Client;
type Method =
  | 'Start'
  | 'Execute'
  | 'WriteStdin'
  | 'SendSignal'
  | 'ResizeTTY'
  | 'WatchDir'
  | 'Attach'
  | 'Inspect'
  | 'List';
/** A loaded client: call methods by name; results are cast by the caller. */
export type TestClient = Record<Method, (...args: unknown[]) => unknown> & { close(): void };

export function upstreamProcessClient(address: string): TestClient {
  const def = protoLoader.loadSync(UPSTREAM_PROCESS_PROTO, {
    keepCase: true,
    longs: Number,
    enums: Number,
    defaults: true,
    oneofs: true,
  });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    process: { v1: { ProcessService: Ctor } };
  };
  return new pkg.process.v1.ProcessService(address, grpc.credentials.createInsecure()) as never;
}

export function ourClient(
  address: string,
  service: typeof WATCHER_SERVICE | typeof SESSION_SERVICE,
) {
  const Client = grpc.makeGenericClientConstructor(grpcServiceDefinition(service), service);
  return new Client(address, grpc.credentials.createInsecure()) as unknown as TestClient;
}

/** Promisified unary call. */
export function callUnary<T>(
  client: TestClient,
  method: Method,
  req: object,
  options: { deadlineMs?: number; metadata?: grpc.Metadata } = {},
): Promise<T> {
  return new Promise((resolve, reject) => {
    const callOptions: grpc.CallOptions = options.deadlineMs
      ? { deadline: Date.now() + options.deadlineMs }
      : {};
    client[method](
      req,
      options.metadata ?? new grpc.Metadata(),
      callOptions,
      (err: grpc.ServiceError | null, res: T) => (err ? reject(err) : resolve(res)),
    );
  });
}

export interface StreamResult<T> {
  events: T[];
  error?: grpc.ServiceError;
}

/** Collects a server stream to its end (or error). */
export function collect<T>(stream: grpc.ClientReadableStream<T>): Promise<StreamResult<T>> {
  return new Promise((resolve) => {
    const events: T[] = [];
    stream.on('data', (e: T) => events.push(e));
    stream.on('error', (error: grpc.ServiceError) => resolve({ events, error }));
    stream.on('end', () => resolve({ events }));
  });
}

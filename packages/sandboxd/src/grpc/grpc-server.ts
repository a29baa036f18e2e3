// The gRPC server on :9090: process.v1, watcher.v1 and our session extension on one h2c port.
import {
  credentials,
  makeGenericClientConstructor,
  Metadata,
  Server,
  ServerCredentials,
} from '@grpc/grpc-js';
import {
  PROCESS_SERVICE,
  SESSION_SERVICE,
  WATCHER_SERVICE,
  grpcServiceDefinition,
} from '@agent-sandbox/protocol';
import type { LogFn } from '../errors.ts';
import { guarded } from './boundary.ts';
import { processService, WARM_UP_METADATA, type ProcessServiceDeps } from './process-service.ts';
import { sessionService } from './session-service.ts';
import { watcherService } from './watcher-service.ts';

export interface ListeningGrpcServer {
  /** host:port */
  address: string;
  port: number;
  /** Settles once the warm-up Start has ended (it never rejects; a failure is logged). */
  warmedUp: Promise<void>;
  close(): Promise<void>;
}

export async function serveGrpc(
  deps: ProcessServiceDeps,
  host: string,
  port: number,
  log: LogFn,
): Promise<ListeningGrpcServer> {
  const server = new Server({
    'grpc.max_send_message_length': -1,
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
  });
  for (const [name, service] of [
    [PROCESS_SERVICE, processService(deps)],
    [WATCHER_SERVICE, watcherService(deps.root)],
    [SESSION_SERVICE, sessionService(deps.table)],
  ] as const) {
    const definition = grpcServiceDefinition(name);
    server.addService(definition, guarded(definition, service, log));
  }
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${hostPart}:${port}`, ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const warmedUp = warmUpStart(host, bound, log);
  return {
    warmedUp,
    address: `${hostPart}:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.forceShutdown(), 2000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}

/**
 * A fresh daemon's first Start costs several times a later one (its HTTP/2 session, codecs, the
 * handler's spawn and streaming paths run for the first time): about 25 ms against 5, paid by a
 * warm pool member's claim's first command. One Start of the daemon's own `--version` over
 * loopback, marked as the warm-up (no table entry), pays it at start instead.
 */
function warmUpStart(host: string, port: number, log: LogFn): Promise<void> {
  const loopback = host === '' || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const target = loopback.includes(':') ? `[${loopback}]:${port}` : `${loopback}:${port}`;
  const Client = makeGenericClientConstructor(grpcServiceDefinition(PROCESS_SERVICE), 'process');
  const client = new Client(target, credentials.createInsecure());
  const start = (client as unknown as Record<string, WarmUpStart>)['Start'];
  const metadata = new Metadata();
  metadata.set(WARM_UP_METADATA, 'true');
  const stream = start?.call(
    client,
    { config: { command: [process.execPath, '--version'] } },
    metadata,
  );
  return new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(deadline);
      client.close();
      resolve();
    };
    const deadline = setTimeout(done, 10_000);
    deadline.unref();
    stream?.on('data', () => undefined);
    // Only a warm-up: a failure is logged, and a real Start reports its own.
    stream?.on('error', (err: Error) => log('warm-up Start failed', { error: err.message }));
    stream?.on('close', done);
    if (!stream) done();
  });
}

type WarmUpStart = (request: object, metadata: Metadata) => NodeJS.EventEmitter;

// The gRPC server on :9090: process.v1, watcher.v1 and our session extension on one h2c port.
import { Server, ServerCredentials } from '@grpc/grpc-js';
import {
  PROCESS_SERVICE,
  SESSION_SERVICE,
  WATCHER_SERVICE,
  grpcServiceDefinition,
} from '@agent-sandbox/protocol';
import type { LogFn } from '../errors.ts';
import { guarded } from './boundary.ts';
import { processService, type ProcessServiceDeps } from './process-service.ts';
import { sessionService } from './session-service.ts';
import { watcherService } from './watcher-service.ts';

export interface ListeningGrpcServer {
  /** host:port */
  address: string;
  port: number;
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
  return {
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

// @agent-sandbox/protocol: the data plane's wire contract, shared by sandboxd, the router and
// the SDK. Data and types only; no I/O.
export * from './files-api.ts';
export * from './legacy-api.ts';
export * from './router-api.ts';
export * from './proto/process.ts';
export * from './proto/watcher.ts';
export * from './proto/session.ts';
export { sandboxdProtoRoot } from './proto/root.ts';
export {
  grpcServiceDefinition,
  type GrpcMethodDefinition,
  type GrpcServiceDefinition,
} from './proto/grpc-definition.ts';
export * from './http-refusals.ts';

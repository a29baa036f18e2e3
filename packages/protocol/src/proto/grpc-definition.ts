// gRPC service definitions from our protobufjs descriptors, in the shape @grpc/grpc-js takes
// (its ServiceDefinition; declared here structurally so the protocol package needs no gRPC
// runtime). The daemon serves them and the SDK dials them: one codec for both ends. Messages
// decode to plain objects with snake_case names, numbers for enums and 64-bit ints, Buffers for
// bytes, and only the set member of each oneof present.
import type protobuf from 'protobufjs';
import { sandboxdProtoRoot } from './root.ts';

/** One method of a service, as grpc-js's MethodDefinition<object, object>. */
export interface GrpcMethodDefinition {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  requestSerialize(value: object): Buffer;
  requestDeserialize(bytes: Buffer): object;
  responseSerialize(value: object): Buffer;
  responseDeserialize(bytes: Buffer): object;
  originalName: string;
}

export type GrpcServiceDefinition = Record<string, GrpcMethodDefinition>;

const TO_OBJECT: protobuf.IConversionOptions = {
  longs: Number,
  enums: Number,
  defaults: true,
  arrays: true,
  objects: true,
};

let shared: protobuf.Root | undefined;

/**
 * The definition of `fullName` (e.g. `process.v1.Process`) from `root`, by default one Root
 * shared by every caller in the process (sandboxdProtoRoot()).
 */
export function grpcServiceDefinition(
  fullName: string,
  root: protobuf.Root = (shared ??= sandboxdProtoRoot()),
): GrpcServiceDefinition {
  const service = root.lookupService(fullName);
  service.resolveAll();
  const def: GrpcServiceDefinition = {};
  for (const method of service.methodsArray) {
    const req = method.resolvedRequestType as protobuf.Type;
    const res = method.resolvedResponseType as protobuf.Type;
    def[method.name] = {
      path: `/${fullName}/${method.name}`,
      requestStream: method.requestStream === true,
      responseStream: method.responseStream === true,
      requestSerialize: (v) => Buffer.from(req.encode(req.fromObject(v)).finish()),
      requestDeserialize: (b) => req.toObject(req.decode(b), TO_OBJECT),
      responseSerialize: (v) => Buffer.from(res.encode(res.fromObject(v)).finish()),
      responseDeserialize: (b) => res.toObject(res.decode(b), TO_OBJECT),
      originalName: method.name,
    };
  }
  return def;
}

// grpc-js service definitions built from our protobufjs descriptors (@agent-sandbox/protocol):
// messages decode to plain objects with snake_case names, numbers for enums and 64-bit ints,
// Buffers for bytes, and only the set member of each oneof present.
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import type protobuf from 'protobufjs';

const TO_OBJECT: protobuf.IConversionOptions = {
  longs: Number,
  enums: Number,
  defaults: true,
  arrays: true,
  objects: true,
};

export function serviceDefinition(root: protobuf.Root, fullName: string): ServiceDefinition {
  const service = root.lookupService(fullName);
  service.resolveAll();
  const def: Record<string, MethodDefinition<object, object>> = {};
  for (const method of service.methodsArray) {
    const req = method.resolvedRequestType!;
    const res = method.resolvedResponseType!;
    def[method.name] = {
      path: `/${fullName}/${method.name}`,
      requestStream: method.requestStream === true,
      responseStream: method.responseStream === true,
      requestSerialize: (v: object) => Buffer.from(req.encode(req.fromObject(v)).finish()),
      requestDeserialize: (b: Buffer) => req.toObject(req.decode(b), TO_OBJECT),
      responseSerialize: (v: object) => Buffer.from(res.encode(res.fromObject(v)).finish()),
      responseDeserialize: (b: Buffer) => res.toObject(res.decode(b), TO_OBJECT),
      originalName: method.name,
    };
  }
  return def;
}

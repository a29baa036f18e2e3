// One protobufjs Root holding every package the daemon serves, plus google.protobuf.Empty.
import protobuf from 'protobufjs';
import { inPackage } from './descriptor.ts';
import { processPackage } from './process.ts';
import { sessionPackage } from './session.ts';
import { watcherPackage } from './watcher.ts';

// google/protobuf/empty.proto: `message Empty {}` (a well-known type, defined by protobuf).
const emptyPackage = { nested: { Empty: { fields: {} } } };

function merge(...namespaces: protobuf.INamespace[]): protobuf.INamespace {
  return { nested: Object.assign({}, ...namespaces.map((ns) => ns.nested ?? {})) };
}

/** A fresh Root with process.v1, watcher.v1, agentsandbox.sandboxd.v1 and google.protobuf. */
export function sandboxdProtoRoot(): protobuf.Root {
  return protobuf.Root.fromJSON(
    merge(
      inPackage('google.protobuf', emptyPackage),
      inPackage('process.v1', processPackage),
      inPackage('watcher.v1', watcherPackage),
      inPackage('agentsandbox.sandboxd.v1', sessionPackage),
    ),
  );
}

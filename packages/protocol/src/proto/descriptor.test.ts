// Our process.v1 descriptors against upstream's process.proto, read from ../shared at test time:
// the same package options, services, methods, messages, fields, numbers, types, labels and
// oneofs, and byte-identical encodings of sample messages.
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { sandboxdProtoRoot } from './root.ts';

const upstreamProto = fileURLToPath(
  new URL('../../../../../shared/upstream/protocol/process.proto', import.meta.url),
);

function loadUpstream(): protobuf.Root {
  const root = new protobuf.Root();
  root.loadSync(upstreamProto, { keepCase: true });
  root.resolveAll();
  return root;
}

interface Shape {
  kind: string;
  [k: string]: unknown;
}

/** A comparable summary of one reflection object, with every type reference fully resolved. */
function shape(obj: protobuf.ReflectionObject): Shape {
  if (obj instanceof protobuf.Type) {
    return {
      kind: 'message',
      fields: obj.fieldsArray.map((f) => ({
        name: f.name,
        id: f.id,
        type: f.resolvedType ? f.resolvedType.fullName : f.type,
        rule: f.repeated ? 'repeated' : 'singular',
        map: f instanceof protobuf.MapField ? f.keyType : null,
        proto3Optional: f.options?.['proto3_optional'] === true,
        oneof: f.partOf?.name ?? null,
      })),
      oneofs: obj.oneofsArray.map((o) => ({ name: o.name, members: o.oneof })),
    };
  }
  if (obj instanceof protobuf.Enum) return { kind: 'enum', values: obj.values };
  if (obj instanceof protobuf.Service) {
    return {
      kind: 'service',
      methods: obj.methodsArray.map((m) => ({
        name: m.name,
        request: m.resolvedRequestType?.fullName,
        response: m.resolvedResponseType?.fullName,
        requestStream: m.requestStream === true,
        responseStream: m.responseStream === true,
      })),
    };
  }
  return { kind: 'other' };
}

describe('process.v1 descriptors', () => {
  const upstream = loadUpstream();
  const ours = sandboxdProtoRoot();
  ours.resolveAll();
  const upstreamPkg = upstream.lookup('process.v1') as protobuf.Namespace;
  const ourPkg = ours.lookup('process.v1') as protobuf.Namespace;

  it('declares the same package options', () => {
    expect(ourPkg.options).toEqual(upstreamPkg.options);
  });

  it('has exactly the same top-level names', () => {
    expect(ourPkg.nestedArray.map((n) => n.name).sort()).toEqual(
      upstreamPkg.nestedArray.map((n) => n.name).sort(),
    );
  });

  for (const name of upstreamPkg.nestedArray.map((n) => n.name)) {
    it(`defines ${name} field by field like upstream`, () => {
      const theirs = shape(upstreamPkg.get(name) as protobuf.ReflectionObject);
      const mine = shape(ourPkg.get(name) as protobuf.ReflectionObject);
      expect(theirs.kind).not.toBe('other');
      expect(mine).toEqual(theirs);
    });
  }

  it('encodes sample messages to the same bytes', () => {
    const samples: [string, Record<string, unknown>][] = [
      [
        'StartRequest',
        {
          config: { command: ['sh', '-c', 'x'], env_vars: { A: 'b' }, cwd: 'w' },
          pty: { cols: 80, rows: 24 },
        },
      ],
      ['StartResponse', { exit: { exit_code: -1 } }],
      ['StartResponse', { stdout: Buffer.from('hi') }],
      ['WriteStdinRequest', { process_id: 7, eof: {} }],
      ['SendSignalRequest', { process_id: 7, signal: 15 }],
      ['ResizeTTYRequest', { process_id: 1, cols: 100, rows: 30 }],
      ['ExecuteResponse', { exit_code: 3, stdout: Buffer.from('o'), stderr: Buffer.from('e') }],
    ];
    for (const [type, value] of samples) {
      const a = upstream.lookupType(`process.v1.${type}`);
      const b = ours.lookupType(`process.v1.${type}`);
      expect(Buffer.from(b.encode(b.fromObject(value)).finish()).toString('hex')).toBe(
        Buffer.from(a.encode(a.fromObject(value)).finish()).toString('hex'),
      );
    }
  });
});

describe('watcher.v1 descriptors (dataplane §13.3; upstream ships no .proto in ../shared)', () => {
  const ours = sandboxdProtoRoot();
  ours.resolveAll();
  it('has the table fields and numbers', () => {
    expect(shape(ours.lookupType('watcher.v1.WatchDirRequest'))).toMatchObject({
      fields: [
        { name: 'path', id: 1, type: 'string' },
        { name: 'recursive', id: 2, type: 'bool' },
      ],
    });
    expect(shape(ours.lookupType('watcher.v1.FileEvent'))).toMatchObject({
      fields: [
        { name: 'type', id: 1, type: '.watcher.v1.FileEventType' },
        { name: 'path', id: 2, type: 'string' },
        { name: 'old_path', id: 3, type: 'string' },
        { name: 'error', id: 4, type: 'string' },
      ],
    });
    expect(ours.lookupEnum('watcher.v1.FileEventType').values).toEqual({
      FILE_EVENT_TYPE_UNSPECIFIED: 0,
      FILE_EVENT_TYPE_CREATE: 1,
      FILE_EVENT_TYPE_WRITE: 2,
      FILE_EVENT_TYPE_REMOVE: 3,
      FILE_EVENT_TYPE_RENAME: 4,
      FILE_EVENT_TYPE_CHMOD: 5,
      FILE_EVENT_TYPE_ERROR: 6,
    });
    expect(shape(ours.lookupService('watcher.v1.FileWatcherService'))).toEqual({
      kind: 'service',
      methods: [
        {
          name: 'WatchDir',
          request: '.watcher.v1.WatchDirRequest',
          response: '.watcher.v1.FileEvent',
          requestStream: false,
          responseStream: true,
        },
      ],
    });
  });
});

// Envelope and error handling, presence, and the Go text forms, on hand-made bodies.
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './go-format.ts';
import {
  decodeErrorMessage,
  decodeProtobufObject,
  encodeProtobufObject,
  PROTOBUF_MAGIC,
  ProtobufError,
  supportsProtobuf,
} from './index.ts';
import { lookupType } from './schema.ts';

function envelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const unknown = lookupType('k8s.io.apimachinery.pkg.runtime.Unknown')
    .encode({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' })
    .finish();
  return Uint8Array.from([...PROTOBUF_MAGIC, ...unknown]);
}

function decodeError(body: Uint8Array, defaults?: { apiVersion?: string; kind?: string }) {
  try {
    decodeProtobufObject(body, defaults);
  } catch (err: unknown) {
    expect(err).toBeInstanceOf(ProtobufError);
    const e = err as ProtobufError;
    return { code: e.code, message: e.message };
  }
  throw new Error('expected a ProtobufError');
}

const configMap = {
  kind: 'ConfigMap',
  apiVersion: 'v1',
  metadata: { name: 'c' },
  data: { a: 'b' },
};

describe('decodeProtobufObject errors (kube serializer wording)', () => {
  it('rejects a body without the k8s\\0 prefix', () => {
    expect(decodeError(Buffer.from('{"kind":"ConfigMap"}'))).toEqual({
      code: 'BadMagic',
      message:
        'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    });
    expect(decodeError(new Uint8Array(0))).toEqual({ code: 'Malformed', message: 'empty data' });
    expect(decodeError(PROTOBUF_MAGIC)).toEqual({ code: 'Malformed', message: 'empty body' });
  });

  it('rejects truncated and garbled bytes', () => {
    const body = encodeProtobufObject(configMap);
    expect(decodeError(body.subarray(0, body.length - 3))).toEqual({
      code: 'Malformed',
      message: 'unexpected EOF',
    });
    const raw = Uint8Array.of(0x0f); // field 1, wire type 7
    expect(decodeError(envelope('v1', 'ConfigMap', raw)).code).toBe('Malformed');
  });

  it('rejects kinds it has no message for', () => {
    expect(decodeError(envelope('apps/v1', 'Deployment', new Uint8Array(0)))).toEqual({
      code: 'UnknownKind',
      message:
        'no kind "Deployment" is registered for version "apps/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
    });
  });

  it('takes a missing apiVersion/kind from the defaults (the URL), or rejects it', () => {
    const raw = lookupType('k8s.io.api.core.v1.ConfigMap')
      .encode({ data: [{ key: 'a', value: 'b' }] })
      .finish();
    expect(decodeError(envelope('', '', raw))).toEqual({
      code: 'Malformed',
      message: `Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:"", Kind:""}'`,
    });
    expect(
      decodeProtobufObject(envelope('', '', raw), { apiVersion: 'v1', kind: 'ConfigMap' }),
    ).toEqual({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: {},
      data: { a: 'b' },
    });
  });

  it('skips fields it does not know (newer clients)', () => {
    const raw = lookupType('k8s.io.api.core.v1.ConfigMap')
      .encode({ data: [{ key: 'a', value: 'b' }] })
      .finish();
    const extra = Uint8Array.from([...raw, 0xba, 0x3e, 0x02, 0x68, 0x69]); // field 999, "hi"
    expect(decodeProtobufObject(envelope('v1', 'ConfigMap', extra)).data).toEqual({ a: 'b' });
  });
});

describe('decodeErrorMessage (kube-apiserver transformDecodeError)', () => {
  function messageFor(body: Uint8Array): string {
    try {
      decodeProtobufObject(body);
    } catch (err: unknown) {
      if (err instanceof ProtobufError) return decodeErrorMessage(err, 'ConfigMap', body);
    }
    throw new Error('expected a ProtobufError');
  }

  it('summarizes the body when the envelope did not decode', () => {
    expect(messageFor(Buffer.from('{"kind":"ConfigMap","apiVersion":"v1","data":{}}'))).toBe(
      'the object provided is unrecognized (must be of type ConfigMap): provided data does not ' +
        'appear to be a protobuf message, expected prefix [107 56 115 0] ({"kind":"ConfigMap","apiVersio ...)',
    );
    const body = encodeProtobufObject(configMap);
    expect(messageFor(body.subarray(0, 12))).toBe(
      `the object provided is unrecognized (must be of type ConfigMap): unexpected EOF (${Buffer.from(body.subarray(0, 12)).toString('hex')})`,
    );
  });

  it('names the kind the envelope claimed once it decoded', () => {
    expect(messageFor(envelope('v1', 'ConfigMap', Uint8Array.of(0x0a, 0x05, 0x0a)))).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: unexpected EOF',
    );
    expect(messageFor(envelope('apps/v1', 'Deployment', new Uint8Array(0)))).toBe(
      'Deployment in version "v1" cannot be handled as a ConfigMap: no kind "Deployment" is ' +
        'registered for version "apps/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
    );
  });
});

describe('JSON mapping', () => {
  it('keeps explicitly set zero values of optional fields and omits unset ones', () => {
    const pod = {
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { name: 'p' },
      spec: {
        containers: [{ name: 'c', image: 'i', resources: {} }],
        activeDeadlineSeconds: 0,
        automountServiceAccountToken: false,
        hostNetwork: false, // plain bool with omitempty: false is dropped, like Go's JSON
      },
      status: {},
    };
    const back = decodeProtobufObject(encodeProtobufObject(pod));
    expect(back.spec).toStrictEqual({
      containers: [{ name: 'c', image: 'i', resources: {} }],
      activeDeadlineSeconds: 0,
      automountServiceAccountToken: false,
    });
  });

  it('prints Time with whole seconds in UTC and MicroTime with six digits', () => {
    const lease = {
      kind: 'Lease',
      apiVersion: 'coordination.k8s.io/v1',
      metadata: { name: 'l', creationTimestamp: '2026-01-02T05:04:05.9+02:00' },
      spec: { renewTime: '2026-01-02T03:04:05.123456789Z', acquireTime: '1970-01-01T00:00:00Z' },
    };
    const back = decodeProtobufObject(encodeProtobufObject(lease));
    expect(back.metadata).toEqual({ name: 'l', creationTimestamp: '2026-01-02T03:04:05Z' });
    expect(back.spec).toEqual({
      acquireTime: '1970-01-01T00:00:00.000000Z',
      renewTime: '2026-01-02T03:04:05.123456Z',
    });
  });

  it('keeps any map key as an own property, as JSON.parse does', () => {
    const raw = lookupType('k8s.io.api.core.v1.ConfigMap')
      .encode({ data: [{ key: '__proto__', value: 'x' }] })
      .finish();
    const back = decodeProtobufObject(envelope('v1', 'ConfigMap', raw));
    expect(back.data).toStrictEqual(JSON.parse('{"__proto__":"x"}'));
    expect(Object.getPrototypeOf(back.data)).toBe(Object.prototype);
  });

  it('reports JSON it cannot encode', () => {
    expect(() => encodeProtobufObject({ ...configMap, data: { a: 1 } })).toThrow(
      'ConfigMap.data["a"]: expected a string, got number',
    );
    expect(() => encodeProtobufObject({ metadata: {} })).toThrow(ProtobufError);
  });
});

describe('supportsProtobuf', () => {
  it.each([
    ['v1', 'ConfigMap', true],
    ['v1', 'PodList', true],
    ['v1', 'DeleteOptions', true],
    ['meta.k8s.io/v1', 'DeleteOptions', true],
    ['events.k8s.io/v1', 'Event', true],
    ['coordination.k8s.io/v1', 'Lease', true],
    ['networking.k8s.io/v1', 'NetworkPolicy', true],
    ['authentication.k8s.io/v1', 'TokenReview', true],
    ['apiextensions.k8s.io/v1', 'CustomResourceDefinition', true],
    ['apps/v1', 'Deployment', false],
    ['agents.x-k8s.io/v1beta1', 'Sandbox', false],
    ['v1', 'Lease', false],
  ])('%s %s → %s', (apiVersion, kind, expected) => {
    expect(supportsProtobuf(apiVersion, kind)).toBe(expected);
  });
});

describe('Go durations', () => {
  it.each([
    [0n, '0s'],
    [999n, '999ns'],
    [1500n, '1.5µs'],
    [1_000_000n, '1ms'],
    [1_500_000_000n, '1.5s'],
    [90_000_000_000n, '1m30s'],
    [3_600_000_000_000n, '1h0m0s'],
    [-2_000_000_000n, '-2s'],
  ])('%s ns ↔ %s', (ns, text) => {
    expect(formatDuration(ns)).toBe(text);
    expect(parseDuration(text)).toBe(ns);
  });
});

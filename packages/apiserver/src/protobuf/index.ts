// Kubernetes protobuf bodies (`application/vnd.kubernetes.protobuf`) for the built-in kinds we
// serve: the `k8s\0` magic, a runtime.Unknown envelope {typeMeta, raw}, and the object's
// generated.proto message in raw, mapped to and from the JSON kube-apiserver would produce.
import protobuf from 'protobufjs';
import { type Json, messageToJson } from './decode.ts';
import { jsonToMessage } from './encode.ts';
import { type ObjectKind, ProtobufError } from './errors.ts';
import { messageFor } from './kinds.ts';
import { lookupType } from './schema.ts';

export {
  decodeErrorMessage,
  type ObjectKind,
  ProtobufError,
  type ProtobufErrorCode,
} from './errors.ts';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** The 4-byte prefix of every Kubernetes protobuf body: `k8s\0`. */
export const PROTOBUF_MAGIC: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

const UNKNOWN = 'k8s.io.apimachinery.pkg.runtime.Unknown';

/** Whether objects of apiVersion/kind can be decoded from and encoded to protobuf. */
export function supportsProtobuf(apiVersion: string, kind: string): boolean {
  return messageFor(apiVersion, kind) !== undefined;
}

function messageOf(apiVersion: string, kind: string): protobuf.Type {
  const name = messageFor(apiVersion, kind);
  if (name === undefined) {
    throw new ProtobufError(
      'UnknownKind',
      `no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/api/legacyscheme/scheme.go:30"`,
      { objectKind: { apiVersion, kind } },
    );
  }
  return lookupType(name);
}

/** gogo-protobuf's wording where it has one (truncation is io.ErrUnexpectedEOF). */
function malformed(err: unknown, objectKind?: ObjectKind): ProtobufError {
  if (err instanceof ProtobufError) {
    return err.objectKind || !objectKind
      ? err
      : new ProtobufError(err.code, err.message, { cause: err.cause, objectKind });
  }
  const why = err instanceof Error ? err.message : String(err);
  const message = err instanceof RangeError ? 'unexpected EOF' : `proto: ${why}`;
  return new ProtobufError('Malformed', message, {
    cause: err,
    ...(objectKind ? { objectKind } : {}),
  });
}

/** Go's %#v of runtime.TypeMeta, as in kube's missing-kind errors. */
function goTypeMeta(apiVersion: string, kind: string): string {
  return `runtime.TypeMeta{APIVersion:${JSON.stringify(apiVersion)}, Kind:${JSON.stringify(kind)}}`;
}

export interface DecodeDefaults {
  /** Used when the envelope's typeMeta leaves them empty (kube takes them from the URL). */
  apiVersion?: string;
  kind?: string;
}

/**
 * Decodes a protobuf request body into the JSON object kube-apiserver would see, with `kind` and
 * `apiVersion` first. Throws ProtobufError: 'BadMagic', 'UnknownKind', 'Malformed' (with the
 * message of kube's protobuf serializer, which kube-apiserver wraps into a 400 BadRequest).
 */
export function decodeProtobufObject(
  body: Uint8Array,
  defaults: DecodeDefaults = {},
): Record<string, unknown> {
  if (body.length === 0) throw new ProtobufError('Malformed', 'empty data');
  if (body.length < 4 || PROTOBUF_MAGIC.some((b, i) => body[i] !== b)) {
    throw new ProtobufError(
      'BadMagic',
      `provided data does not appear to be a protobuf message, expected prefix [${PROTOBUF_MAGIC.join(' ')}]`,
    );
  }
  if (body.length === 4) throw new ProtobufError('Malformed', 'empty body');
  let envelope: Record<string, unknown>;
  try {
    envelope = lookupType(UNKNOWN).decode(body.subarray(4)) as unknown as Record<string, unknown>;
  } catch (err: unknown) {
    throw malformed(err);
  }
  const typeMeta = (envelope.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  const apiVersion = typeMeta.apiVersion || defaults.apiVersion || '';
  const kind = typeMeta.kind || defaults.kind || '';
  const sent = goTypeMeta(typeMeta.apiVersion ?? '', typeMeta.kind ?? '');
  if (kind === '') throw new ProtobufError('Malformed', `Object 'Kind' is missing in '${sent}'`);
  if (apiVersion === '') {
    throw new ProtobufError('Malformed', `Object 'apiVersion' is missing in '${sent}'`);
  }
  const type = messageOf(apiVersion, kind);
  const raw = envelope.raw instanceof Uint8Array ? envelope.raw : new Uint8Array(0);
  let fields: Json;
  try {
    fields = messageToJson(type, type.decode(raw) as unknown as Record<string, unknown>);
  } catch (err: unknown) {
    throw malformed(err, { apiVersion, kind });
  }
  return { kind, apiVersion, ...(fields as Record<string, Json>) };
}

/**
 * Encodes a JSON object (with apiVersion and kind) as a protobuf body, as client-go or
 * kube-apiserver would. Throws ProtobufError ('UnknownKind', 'Invalid').
 */
export function encodeProtobufObject(obj: Record<string, unknown>): Uint8Array {
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || kind === '') {
    throw new ProtobufError('Invalid', 'object has no string apiVersion and kind');
  }
  const type = messageOf(apiVersion, kind);
  const raw = type.encode(jsonToMessage(type, obj, kind)).finish();
  const envelope = lookupType(UNKNOWN)
    .encode({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' })
    .finish();
  const out = new Uint8Array(PROTOBUF_MAGIC.length + envelope.length);
  out.set(PROTOBUF_MAGIC);
  out.set(envelope, PROTOBUF_MAGIC.length);
  return out;
}

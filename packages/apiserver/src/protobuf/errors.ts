// The protobuf codec's error class, under the package's root ApiServerError: the HTTP layer turns
// every ProtobufError from decoding into a 400 BadRequest Status whose message
// decodeErrorMessage() words like kube-apiserver; compare `code`, never the message.
import { ApiServerError } from '../errors.ts';

export type ProtobufErrorCode =
  /** The body does not start with the `k8s\0` magic prefix. */
  | 'BadMagic'
  /** The envelope names an apiVersion/kind this codec has no message for. */
  | 'UnknownKind'
  /** The body is empty, lacks a kind, or its bytes are not valid protobuf for their message. */
  | 'Malformed'
  /** encode: the JSON object cannot be represented (wrong value types, missing apiVersion/kind). */
  | 'Invalid';

export interface ObjectKind {
  apiVersion: string;
  kind: string;
}

export class ProtobufError extends ApiServerError {
  declare readonly code: ProtobufErrorCode;
  /** The apiVersion/kind the body claimed, once the envelope was read. */
  readonly objectKind: ObjectKind | undefined;

  constructor(
    code: ProtobufErrorCode,
    message: string,
    options?: { cause?: unknown; objectKind?: ObjectKind },
  ) {
    super(code, message, options);
    this.objectKind = options?.objectKind;
  }
}

/** kube-apiserver's summarizeData(body, 30): JSON-looking text as is, anything else as hex. */
export function summarize(body: Uint8Array, max = 30): string {
  if (body.length === 0) return '<empty>';
  const cut = body.subarray(0, max);
  const more = body.length > max ? ' ...' : '';
  if (body[0] === 0x7b) return Buffer.from(cut).toString('utf8') + more;
  return Buffer.from(cut).toString('hex') + more;
}

/**
 * The message of the 400 BadRequest kube-apiserver returns for a body that does not decode
 * (transformDecodeError in k8s.io/apiserver's handlers/rest.go); `expectedKind` is the kind of
 * the resource the request addressed.
 */
export function decodeErrorMessage(
  err: ProtobufError,
  expectedKind: string,
  body: Uint8Array,
): string {
  const sent = err.objectKind;
  if (sent && sent.kind !== '') {
    const version = sent.apiVersion.slice(sent.apiVersion.indexOf('/') + 1);
    return `${sent.kind} in version "${version}" cannot be handled as a ${expectedKind}: ${err.message}`;
  }
  return `the object provided is unrecognized (must be of type ${expectedKind}): ${err.message} (${summarize(body)})`;
}

// One error class for the protobuf codec (STYLE.md "Error-handling rules"): the HTTP layer turns
// every ProtobufError into a 400 BadRequest Status, wrapping `message` the way kube-apiserver wraps
// its serializer's decode error; compare `code`, never the message.

export type ProtobufErrorCode =
  /** The body does not start with the `k8s\0` magic prefix. */
  | 'BadMagic'
  /** The envelope names an apiVersion/kind this codec has no message for. */
  | 'UnknownKind'
  /** The envelope or the object bytes are not valid protobuf for their message. */
  | 'Malformed'
  /** encode: the JSON object cannot be represented (wrong value types, missing apiVersion/kind). */
  | 'Invalid';

export class ProtobufError extends Error {
  readonly code: ProtobufErrorCode;

  constructor(code: ProtobufErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProtobufError';
    this.code = code;
  }
}

// Request bodies: JSON or YAML objects (semantics doc §0), with decode errors as 400 Status.
import { parse } from 'yaml';
import { badRequest, unsupportedMediaType } from '../errors.ts';
import {
  decodeErrorMessage,
  decodeProtobufObject,
  PROTOBUF_MEDIA_TYPE,
  ProtobufError,
} from '../protobuf/index.ts';
import type { KubeObject } from '../objects.ts';

export const BODY_MEDIA_TYPES = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
] as const;

function mediaType(req: Request): string {
  return (
    (req.headers.get('content-type') ?? 'application/json').split(';')[0]?.trim().toLowerCase() ??
    ''
  );
}

/** Parses a request body; `kindHint` names the kind in decode errors. */
export async function readBody(req: Request, kindHint: string): Promise<unknown> {
  const type = mediaType(req);
  if (type === PROTOBUF_MEDIA_TYPE) {
    // kubectl's typed clients send built-in objects as Kubernetes protobuf (e.g. `kubectl create configmap`).
    const bytes = new Uint8Array(await req.arrayBuffer());
    try {
      return decodeProtobufObject(bytes);
    } catch (err: unknown) {
      if (err instanceof ProtobufError) throw badRequest(decodeErrorMessage(err, kindHint, bytes));
      throw err;
    }
  }
  const text = await req.text();
  if (text.trim() === '') return undefined;
  try {
    if (type === 'application/json' || type === '') return JSON.parse(text);
    if (type === 'application/yaml') return parse(text);
  } catch (err: unknown) {
    const why = err instanceof Error ? err.message : String(err);
    throw badRequest(
      `the object provided is unrecognized (must be of type ${kindHint}): couldn't get version/kind; json parse error: ${why}`,
    );
  }
  throw unsupportedMediaType([
    'application/json',
    'application/yaml',
    'application/vnd.kubernetes.protobuf',
  ]);
}

export async function readObject(req: Request, kindHint: string): Promise<KubeObject> {
  const body = await readBody(req, kindHint);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${kindHint}): couldn't get version/kind; json parse error: expected an object`,
    );
  }
  const obj = body as KubeObject;
  if (typeof obj.metadata !== 'object' || obj.metadata === null || Array.isArray(obj.metadata))
    obj.metadata = {};
  return obj;
}

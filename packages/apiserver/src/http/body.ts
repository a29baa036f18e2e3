// Request bodies: JSON or YAML objects (semantics doc §0), with decode errors as 400 Status.
// Every body is read through readBytes: kube's 3 MiB request limit (413) holds however the body
// arrives (Content-Length or chunked), and a decoded document deeper than MAX_NESTING is refused
// before the object pipeline (which recurses) sees it.
import { parse } from 'yaml';
import { summarize } from '../protobuf/errors.ts';
import { yamlUtf8Error } from './yaml-utf8.ts';
import { badRequest, statusError, unsupportedMediaType, type ApiError } from '../errors.ts';
import { goNotAnObject, goSyntaxError, unrecognizedObject } from './go-json-errors.ts';
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

/** kube-apiserver's --max-request-body-bytes default (3 MiB). */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/**
 * How deep a decoded body may nest. kube's decoder allows 10000; the embedded server's object
 * pipeline (clone, defaulting, managed fields) recurses and is proven to 1000 (hostile tests).
 */
export const MAX_NESTING = 1000;

function tooLarge(): ApiError {
  return statusError(
    413,
    'RequestEntityTooLarge',
    `Request entity too large: limit is ${MAX_REQUEST_BODY_BYTES}`,
  );
}

/** The request body's bytes, refusing more than MAX_REQUEST_BODY_BYTES with kube's 413. */
export async function readBytes(req: Request): Promise<Uint8Array> {
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (declared > MAX_REQUEST_BODY_BYTES) throw tooLarge();
  if (!req.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_REQUEST_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The request body as UTF-8 text (readBytes' limit applies). */
export async function readText(req: Request): Promise<string> {
  return new TextDecoder().decode(await readBytes(req));
}

/** Whether `value` nests deeper than `max` arrays/objects; iterative, so any depth is safe. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** 400 for a decoded document nested deeper than MAX_NESTING. */
export function checkNesting(value: unknown, what: string): void {
  if (nestsDeeperThan(value, MAX_NESTING))
    throw badRequest(
      `${what} is nested more than ${MAX_NESTING} levels deep; flatten it (the embedded API server's limit)`,
    );
}

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
    const bytes = await readBytes(req);
    try {
      return decodeProtobufObject(bytes);
    } catch (err: unknown) {
      if (err instanceof ProtobufError) throw badRequest(decodeErrorMessage(err, kindHint, bytes));
      throw err;
    }
  }
  const bytes = await readBytes(req);
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === '') return undefined;
  let decoded: unknown;
  if (type === 'application/json' || type === '') {
    try {
      decoded = JSON.parse(text);
    } catch (err: unknown) {
      throw badRequest(unrecognizedObject(kindHint, goSyntaxError(text, err), bytes));
    }
  } else if (type === 'application/yaml') {
    const notUtf8 = yamlUtf8Error(bytes);
    if (notUtf8 !== undefined)
      throw badRequest(
        `the object provided is unrecognized (must be of type ${kindHint}): ${notUtf8} (${summarize(bytes)})`,
      );
    try {
      decoded = parse(text);
    } catch (err: unknown) {
      const why = err instanceof Error ? err.message : String(err);
      throw badRequest(
        `the object provided is unrecognized (must be of type ${kindHint}): couldn't get version/kind; json parse error: ${why}`,
      );
    }
  } else throw unsupportedMediaType(BODY_MEDIA_TYPES);
  checkNesting(decoded, 'the object provided');
  return decoded;
}

export async function readObject(req: Request, kindHint: string): Promise<KubeObject> {
  // `null` decodes as an empty object, as Go's decoder leaves the target untouched.
  const raw = await readBody(req, kindHint);
  const body = raw === null ? {} : raw;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    const sent = Buffer.from(JSON.stringify(body) ?? '');
    throw badRequest(unrecognizedObject(kindHint, goNotAnObject(body), sent));
  }
  const obj = body as KubeObject;
  if (typeof obj.metadata !== 'object' || obj.metadata === null || Array.isArray(obj.metadata))
    obj.metadata = {};
  return obj;
}

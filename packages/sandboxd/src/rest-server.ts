// The REST server on :8080 (dataplane §4.3): /v1/files/{path...}, /v1/health, /v1/metadata, with
// Go's ServeMux answers for everything else. Handlers throw; `restError` is what the listener's
// one boundary (http-server.ts) answers with: the `{"code","message"}` body and its status.
import { lstat, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import {
  FILES_ERROR_STATUS,
  FILES_PREFIX,
  FilesMessage,
  HEALTH_PATH,
  METADATA_PATH,
  MODE_PATTERN,
  parseGoBool,
  type FilesErrorCode,
} from '@agent-sandbox/protocol';
import { errorText, SandboxdError, sandboxdError, type SandboxdErrorCode } from './errors.ts';
import { deletePath, fsError, listDirectory, tooLargeMessage, writeFileAtomic } from './files.ts';
import type { RequestInfo } from './http-server.ts';
import { sanitizePath } from './paths.ts';
import { serveFile } from './serve-file.ts';
import { splitTarget } from './target.ts';

export interface RestServerOptions {
  /** Resolved confinement root. */
  root: string;
  /** Environment shown (filtered) by /v1/metadata; built once. */
  metadataEnv: Record<string, string>;
  /** 0 = unlimited */
  maxUploadBytes: number;
  startedAtMs: number;
  now: () => number;
  isShuttingDown: () => boolean;
}

const CODE_OF: Record<SandboxdErrorCode, FilesErrorCode> = {
  PathEscapes: 'PERMISSION_DENIED',
  PermissionDenied: 'PERMISSION_DENIED',
  NotFound: 'NOT_FOUND',
  InvalidArgument: 'INVALID_ARGUMENT',
  Conflict: 'CONFLICT',
  TooLarge: 'RESOURCE_EXHAUSTED',
  ResourceExhausted: 'RESOURCE_EXHAUSTED',
  FailedPrecondition: 'INVALID_ARGUMENT',
  Unavailable: 'UNAVAILABLE',
  Internal: 'INTERNAL',
};

export function jsonResponse(status: number, value: unknown): Response {
  // A refused body is left unread: close the connection instead of draining it.
  const close: Record<string, string> = status === 413 ? { connection: 'close' } : {};
  return new Response(`${JSON.stringify(value)}\n`, {
    status,
    headers: { 'content-type': 'application/json', ...close },
  });
}

/** The REST error boundary: SandboxdError → its code; anything else → 500 INTERNAL. */
export function restError(err: unknown): Response {
  const code: FilesErrorCode = err instanceof SandboxdError ? CODE_OF[err.code] : 'INTERNAL';
  return jsonResponse(FILES_ERROR_STATUS[code], { code, message: errorText(err) });
}

const text = (status: number, body: string, headers: Record<string, string> = {}) =>
  new Response(body, {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', ...headers },
  });

const notFoundPage = () => text(404, '404 page not found\n');
const methodNotAllowed = (allow: string) => text(405, 'Method Not Allowed\n', { allow });

/** The handler for the REST port. */
export function createRestHandler(options: RestServerOptions) {
  return (req: Request, info: RequestInfo): Promise<Response> => route(req, info, options);
}

async function route(req: Request, info: RequestInfo, o: RestServerOptions): Promise<Response> {
  const target = splitTarget(info.rawTarget);
  if (target.redirect)
    return new Response(null, { status: 301, headers: { location: target.redirect } });
  const method = req.method;
  if (target.rawPath === HEALTH_PATH || target.rawPath === METADATA_PATH) {
    if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed('GET, HEAD');
    if (target.rawPath === METADATA_PATH) return jsonResponse(200, { env: o.metadataEnv });
    if (o.isShuttingDown())
      return jsonResponse(503, { code: 'UNAVAILABLE', message: FilesMessage.shuttingDown });
    return jsonResponse(200, {
      status: 'ok',
      uptime_seconds: Math.floor((o.now() - o.startedAtMs) / 1000),
    });
  }
  if (target.rawPath === '/v1/files') {
    return new Response(null, {
      status: 301,
      headers: { location: `/v1/files/${target.rawQuery}` },
    });
  }
  if (!target.rawPath.startsWith(FILES_PREFIX)) return notFoundPage();
  const userPath = decodePathValue(target.rawPath.slice(FILES_PREFIX.length));
  const query = new URLSearchParams(target.rawQuery.replace(/^\?/, ''));
  switch (method) {
    case 'GET':
    case 'HEAD':
      return getFile(req, o.root, userPath);
    case 'PUT':
      return putFile(req, o, userPath, query);
    case 'DELETE':
      return deleteFile(o.root, userPath, query);
    default:
      return methodNotAllowed('DELETE, GET, HEAD, PUT');
  }
}

function decodePathValue(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw sandboxdError('InvalidArgument', `path "${raw}" is not valid percent-encoding`);
  }
}

async function getFile(req: Request, root: string, userPath: string): Promise<Response> {
  const resolved = await sanitizePath(root, userPath);
  const st = await stat(resolved).catch((err: unknown) => {
    throw fsError(err, 'stat');
  });
  if (st.isDirectory()) return jsonResponse(200, await listDirectory(root, resolved, userPath));
  if (!st.isFile())
    throw sandboxdError('InvalidArgument', `path "${userPath}" is not a regular file`);
  return serveFile(resolved, st, req);
}

async function putFile(
  req: Request,
  o: RestServerOptions,
  userPath: string,
  query: URLSearchParams,
): Promise<Response> {
  const modeText = query.get('mode') ?? '0644';
  if (!MODE_PATTERN.test(modeText))
    throw sandboxdError('InvalidArgument', FilesMessage.badMode(modeText));
  const resolved = await sanitizePath(o.root, userPath);
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (o.maxUploadBytes > 0 && declared > o.maxUploadBytes) {
    throw sandboxdError('TooLarge', tooLargeMessage(o.maxUploadBytes, '--max-upload-bytes'));
  }
  const write = {
    mode: parseInt(modeText, 8),
    maxBytes: o.maxUploadBytes,
    limitOption: '--max-upload-bytes',
  };
  const stream = req.body
    ? Readable.fromWeb(req.body as import('node:stream/web').ReadableStream)
    : Readable.from([]);
  const type = req.headers.get('content-type') ?? '';
  if (/^multipart\/form-data/i.test(type)) {
    await writeMultipart(stream, type, (file) => writeFileAtomic(resolved, file, write));
  } else {
    await writeFileAtomic(resolved, stream, write);
  }
  return new Response(null, { status: 204 });
}

/**
 * Streams the first part named `file` of a multipart body into `write`; every other part is
 * drained. Busboy's parse errors are 400 `invalid multipart body: ...`.
 */
export function writeMultipart(
  body: Readable,
  contentType: string,
  write: (file: Readable, filename: string) => Promise<void>,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { 'content-type': contentType }, preservePath: true });
    } catch (err: unknown) {
      reject(sandboxdError('InvalidArgument', FilesMessage.badMultipart(errorText(err))));
      return;
    }
    let writing: Promise<void> | undefined;
    let filename = '';
    // A failed write ends the request at once; the rest of the body is drained, not parsed.
    const start = (p: Promise<void>) => {
      writing = p;
      p.catch((err: unknown) => {
        body.unpipe(parser);
        body.resume();
        reject(err);
      });
    };
    parser.on('file', (name, file, fileInfo) => {
      if (name !== 'file' || writing) {
        file.resume();
        return;
      }
      filename = fileInfo.filename ?? '';
      start(write(file, filename));
    });
    // A `file` part without a filename arrives as a field; it is still the file (§4.3).
    parser.on('field', (name, value) => {
      if (name !== 'file' || writing) return;
      start(write(Readable.from([Buffer.from(value)]), ''));
    });
    parser.on('error', (err: unknown) =>
      reject(sandboxdError('InvalidArgument', FilesMessage.badMultipart(errorText(err)))),
    );
    parser.on('close', () => {
      if (!writing) reject(sandboxdError('InvalidArgument', FilesMessage.missingFilePart));
      else writing.then(() => resolve(filename), reject);
    });
    body.on('error', reject);
    body.pipe(parser);
  });
}

async function deleteFile(
  root: string,
  userPath: string,
  query: URLSearchParams,
): Promise<Response> {
  const resolved = await sanitizePath(root, userPath);
  // Existence before `recursive` parsing, so a bad flag on a missing path is 404 (§4.3).
  await lstat(resolved).catch((err: unknown) => {
    throw fsError(err, 'stat');
  });
  const raw = query.get('recursive');
  const recursive = raw === null ? false : parseGoBool(raw);
  if (recursive === undefined)
    throw sandboxdError('InvalidArgument', FilesMessage.badRecursive(raw ?? ''));
  await deletePath(root, resolved, recursive);
  return new Response(null, { status: 204 });
}

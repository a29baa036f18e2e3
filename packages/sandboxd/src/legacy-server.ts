// The legacy runtime API on :8888 (python-runtime, dataplane §5, §13.4, §13.9) that every
// released SDK speaks through the router. FastAPI's shapes are kept: `{"message"}` errors, 422
// validation details, compact JSON without a newline, 404/405 `{"detail"}` for unknown routes.
// Handlers throw; `legacyError` is what the listener's one boundary (http-server.ts) answers.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import {
  FilesMessage,
  LegacyMessage,
  type ExecutionResult,
  type LegacyExecuteRequest,
  type ValidationDetail,
} from '@agent-sandbox/protocol';
import { errorText, SandboxdError } from './errors.ts';
import { listLegacy, tooLargeMessage, writeFileAtomic } from './files.ts';
import type { FastRoute, PlainAnswer, RequestInfo } from './http-server.ts';
import { sanitizePath } from './paths.ts';
import type { ProcessLimiter } from './process-limiter.ts';
import { writeMultipart } from './rest-server.ts';
import { serveFile } from './serve-file.ts';
import { legacyExecute } from './legacy-execute.ts';
import { splitTarget } from './target.ts';

export interface LegacyServerOptions {
  root: string;
  env: NodeJS.ProcessEnv;
  /** Used when the request has no `timeout_seconds`. */
  defaultTimeoutSeconds: number;
  /** 0 = unlimited */
  maxUploadBytes: number;
  limiter: ProcessLimiter;
}

const MAX_EXECUTE_BODY_BYTES = 1024 * 1024;

function plainJson(
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): PlainAnswer {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(value),
  };
}

const toResponse = (a: PlainAnswer) =>
  new Response(a.body, { status: a.status, headers: a.headers });

export function compactJson(
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): Response {
  return toResponse(plainJson(status, value, headers));
}

const plainMessage = (status: number, text: string) =>
  plainJson(status, { message: text }, status === 413 ? { connection: 'close' } : {});
const message = (status: number, text: string) => toResponse(plainMessage(status, text));
const invalid = (detail: ValidationDetail[]) => compactJson(422, { detail });

/** Python's urllib.parse.unquote: invalid escapes are kept as they are. */
export function unquote(s: string): string {
  return s.replace(/(%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8');
    }
  });
}

export function createLegacyHandler(options: LegacyServerOptions) {
  return (req: Request, info: RequestInfo): Promise<Response> => route(req, info, options);
}

/**
 * POST /execute served on Node's request (http-server.ts FastRoute): the SDKs' hottest call, and
 * a small JSON body both ways, so the WHATWG conversion was a third of its cost.
 */
export function legacyFastRoutes(options: LegacyServerOptions): FastRoute[] {
  return [
    {
      method: 'POST',
      path: '/execute',
      maxBodyBytes: MAX_EXECUTE_BODY_BYTES,
      tooLarge: executeTooLarge,
      handle: (body, info) => executeBody(body, options, info.signal),
    },
  ];
}

/** The legacy boundary's answer: FastAPI's unhandled-error shape, `{"message"}` with 500. */
export const legacyError = (err: unknown): Response => message(500, errorText(err));

const ROUTES: [prefix: string, exact: boolean, method: string][] = [
  ['/', true, 'GET'],
  ['/execute', true, 'POST'],
  ['/upload', true, 'POST'],
  ['/download/', false, 'GET'],
  ['/list/', false, 'GET'],
  ['/exists/', false, 'GET'],
];

async function route(req: Request, info: RequestInfo, o: LegacyServerOptions): Promise<Response> {
  const { rawPath } = splitTarget(info.rawTarget);
  const match = ROUTES.find(([p, exact]) => (exact ? rawPath === p : rawPath.startsWith(p)));
  if (!match) return compactJson(404, { detail: 'Not Found' });
  if (req.method !== match[2])
    return compactJson(405, { detail: 'Method Not Allowed' }, { allow: match[2] });
  // The framework decodes the path once and the handler unquotes it again (§5).
  const rest = () => unquote(unquote(rawPath.slice(match[0].length)));
  switch (match[0]) {
    case '/':
      return compactJson(200, { status: 'ok', message: LegacyMessage.active });
    case '/execute':
      return execute(req, o);
    case '/upload':
      return upload(req, o);
    case '/download/':
      return download(req, o.root, rest());
    case '/list/':
      return list(o.root, rest());
    default:
      return exists(o.root, rest());
  }
}

/** Resolves a legacy path (leading `/` stripped); undefined means "Access denied". */
async function confine(root: string, userPath: string): Promise<string | undefined> {
  try {
    return await sanitizePath(root, userPath.replace(/^\/+/, ''));
  } catch (err: unknown) {
    if (err instanceof SandboxdError && err.code !== 'Internal') return undefined;
    throw err;
  }
}

async function readLimited(req: Request, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  if (!req.body) return Buffer.alloc(0);
  for await (const chunk of req.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/** The FastAPI/pydantic view of a LegacyExecuteRequest body. */
export function parseExecuteBody(raw: string): LegacyExecuteRequest | ValidationDetail[] {
  if (raw.trim() === '')
    return [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }];
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch (err: unknown) {
    return [
      {
        type: 'json_invalid',
        loc: ['body', 0],
        msg: 'JSON decode error',
        input: {},
        ...{ ctx: { error: errorText(err) } },
      },
    ];
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return [
      {
        type: 'model_attributes_type',
        loc: ['body'],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        input: body,
      },
    ];
  }
  const b = body as Record<string, unknown>;
  const errors: ValidationDetail[] = [];
  if (!('command' in b))
    errors.push({ type: 'missing', loc: ['body', 'command'], msg: 'Field required', input: body });
  else if (typeof b.command !== 'string')
    errors.push({
      type: 'string_type',
      loc: ['body', 'command'],
      msg: 'Input should be a valid string',
      input: b.command,
    });
  const t = b.timeout_seconds;
  if (t !== undefined && t !== null) {
    const n = typeof t === 'string' && t.trim() !== '' ? Number(t) : t;
    if (typeof n !== 'number' || !Number.isFinite(n)) {
      errors.push({
        type: 'float_parsing',
        loc: ['body', 'timeout_seconds'],
        msg: 'Input should be a valid number',
        input: t,
      });
    } else if (n <= 0) {
      errors.push({
        type: 'greater_than',
        loc: ['body', 'timeout_seconds'],
        msg: 'Input should be greater than 0',
        input: t,
      });
    }
  }
  if (errors.length > 0) return errors;
  const out: LegacyExecuteRequest = { command: b.command as string };
  if (t !== undefined && t !== null) out.timeout_seconds = Number(t);
  return out;
}

const executeTooLarge = () =>
  plainMessage(413, tooLargeMessage(MAX_EXECUTE_BODY_BYTES, 'execute body'));

async function execute(req: Request, o: LegacyServerOptions): Promise<Response> {
  const raw = await readLimited(req, MAX_EXECUTE_BODY_BYTES);
  return toResponse(raw ? await executeBody(raw, o, req.signal) : executeTooLarge());
}

async function executeBody(
  raw: Buffer,
  o: LegacyServerOptions,
  signal: AbortSignal,
): Promise<PlainAnswer> {
  const parsed = parseExecuteBody(raw.toString('utf8'));
  if (Array.isArray(parsed)) return plainJson(422, { detail: parsed });
  const slot = o.limiter.acquire();
  if (!slot) {
    // Nothing ran, so a retry is safe: 503 is what the SDKs retry (§11.4).
    return plainJson(503, { message: o.limiter.refusal() }, { 'retry-after': '1' });
  }
  try {
    const result: ExecutionResult = await legacyExecute({
      command: parsed.command,
      cwd: o.root,
      env: o.env,
      timeoutSeconds: parsed.timeout_seconds ?? o.defaultTimeoutSeconds,
      signal,
    });
    return plainJson(200, result);
  } finally {
    slot.release();
  }
}

async function upload(req: Request, o: LegacyServerOptions): Promise<Response> {
  const type = req.headers.get('content-type') ?? '';
  const missing = () =>
    invalid([{ type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null }]);
  if (!/^multipart\/form-data/i.test(type) || !req.body) return missing();
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (o.maxUploadBytes > 0 && declared > o.maxUploadBytes + 64 * 1024) {
    return message(413, tooLargeMessage(o.maxUploadBytes, '--max-upload-bytes'));
  }
  let denied = false;
  try {
    const body = Readable.fromWeb(req.body as NodeReadableStream);
    const filename = await writeMultipart(body, type, async (file, name) => {
      if (name === '') {
        file.resume();
        throw new SandboxdError('InvalidArgument', FilesMessage.missingFilePart);
      }
      const target = await confine(o.root, name);
      if (!target) {
        denied = true;
        file.resume();
        throw new SandboxdError('PermissionDenied', LegacyMessage.accessDenied);
      }
      await writeFileAtomic(target, file, {
        mode: 0o644,
        maxBytes: o.maxUploadBytes,
        limitOption: '--max-upload-bytes',
      });
    });
    return compactJson(200, { message: LegacyMessage.uploaded(filename) });
  } catch (err: unknown) {
    if (denied) return message(403, LegacyMessage.accessDenied);
    if (err instanceof SandboxdError && err.code === 'TooLarge') return message(413, err.message);
    if (err instanceof SandboxdError && err.message === FilesMessage.missingFilePart)
      return missing();
    return message(500, LegacyMessage.uploadFailed(errorText(err)));
  }
}

function contentDisposition(filename: string): string {
  const quoted = encodeURIComponent(filename).replace(/%2F/g, '/');
  return quoted === filename
    ? `attachment; filename="${filename}"`
    : `attachment; filename*=utf-8''${quoted}`;
}

async function download(req: Request, root: string, userPath: string): Promise<Response> {
  const target = await confine(root, userPath);
  if (!target) return message(403, LegacyMessage.accessDenied);
  const st = await stat(target).catch(() => undefined);
  if (!st?.isFile()) return message(404, LegacyMessage.fileNotFound);
  return serveFile(target, st, req, {
    'content-disposition': contentDisposition(path.basename(userPath)),
  });
}

async function list(root: string, userPath: string): Promise<Response> {
  const target = await confine(root, userPath);
  if (!target) return message(403, LegacyMessage.accessDenied);
  const st = await stat(target).catch(() => undefined);
  if (!st?.isDirectory()) return message(404, LegacyMessage.notDirectory);
  try {
    return compactJson(200, await listLegacy(target));
  } catch (err: unknown) {
    return message(500, LegacyMessage.listFailed(errorText(err)));
  }
}

async function exists(root: string, userPath: string): Promise<Response> {
  const target = await confine(root, userPath);
  if (!target) return message(403, LegacyMessage.accessDenied);
  const found = await stat(target).then(
    () => true,
    () => false,
  );
  return compactJson(200, { path: userPath, exists: found });
}

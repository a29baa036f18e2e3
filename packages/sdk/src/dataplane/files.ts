// sandbox.files: sandboxd's REST API (`/v1/files/...`, dataplane §4.3) for reading, writing,
// listing, probing and removing files, and watcher.v1 WatchDir for watching a directory.
import {
  FILES_PREFIX,
  FileEventType,
  WATCHER_SERVICE,
  type DirectoryListing,
  type FileEvent,
  type FilesErrorBody,
} from '@agent-sandbox/protocol';
import type * as grpc from '@grpc/grpc-js';
import type { Tracer } from '@opentelemetry/api';
import {
  AbortedError,
  ConnectionError,
  SdkError,
  ServerError,
  errorFromStatus,
} from '../errors.ts';
import { withSpan } from '../tracing.ts';
import type { SandboxEndpoint } from './endpoint.ts';
import { ProgressDeadline, answerDeadlineMs, noAnswer, reportingPulls } from './deadline.ts';
import { connected, grpcError } from './grpc.ts';
import { encodeFilePath } from './paths.ts';
import { retryRefused } from './refused.ts';
import type {
  FileCallOptions,
  Files,
  FileInfo,
  FileWatchEvent,
  FileWriteData,
  ReadFormat,
  WatchHandle,
  WatchOptions,
} from '../types.ts';

const EVENT_NAMES: Record<number, FileWatchEvent['type']> = {
  [FileEventType.CREATE]: 'create',
  [FileEventType.WRITE]: 'write',
  [FileEventType.REMOVE]: 'remove',
  [FileEventType.RENAME]: 'rename',
  [FileEventType.CHMOD]: 'chmod',
  [FileEventType.ERROR]: 'error',
};

export class SandboxFiles implements Files {
  readonly #endpoint: SandboxEndpoint;
  readonly #tracer: Tracer;

  constructor(endpoint: SandboxEndpoint, tracer: Tracer) {
    this.#endpoint = endpoint;
    this.#tracer = tracer;
  }

  /** A file's content: text (UTF-8, the default), bytes, or a stream of bytes. */
  read(path: string, options?: FileCallOptions & { format?: 'text' }): Promise<string>;
  read(path: string, options: FileCallOptions & { format: 'bytes' }): Promise<Uint8Array>;
  read(
    path: string,
    options: FileCallOptions & { format: 'stream' },
  ): Promise<ReadableStream<Uint8Array>>;
  async read(
    path: string,
    options: FileCallOptions & { format?: ReadFormat } = {},
  ): Promise<string | Uint8Array | ReadableStream<Uint8Array>> {
    return this.#span('files.read', path, async () => {
      const res = await this.#fetch('GET', path, `read ${path}`, options);
      if (options.format === 'stream') return res.body ?? new ReadableStream<Uint8Array>();
      if ((res.headers.get('content-type') ?? '').startsWith('application/json'))
        throw errorFromStatus(400, `read ${path}: it is a directory; use files.list()`);
      const bytes = new Uint8Array(await res.arrayBuffer());
      return options.format === 'bytes' ? bytes : new TextDecoder().decode(bytes);
    });
  }

  /** Writes a file (parents are created); text is written as UTF-8. `mode` e.g. '0755'. */
  async write(
    path: string,
    data: FileWriteData,
    options: FileCallOptions & { mode?: string } = {},
  ): Promise<void> {
    return this.#span('files.write', path, async () => {
      const query = options.mode ? `?mode=${encodeURIComponent(options.mode)}` : '';
      await this.#fetch('PUT', path, `write ${path}`, options, { body: data, query });
    });
  }

  /** The entries of a directory, sorted by name. */
  async list(path: string, options: FileCallOptions = {}): Promise<FileInfo[]> {
    return this.#span('files.list', path, async () => {
      const res = await this.#fetch('GET', path, `list ${path}`, options);
      if (!(res.headers.get('content-type') ?? '').startsWith('application/json'))
        throw errorFromStatus(400, `list ${path}: it is a file, not a directory; use files.read()`);
      const listing = (await res.json()) as DirectoryListing;
      const dir = path.replace(/\/+$/, '');
      return listing.entries.map((e) => ({
        name: e.name,
        path: dir === '' || dir === '.' ? e.name : `${dir}/${e.name}`,
        type: e.type,
        size: e.size,
        mode: e.mode,
        modifiedAt: new Date(e.modified_at),
      }));
    });
  }

  /** Whether the path exists (HEAD: 200 or 404). */
  async exists(path: string, options: FileCallOptions = {}): Promise<boolean> {
    return this.#span('files.exists', path, async () => {
      const res = await this.#fetch('HEAD', path, `exists ${path}`, options, { allow404: true });
      return res.status !== 404;
    });
  }

  /** Removes a file, or a directory (with `recursive` when it is not empty). */
  async remove(
    path: string,
    options: FileCallOptions & { recursive?: boolean } = {},
  ): Promise<void> {
    return this.#span('files.remove', path, async () => {
      await this.#fetch('DELETE', path, `remove ${path}`, options, {
        query: options.recursive ? '?recursive=true' : '',
      });
    });
  }

  /**
   * Calls `onEvent` for changes under `path` (paths relative to the sandbox root) until stop()
   * or `signal`; a final `error` event ends it (e.g. the directory was removed).
   */
  async watch(
    path: string,
    onEvent: (event: FileWatchEvent) => void,
    options: WatchOptions = {},
  ): Promise<WatchHandle> {
    const target = await this.#endpoint.grpc(WATCHER_SERVICE, 'files.watch');
    // The daemon sends nothing before the first change, so the deadline is on the connection.
    await connected(target, `watch ${path}`);
    const { client } = target;
    return new Promise((resolve, reject) => {
      const call = (client['WatchDir'] as (r: object) => grpc.ClientReadableStream<FileEvent>).call(
        client,
        { path, recursive: options.recursive ?? false },
      );
      let done = false;
      const ended = new Promise<void>((end) => {
        call.on('end', () => {
          done = true;
          end();
        });
        call.on('error', (err: grpc.ServiceError) => {
          done = true;
          end();
          reject(grpcError(`watch ${path}`, err));
        });
      });
      const stop = async (): Promise<void> => {
        if (!done) call.cancel();
        await ended;
      };
      options.signal?.addEventListener('abort', () => void stop(), { once: true });
      // The daemon sends no headers before its first event, so there is no "watching" signal to
      // wait for: changes in the first moments after watch() resolves may be missed.
      resolve({ stop, done: ended });
      call.on('data', (e: FileEvent) => {
        onEvent({
          type: EVENT_NAMES[e.type] ?? 'unknown',
          path: e.path,
          ...(e.error ? { error: e.error } : {}),
        });
      });
    });
  }

  #span<T>(name: string, path: string, fn: () => Promise<T>): Promise<T> {
    return withSpan(this.#tracer, name, { 'sandbox.file.path': path }, fn);
  }

  async #fetch(
    method: string,
    path: string,
    context: string,
    options: FileCallOptions,
    extra: { body?: FileWriteData; query?: string; allow404?: boolean } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = {};
    const streamed = extra.body instanceof ReadableStream;
    if (extra.body !== undefined) headers['content-type'] = 'application/octet-stream';
    const route = `${FILES_PREFIX}${path === '.' || path === '' ? '' : encodeFilePath(path)}${extra.query ?? ''}`;
    let baseUrl = '';
    let deadline: ProgressDeadline | undefined;
    const send = async (): Promise<Response> => {
      const target = await this.#endpoint.rest();
      baseUrl = target.baseUrl;
      deadline = new ProgressDeadline(answerDeadlineMs(target.connectTimeoutMs, extra.body));
      const signals = options.signal ? [options.signal, deadline.signal] : [deadline.signal];
      const init: RequestInit & { duplex?: 'half' } = {
        method,
        redirect: 'manual',
        signal: AbortSignal.any(signals),
        headers: { ...target.headers, ...headers },
      };
      if (extra.body !== undefined) init.body = bodyOf(extra.body, deadline);
      if (streamed) init.duplex = 'half';
      try {
        return await fetch(`${baseUrl}${route}`, init);
      } finally {
        deadline.clear();
      }
    };
    let res: Response;
    try {
      // A stream body is consumed by the first attempt: it cannot be sent again.
      res = streamed
        ? await send()
        : await retryRefused(send, {
            signal: options.signal,
            onRefused: () => this.#endpoint.reset(),
          });
    } catch (err: unknown) {
      if (options.signal?.aborted) throw new AbortedError(`${context}: aborted`, { cause: err });
      this.#endpoint.reset();
      if (deadline?.expired)
        throw noAnswer(
          this.#endpoint.sandboxName,
          `no answer from its daemon at ${baseUrl} within ${deadline.ms} ms`,
          context,
        );
      if (err instanceof SdkError) throw err;
      throw new ConnectionError(`${context}: cannot reach the sandbox daemon at ${baseUrl}`, {
        cause: err,
      });
    }
    if (res.ok || (extra.allow404 && res.status === 404)) return res;
    throw await restError(res, context);
  }
}

function bodyOf(data: FileWriteData, deadline: ProgressDeadline): NonNullable<RequestInit['body']> {
  if (data instanceof ReadableStream) return reportingPulls(data, () => deadline.progress());
  if (typeof data === 'string' || data instanceof Blob) return data;
  return data as Uint8Array<ArrayBuffer>;
}

async function restError(res: Response, context: string): Promise<Error> {
  const text = await res.text().catch(() => '');
  if (res.status >= 300 && res.status < 400)
    return new ServerError(`${context}: unexpected redirect (${res.status}) from the sandbox`, {
      status: res.status,
    });
  let detail = text.trim() || `HTTP ${res.status}`;
  try {
    const body = JSON.parse(text) as Partial<FilesErrorBody> & { detail?: string };
    detail = body.message ?? body.detail ?? detail;
  } catch {
    // not JSON (a proxy's text page): keep the text
  }
  return errorFromStatus(res.status, `${context}: ${detail}`);
}

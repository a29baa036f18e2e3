// KubeClient: generic REST verbs over undici (ADR 0008). Every verb is addressed by a
// ResourceRef; every failure is a KubeError, and every server failure an ApiError with the
// server's Status (STYLE error rules 1–3).
import type { KubeObject, Status } from '@agent-sandbox/kube-types';
import { readFileSync } from 'node:fs';
import { realClock, sleep, type Clock } from './clock.ts';
import { apiErrorFromResponse, InvalidArgumentError, KubeError } from './errors.ts';
import type { KubeConfig } from './kubeconfig.ts';
import { TokenBucket } from './rate-limiter.ts';
import { qualifiedResource, resourcePath, type ResourceRef } from './resources.ts';
import type {
  DeleteOptions,
  GetOptions,
  ListOptions,
  ListResult,
  Patch,
  PatchOptions,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from './types.ts';
import {
  DEFAULT_RETRY_BACKOFF,
  mayRetry,
  retryDelayMs,
  transportFailure,
  type RetryBackoff,
  type TransportFailure,
} from './retry.ts';
import {
  createTransport,
  DEFAULT_TRANSPORT_OPTIONS,
  type FetchLike,
  type Transport,
} from './transport.ts';
import { readWatchStream } from './watch-stream.ts';

export type { FetchLike } from './transport.ts';
export type { RetryBackoff } from './retry.ts';

export interface KubeClientOptions {
  config: KubeConfig;
  /** Client-side requests per second; <= 0 disables limiting. @default -1 (the manager flag's default) */
  qps?: number;
  /** Token-bucket size. @default 10 */
  burst?: number;
  /** Deadline of each non-watch request. @default 30_000 */
  timeoutMs?: number;
  /** @default 'agent-sandbox' */
  userAgent?: string;
  clock?: Clock;
  /**
   * Transport for requests and watches alike; @default undici's fetch over keep-alive
   * connections built from `config`'s TLS settings (transport.ts).
   */
  fetch?: FetchLike;
  /** Connections per API server for requests; watches have their own. @default 16 */
  maxConnections?: number;
  /** Idle keep-alive time when the server sends no Keep-Alive hint. @default 30_000 */
  keepAliveTimeoutMs?: number;
  /**
   * Retries after a transport failure (retry.ts says which requests qualify).
   * @default { maxRetries: 3, initialDelayMs: 50, maxDelayMs: 1000 }
   */
  retry?: Partial<RetryBackoff>;
  /** Source of the retry jitter, in [0, 1). @default Math.random */
  random?: () => number;
  /** Hooks for client-go's rest_client_* metrics (the runtime package binds them to prom-client). */
  metrics?: ClientMetrics;
}

/** Per-request observations; `method` is the HTTP method, `host` the server's host:port. */
export interface ClientMetrics {
  rateLimiterWait(method: string, host: string, seconds: number): void;
  /** `code` is the HTTP status, or '<error>' when no response arrived. */
  request(method: string, host: string, code: string, seconds: number): void;
  /** A request sent again after a transport failure (client-go's rest_client_request_retries). */
  requestRetry?(method: string, host: string, failure: TransportFailure): void;
}

const TOKEN_FILE_TTL_MS = 60_000;
const MAX_429_RETRIES = 3;

interface RequestSpec {
  method: string;
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  context: string;
  /** No client deadline (watch streams). */
  stream?: boolean;
  /** Cannot apply twice, so it may be sent again after the connection broke (retry.ts). */
  replaySafe: boolean;
  signal?: AbortSignal | undefined;
}

export class KubeClient {
  readonly config: KubeConfig;
  readonly #timeoutMs: number;
  readonly #userAgent: string;
  readonly #limiter: TokenBucket;
  readonly #clock: Clock;
  readonly #transport: Transport | undefined;
  readonly #fetch: FetchLike;
  readonly #watchFetch: FetchLike;
  readonly #retry: RetryBackoff;
  readonly #random: () => number;
  readonly #metrics: ClientMetrics | undefined;
  #token: { value: string; readAt: number } | undefined;

  constructor(options: KubeClientOptions) {
    if (!options.config?.server) throw new InvalidArgumentError('config.server is required');
    const timeoutMs = options.timeoutMs ?? 30_000;
    if (!(timeoutMs > 0)) throw new InvalidArgumentError(`timeoutMs must be > 0, got ${timeoutMs}`);
    this.config = options.config;
    this.#timeoutMs = timeoutMs;
    this.#userAgent = options.userAgent ?? 'agent-sandbox';
    this.#clock = options.clock ?? realClock;
    this.#metrics = options.metrics;
    this.#limiter = new TokenBucket({
      qps: options.qps ?? -1,
      burst: options.burst ?? 10,
      clock: this.#clock,
    });
    this.#retry = retryBackoff(options.retry);
    this.#random = options.random ?? Math.random;
    if (options.fetch) {
      this.#fetch = this.#watchFetch = options.fetch;
    } else {
      this.#transport = createTransport(options.config, transportOptions(options));
      this.#fetch = this.#transport.request;
      this.#watchFetch = this.#transport.watch;
    }
  }

  async get<T extends KubeObject>(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    options: GetOptions = {},
  ): Promise<T> {
    return this.#json<T>({
      method: 'GET',
      path: resourcePath(ref, namespace, name),
      query: { resourceVersion: options.resourceVersion },
      context: `get ${describe(ref, namespace, name)}`,
      replaySafe: true,
      signal: options.signal,
    });
  }

  async list<T extends KubeObject>(
    ref: ResourceRef,
    namespace?: string,
    options: ListOptions = {},
  ): Promise<ListResult<T>> {
    const { signal, ...query } = options;
    const list = await this.#json<ListResult<T>>({
      method: 'GET',
      path: resourcePath(ref, namespace),
      query,
      context: `list ${describe(ref, namespace)}`,
      replaySafe: true,
      signal,
    });
    return { ...list, items: list.items ?? [] };
  }

  async create<T extends KubeObject>(
    ref: ResourceRef,
    obj: T,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.#json<T>({
      method: 'POST',
      path: resourcePath(ref, obj.metadata.namespace),
      query: writeQuery(options),
      body: obj,
      context: `create ${describe(ref, obj.metadata.namespace, obj.metadata.name ?? obj.metadata.generateName)}`,
      // A replay of a named create is refused AlreadyExists; by generateName it makes another.
      replaySafe: Boolean(obj.metadata.name),
      signal: options.signal,
    });
  }

  /** PUT; fails with Conflict when `obj.metadata.resourceVersion` is stale. */
  async update<T extends KubeObject>(
    ref: ResourceRef,
    obj: T,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.#put(ref, obj, undefined, options);
  }

  /** PUT to the status subresource: only `status` changes. */
  async updateStatus<T extends KubeObject>(
    ref: ResourceRef,
    obj: T,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.#put(ref, obj, 'status', options);
  }

  async patch<T extends KubeObject>(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    patch: Patch,
    options: PatchOptions = {},
  ): Promise<T> {
    if (patch.type === 'apply' && !options.fieldManager)
      throw new InvalidArgumentError('fieldManager is required for an apply patch');
    if (options.force && patch.type !== 'apply')
      throw new InvalidArgumentError('force is only valid for an apply patch');
    const contentType = {
      merge: 'application/merge-patch+json',
      json: 'application/json-patch+json',
      strategic: 'application/strategic-merge-patch+json',
      apply: 'application/apply-patch+yaml', // JSON is valid YAML
    }[patch.type];
    return this.#json<T>({
      method: 'PATCH',
      path: resourcePath(ref, namespace, name, options.subresource),
      query: { ...writeQuery(options), force: options.force ? true : undefined },
      body: patch.type === 'json' ? patch.ops : patch.body,
      contentType,
      context: `patch ${describe(ref, namespace, name)}`,
      replaySafe: patch.type !== 'json',
      signal: options.signal,
    });
  }

  /**
   * Deletes an object. Resolves to the object when the server returns it (deletion pending on
   * finalizers, or kinds such as Pods that return the deleted object), else undefined.
   */
  async delete<T extends KubeObject>(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): Promise<T | undefined> {
    const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
    if (options.propagationPolicy) body['propagationPolicy'] = options.propagationPolicy;
    if (options.gracePeriodSeconds !== undefined)
      body['gracePeriodSeconds'] = options.gracePeriodSeconds;
    if (options.preconditions) body['preconditions'] = options.preconditions;
    if (options.dryRun) body['dryRun'] = ['All'];
    const res = await this.#json<T | Status>({
      method: 'DELETE',
      path: resourcePath(ref, namespace, name),
      body,
      context: `delete ${describe(ref, namespace, name)}`,
      replaySafe: true,
      signal: options.signal,
    });
    return res.kind === 'Status' ? undefined : (res as T);
  }

  /**
   * Watches a collection (semantics §4). The request is made when iteration starts; a non-200
   * answer throws ApiError. An in-stream ERROR throws ApiError (410 → `isGone`) and closes the
   * stream at once, so a server that keeps the stream open cannot hang the caller. The
   * iteration ends normally when the server ends the stream or `signal` aborts.
   */
  watch<T extends KubeObject>(
    ref: ResourceRef,
    namespace: string | undefined,
    options: WatchOptions = {},
  ): AsyncIterable<WatchEvent<T>> {
    const { signal, ...params } = options;
    const context = `watch ${describe(ref, namespace)}`;
    const spec: RequestSpec = {
      method: 'GET',
      path: resourcePath(ref, namespace),
      query: { watch: true, ...params },
      context,
      stream: true,
      replaySafe: false,
      ...(signal ? { signal } : {}),
    };
    const send = (): Promise<Response> => this.#send(spec);
    return {
      async *[Symbol.asyncIterator]() {
        let res: Response;
        try {
          res = await send();
        } catch (err: unknown) {
          if (signal?.aborted) return;
          throw err;
        }
        if (!res.body) return;
        yield* readWatchStream<T>(res.body, context, signal);
      },
    };
  }

  /** Raw request for paths the verbs do not cover (discovery, /healthz); throws ApiError on failure. */
  async request(method: string, path: string, body?: unknown): Promise<unknown> {
    return this.#json<unknown>({
      method,
      path,
      body,
      context: `${method} ${path}`,
      replaySafe: method === 'GET' || method === 'PUT' || method === 'DELETE',
    });
  }

  /** Closes idle connections and aborts open ones (watch streams). */
  async close(): Promise<void> {
    await this.#transport?.close();
  }

  async #put<T extends KubeObject>(
    ref: ResourceRef,
    obj: T,
    subresource: string | undefined,
    options: WriteOptions,
  ): Promise<T> {
    const { namespace, name } = obj.metadata;
    if (!name) throw new InvalidArgumentError('update needs metadata.name');
    return this.#json<T>({
      method: 'PUT',
      path: resourcePath(ref, namespace, name, subresource),
      query: writeQuery(options),
      body: obj,
      context: `update ${describe(ref, namespace, name)}${subresource ? `/${subresource}` : ''}`,
      replaySafe: true,
      signal: options.signal,
    });
  }

  async #json<T>(spec: RequestSpec): Promise<T> {
    const res = await this.#send(spec);
    const text = await res.text();
    try {
      return JSON.parse(text) as T;
    } catch (cause: unknown) {
      throw new KubeError(`${spec.context}: response is not JSON`, { cause, code: 'Network' });
    }
  }

  /**
   * Sends with rate limiting, auth, deadline, transport retries (retry.ts) and 429 retries;
   * returns a 2xx response.
   */
  async #send(spec: RequestSpec): Promise<Response> {
    const url = new URL(this.config.server + spec.path);
    for (const [k, v] of Object.entries(spec.query ?? {}))
      if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': this.#userAgent,
    };
    const auth = this.#authorization();
    if (auth) headers['Authorization'] = auth;
    if (spec.body !== undefined) headers['Content-Type'] = spec.contentType ?? 'application/json';
    const body = spec.body !== undefined ? JSON.stringify(spec.body) : undefined;
    let throttled = 0;
    let retried = 0;
    for (;;) {
      const sent = await this.#attempt(spec, url, headers, body);
      if ('error' in sent) {
        // A watch is re-established by its caller (the Informer, with its own backoff).
        if (spec.stream || retried >= this.#retry.maxRetries) throw sent.error;
        if (!mayRetry(sent.failure, spec.replaySafe)) throw sent.error;
        this.#metrics?.requestRetry?.(spec.method, url.host, sent.failure);
        await sleep(this.#clock, retryDelayMs(this.#retry, retried++, this.#random()), spec.signal);
        continue;
      }
      const { res } = sent;
      if (res.ok) return res;
      const text = await res.text();
      if (res.status === 429 && throttled++ < MAX_429_RETRIES) {
        // client-go honours Retry-After on 429 (semantics §0); cap it so shutdown stays prompt.
        const seconds = Number(res.headers.get('retry-after') ?? '1');
        await sleep(
          this.#clock,
          Math.min(Number.isFinite(seconds) ? seconds : 1, 10) * 1000,
          spec.signal,
        );
        continue;
      }
      throw apiErrorFromResponse(spec.context, res.status, text);
    }
  }

  /** One rate-limited fetch: the response, or the KubeError and how the transport failed. */
  async #attempt(
    spec: RequestSpec,
    url: URL,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<{ res: Response } | { error: KubeError; failure: TransportFailure }> {
    const waitStart = this.#clock.now();
    await this.#limiter.acquire(spec.signal);
    const sent = this.#clock.now();
    this.#metrics?.rateLimiterWait(spec.method, url.host, (sent - waitStart) / 1000);
    const signals = spec.signal ? [spec.signal] : [];
    const deadline = spec.stream ? undefined : AbortSignal.timeout(this.#timeoutMs);
    if (deadline) signals.push(deadline);
    const fetch = spec.stream ? this.#watchFetch : this.#fetch;
    try {
      const res = await fetch(url.toString(), {
        method: spec.method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: AbortSignal.any(signals),
      });
      this.#metrics?.request(spec.method, url.host, String(res.status), this.#since(sent));
      return { res };
    } catch (cause: unknown) {
      this.#metrics?.request(spec.method, url.host, '<error>', this.#since(sent));
      if (deadline?.aborted) {
        const message = `${spec.context}: no answer within ${this.#timeoutMs} ms`;
        return { error: new KubeError(message, { cause, code: 'Timeout' }), failure: 'other' };
      }
      if (spec.signal?.aborted) {
        const error = new KubeError(`${spec.context}: aborted`, { cause, code: 'Aborted' });
        return { error, failure: 'other' };
      }
      const error = new KubeError(`${spec.context}: ${errorText(cause)}`, {
        cause,
        code: 'Network',
      });
      return { error, failure: transportFailure(cause) };
    }
  }

  #since(ms: number): number {
    return (this.#clock.now() - ms) / 1000;
  }

  #authorization(): string | undefined {
    const c = this.config;
    if (c.tokenFile) {
      const now = this.#clock.now();
      if (!this.#token || now - this.#token.readAt > TOKEN_FILE_TTL_MS)
        this.#token = { value: readFileSync(c.tokenFile, 'utf8').trim(), readAt: now };
      return `Bearer ${this.#token.value}`;
    }
    if (c.token) return `Bearer ${c.token}`;
    if (c.username !== undefined && c.password !== undefined)
      return `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
    return undefined;
  }
}

function retryBackoff(o: Partial<RetryBackoff> = {}): RetryBackoff {
  const backoff = { ...DEFAULT_RETRY_BACKOFF, ...o };
  for (const [field, value] of Object.entries(backoff))
    if (!(Number.isInteger(value) && value >= 0))
      throw new InvalidArgumentError(`retry.${field} must be a whole number >= 0, got ${value}`);
  return backoff;
}

function transportOptions(o: KubeClientOptions): typeof DEFAULT_TRANSPORT_OPTIONS {
  const maxConnections = o.maxConnections ?? DEFAULT_TRANSPORT_OPTIONS.maxConnections;
  if (!(Number.isInteger(maxConnections) && maxConnections >= 1))
    throw new InvalidArgumentError(
      `maxConnections must be a whole number >= 1, got ${maxConnections}`,
    );
  const keepAliveTimeoutMs = o.keepAliveTimeoutMs ?? DEFAULT_TRANSPORT_OPTIONS.keepAliveTimeoutMs;
  if (!(keepAliveTimeoutMs > 0))
    throw new InvalidArgumentError(`keepAliveTimeoutMs must be > 0, got ${keepAliveTimeoutMs}`);
  return { maxConnections, keepAliveTimeoutMs };
}

function writeQuery(o: WriteOptions): Record<string, string | undefined> {
  return {
    fieldManager: o.fieldManager,
    dryRun: o.dryRun ? 'All' : undefined,
    fieldValidation: o.fieldValidation,
  };
}

function describe(ref: ResourceRef, namespace?: string, name?: string): string {
  const q = qualifiedResource(ref);
  const where = ref.namespaced && namespace ? `${namespace}/` : '';
  return name === undefined ? `${q}${namespace ? ` in ${namespace}` : ''}` : `${q} ${where}${name}`;
}

function errorText(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return `${err.message}${cause}`;
  }
  return String(err);
}

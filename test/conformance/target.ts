// One API server under test, reached over raw HTTP(S) so the conformance cases see exactly what
// a client sees: status codes, headers, bodies and watch streams.
import { KubeConfig } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
}

export interface RequestOptions {
  body?: unknown;
  /** Set by `request` from the encoded body (a chunked DELETE body confuses Go's server). */
  bodyLength?: number;
  contentType?: string;
  accept?: string;
  /** More request headers; they override the ones above. */
  headers?: Record<string, string>;
}

export interface Target {
  name: 'embedded' | 'cluster';
  kubeconfigPath: string;
  request(method: string, path: string, opts?: RequestOptions): Promise<HttpResult>;
  /** One attempt, without retrying 429 Too Many Requests. */
  requestOnce(method: string, path: string, opts?: RequestOptions): Promise<HttpResult>;
  /** Opens a watch and collects events until `count` arrived or `timeoutMs` passed. */
  watch(
    path: string,
    count: number,
    timeoutMs: number,
    during?: () => Promise<void>,
  ): Promise<unknown[]>;
  /** The same server reached with a bearer token instead of the admin's credentials. */
  withToken(token: string): Target;
}

interface Connection {
  base: URL;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  token?: string;
  insecure: boolean;
}

function connectionFrom(kubeconfigPath: string): Connection {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (!cluster) throw new Error(`${kubeconfigPath} has no current cluster`);
  const read = (file?: string, data?: string): Buffer | undefined =>
    file ? readFileSync(file) : data ? Buffer.from(data, 'base64') : undefined;
  const conn: Connection = { base: new URL(cluster.server), insecure: cluster.skipTLSVerify };
  const ca = read(cluster.caFile, cluster.caData);
  const cert = read(user?.certFile, user?.certData);
  const key = read(user?.keyFile, user?.keyData);
  if (ca) conn.ca = ca;
  if (cert) conn.cert = cert;
  if (key) conn.key = key;
  if (user?.token) conn.token = user.token;
  return conn;
}

/**
 * The request target as a raw client sends it: bytes a request line cannot carry are
 * percent-encoded (UTF-8), and nothing else changes. `new URL(path, base)` would also resolve dot
 * segments, so `…/configmaps/..` reached both servers as the namespace itself and the fuzzer's
 * DELETE removed it; kube sees the `..` and refuses the name, and so must we.
 */
export function rawPath(path: string): string {
  return path.replace(/[^\x21-\x7e]|["<>\\^`{|}#]/gu, (c) =>
    [...Buffer.from(c, 'utf8')]
      .map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`)
      .join(''),
  );
}

function open(
  conn: Connection,
  method: string,
  path: string,
  opts: RequestOptions,
  onResponse: (res: IncomingMessage) => void,
  onError: (err: Error) => void = () => undefined,
): (body?: string | Buffer) => void {
  const url = new URL(conn.base);
  const headers: Record<string, string> = {
    Accept: opts.accept ?? 'application/json',
    'User-Agent': 'conformance/1.0',
  };
  if (opts.body !== undefined) headers['Content-Type'] = opts.contentType ?? 'application/json';
  if (opts.bodyLength !== undefined) headers['Content-Length'] = String(opts.bodyLength);
  if (conn.token) headers['Authorization'] = `Bearer ${conn.token}`;
  Object.assign(headers, opts.headers);
  const common = { method, headers, path: rawPath(path) };
  const req =
    url.protocol === 'https:'
      ? httpsRequest(
          url,
          {
            ...common,
            ...(conn.ca ? { ca: conn.ca } : {}),
            ...(conn.cert ? { cert: conn.cert } : {}),
            ...(conn.key ? { key: conn.key } : {}),
            rejectUnauthorized: !conn.insecure,
          },
          onResponse,
        )
      : httpRequest(url, common, onResponse);
  return (body?: string | Buffer) => {
    req.on('error', onError);
    if (body === undefined || !expectsContinue(headers)) req.end(body);
    else sendOnContinue(req, body);
  };
}

function expectsContinue(headers: Record<string, string>): boolean {
  return Object.entries(headers).some(
    ([k, v]) => k.toLowerCase() === 'expect' && v.toLowerCase() === '100-continue',
  );
}

/**
 * `Expect: 100-continue` as curl honours it: the body goes once the server asks for it, or after
 * a second without an answer. A server that answers first (kube does, for a request it will not
 * read) never gets it. Writing it anyway races Go's server, which closes a connection whose body
 * it did not read: the reset could lose the answer already sent (a fuzz case answered "no answer").
 */
function sendOnContinue(req: ClientRequest, body: string | Buffer): void {
  let sent = false;
  const send = (): void => {
    if (sent) return;
    sent = true;
    clearTimeout(timer);
    req.end(body);
  };
  const timer = setTimeout(send, EXPECT_CONTINUE_WAIT_MS);
  req.once('continue', send);
  req.once('response', (res) => {
    clearTimeout(timer);
    // The request never finished: its connection cannot carry another one.
    if (!sent) res.once('end', () => req.destroy());
  });
  req.flushHeaders();
}

const EXPECT_CONTINUE_WAIT_MS = 1_000;

export function targetFor(name: Target['name'], kubeconfigPath: string): Target {
  return targetOn(name, kubeconfigPath, connectionFrom(kubeconfigPath));
}

function targetOn(name: Target['name'], kubeconfigPath: string, conn: Connection): Target {
  return {
    name,
    kubeconfigPath,
    async request(method, path, opts = {}) {
      // Like client-go, retry 429s (API priority and fairness under bursts) after Retry-After.
      for (let attempt = 1; ; attempt++) {
        const res = await this.requestOnce(method, path, opts);
        if (res.status !== 429 || attempt >= 10) return res;
        const retryAfter = Number(res.headers['retry-after'] ?? '1');
        await new Promise((r) =>
          setTimeout(r, Math.min(Number.isFinite(retryAfter) ? retryAfter : 1, 5) * 1000),
        );
      }
    },
    requestOnce(method, path, opts = {}) {
      const encoded =
        opts.body === undefined
          ? undefined
          : typeof opts.body === 'string' || Buffer.isBuffer(opts.body)
            ? opts.body
            : JSON.stringify(opts.body);
      const withLength =
        encoded === undefined ? opts : { ...opts, bodyLength: Buffer.byteLength(encoded) };
      return new Promise((resolve, reject) => {
        const send = open(
          conn,
          method,
          path,
          withLength,
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              let body: unknown = text;
              try {
                body = JSON.parse(text);
              } catch {
                // Not JSON (e.g. the plain-text 404 page): keep the text.
              }
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
            });
            res.on('error', reject);
          },
          reject,
        );
        send(encoded);
      });
    },
    withToken(token) {
      const bearer: Connection = { base: conn.base, insecure: conn.insecure, token };
      if (conn.ca) bearer.ca = conn.ca;
      return targetOn(name, kubeconfigPath, bearer);
    },
    watch(path, count, timeoutMs, during) {
      return new Promise((resolve) => {
        const events: unknown[] = [];
        let buffer = '';
        let finished = false;
        let response: IncomingMessage | undefined;
        const finish = (): void => {
          if (finished) return;
          finished = true;
          clearTimeout(timer);
          response?.destroy();
          resolve(events);
        };
        const timer = setTimeout(finish, timeoutMs);
        const send = open(conn, 'GET', path, {}, (res) => {
          response = res;
          res.on('data', (c: Buffer) => {
            buffer += c.toString('utf8');
            let nl = buffer.indexOf('\n');
            while (nl >= 0) {
              const line = buffer.slice(0, nl);
              buffer = buffer.slice(nl + 1);
              if (line.trim() !== '') events.push(JSON.parse(line));
              nl = buffer.indexOf('\n');
            }
            if (events.length >= count) finish();
          });
          res.on('end', () => {
            // A Status answered instead of a stream may lack the final newline.
            if (buffer.trim() !== '') events.push(JSON.parse(buffer));
            finish();
          });
          res.on('error', finish);
          if (during) void during();
        });
        send();
      });
    },
  };
}

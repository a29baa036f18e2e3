// A raw HTTP(S) client for one API server, the same code for every target so the client's own
// cost is equal on both sides. The connection logic (server URL, CA, client certificate, bearer
// token from a kubeconfig) follows test/conformance/target.ts; it is repeated here because the
// benchmark needs what that target does not offer: a keep-alive agent it controls, and watch
// events handed over one by one with their arrival time.
import { KubeConfig } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';

export interface Response {
  status: number;
  body: unknown;
}

export interface WatchStream {
  /** Resolves when the server has sent the response headers (the watch is registered). */
  ready: Promise<number>;
  close(): void;
}

export interface Client {
  name: string;
  request(method: string, path: string, body?: unknown): Promise<Response>;
  /** Opens a watch; `onEvent` gets each event line, parsed, with its arrival time (ms). */
  watch(path: string, onEvent: (event: WatchEvent, at: number) => void): WatchStream;
  close(): void;
}

export interface WatchEvent {
  type: string;
  object: { metadata?: { name?: string; resourceVersion?: string } };
}

export function clientFor(name: string, kubeconfigPath: string): Client {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (!cluster) throw new Error(`${kubeconfigPath} has no current cluster`);
  const read = (file?: string, data?: string): Buffer | undefined =>
    file ? readFileSync(file) : data ? Buffer.from(data, 'base64') : undefined;
  const base = new URL(cluster.server);
  const https = base.protocol === 'https:';
  const tls = {
    ca: read(cluster.caFile, cluster.caData),
    cert: read(user?.certFile, user?.certData),
    key: read(user?.keyFile, user?.keyData),
    rejectUnauthorized: !cluster.skipTLSVerify,
  };
  // One keep-alive pool per target; watches get their own agent so they never hold a socket
  // the request pool needs.
  // `timeout` drops a pooled socket after 4 s idle, before Node's server closes it at 5 s
  // (keepAliveTimeout): otherwise a phase that starts after another target's phase may write
  // into a socket the server is closing and get "socket hang up".
  const agentOptions = { keepAlive: true, maxSockets: 256, maxFreeSockets: 256, timeout: 4000 };
  const agent = https ? new HttpsAgent({ ...agentOptions, ...tls }) : new HttpAgent(agentOptions);
  const watchAgent = https
    ? new HttpsAgent({ keepAlive: false, maxSockets: Infinity, ...tls })
    : new HttpAgent({ keepAlive: false, maxSockets: Infinity });
  const headers = (body: string | undefined): Record<string, string> => {
    const h: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': 'agent-sandbox-bench/1.0',
    };
    if (body !== undefined) {
      h['Content-Type'] = 'application/json';
      h['Content-Length'] = String(Buffer.byteLength(body));
    }
    if (user?.token) h['Authorization'] = `Bearer ${user.token}`;
    return h;
  };
  const send = (
    method: string,
    path: string,
    body: string | undefined,
    which: HttpAgent,
    onResponse: (res: IncomingMessage) => void,
    onError: (err: Error, reusedSocket: boolean) => void,
  ): (() => void) => {
    const url = new URL(path, base);
    const options = { method, headers: headers(body), agent: which };
    const req = https
      ? httpsRequest(url, options as Parameters<typeof httpsRequest>[1], onResponse)
      : httpRequest(url, options, onResponse);
    req.on('error', (err) => onError(err, req.reusedSocket));
    req.end(body);
    return () => req.destroy();
  };

  return {
    name,
    request(method, path, body) {
      const encoded = body === undefined ? undefined : JSON.stringify(body);
      const attempt = (retry: boolean): Promise<Response> =>
        new Promise((resolve, reject) => {
          send(
            method,
            path,
            encoded,
            agent,
            (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () => {
                const text = Buffer.concat(chunks).toString('utf8');
                let parsed: unknown = text;
                try {
                  parsed = JSON.parse(text);
                } catch {
                  // Not JSON (a plain-text error page): keep the text for the error message.
                }
                resolve({ status: res.statusCode ?? 0, body: parsed });
              });
              res.on('error', reject);
            },
            (err, reusedSocket) => {
              // The server closed a pooled socket as we reused it: the request never arrived
              // (Node's documented case for one retry).
              const reset = (err as NodeJS.ErrnoException).code === 'ECONNRESET';
              if (retry && reusedSocket && reset) attempt(false).then(resolve, reject);
              else reject(err);
            },
          );
        });
      return attempt(true);
    },
    watch(path, onEvent) {
      let buffer = '';
      let closed = false;
      let abort: () => void = () => undefined;
      const ready = new Promise<number>((resolve, reject) => {
        abort = send(
          'GET',
          path,
          undefined,
          watchAgent,
          (res) => {
            if (res.statusCode !== 200) {
              reject(new Error(`${name}: watch ${path}: HTTP ${res.statusCode}`));
              res.resume();
              return;
            }
            resolve(performance.now());
            res.on('data', (c: Buffer) => {
              const at = performance.now();
              buffer += c.toString('utf8');
              let nl = buffer.indexOf('\n');
              while (nl >= 0) {
                const line = buffer.slice(0, nl);
                buffer = buffer.slice(nl + 1);
                if (line.trim() !== '') onEvent(JSON.parse(line) as WatchEvent, at);
                nl = buffer.indexOf('\n');
              }
            });
            res.on('error', () => undefined);
          },
          (err) => {
            if (!closed) reject(err);
          },
        );
      });
      return {
        ready,
        close() {
          closed = true;
          abort();
        },
      };
    },
    close() {
      agent.destroy();
      watchAgent.destroy();
    },
  };
}

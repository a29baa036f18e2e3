// HTTPS and WebSocket connections to a Pod's subresources (exec, log, portforward) with the
// kubeconfig's credentials: the parts KubeClient's REST verbs do not cover. Failures become
// CliErrors that say what the server said and what to check.
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@agent-sandbox/kube';
import WebSocket from 'ws';
import { CliError } from '../errors.ts';

export interface PodRef {
  namespace: string;
  name: string;
}

function authorization(c: KubeConfig): string | undefined {
  if (c.tokenFile) return `Bearer ${readFileSync(c.tokenFile, 'utf8').trim()}`;
  if (c.token) return `Bearer ${c.token}`;
  if (c.username !== undefined)
    return `Basic ${Buffer.from(`${c.username}:${c.password ?? ''}`).toString('base64')}`;
  return undefined;
}

/** TLS and auth options shared by https.request and ws. */
function connectOptions(c: KubeConfig): RequestOptions {
  const auth = authorization(c);
  return {
    ...(c.caPem ? { ca: c.caPem } : {}),
    ...(c.clientCertPem ? { cert: c.clientCertPem } : {}),
    ...(c.clientKeyPem ? { key: c.clientKeyPem } : {}),
    ...(c.tlsServerName ? { servername: c.tlsServerName } : {}),
    rejectUnauthorized: !c.insecureSkipTlsVerify,
    headers: { 'user-agent': 'agent-sandbox-cli', ...(auth ? { authorization: auth } : {}) },
  };
}

export function podPath(pod: PodRef, subresource: string, query: URLSearchParams): string {
  return `/api/v1/namespaces/${encodeURIComponent(pod.namespace)}/pods/${encodeURIComponent(pod.name)}/${subresource}?${query}`;
}

/** A GET whose body streams (pods/log with follow); rejects with the server's message. */
export function streamGet(
  c: KubeConfig,
  path: string,
  signal?: AbortSignal,
): Promise<IncomingMessage> {
  const url = new URL(path, c.server);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, { ...connectOptions(c), ...(signal ? { signal } : {}) }, (res) => {
      if ((res.statusCode ?? 0) < 400) return resolve(res);
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => reject(statusError(res.statusCode ?? 0, body)));
    });
    req.on('error', (e) => reject(connectError(c, e)));
    req.end();
  });
}

/** Opens a WebSocket to `path` with `protocols`; rejects with the server's message. */
/**
 * Opens a WebSocket and hands it to `start` inside the 'open' event. The server's first frames
 * can arrive in the same read as its 101, and ws emits them right after 'open', before code
 * awaiting a promise for the socket would run (process.nextTick precedes promise jobs): a
 * listener added after an await missed them (the exec stream's opening frame, port-forward's
 * port frames), so `start` must attach its listeners synchronously.
 */
export function openWebSocket<T>(
  c: KubeConfig,
  path: string,
  protocols: readonly string[],
  start: (ws: WebSocket) => T,
): Promise<Awaited<T>> {
  const url = new URL(path, c.server);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, [...protocols], {
      ...connectOptions(c),
      perMessageDeflate: false,
    });
    let opened = false;
    ws.once('open', () => {
      opened = true;
      Promise.resolve(start(ws)).then(resolve, reject);
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => reject(statusError(res.statusCode ?? 0, body)));
    });
    ws.once('error', (e) => {
      if (!opened) reject(connectError(c, e));
    });
  });
}

function statusError(code: number, body: string): CliError {
  let message = body.trim();
  try {
    const status = JSON.parse(body) as { message?: string };
    if (status.message) message = status.message;
  } catch {
    // not a Status: the body is the message
  }
  return new CliError('Failed', `the API server answered ${code}: ${message || '(no message)'}`);
}

function connectError(c: KubeConfig, e: Error): CliError {
  return new CliError(
    'Failed',
    `cannot reach the API server at ${c.server}: ${e.message} (is agent-sandbox up running? check --kubeconfig / KUBECONFIG)`,
    { cause: e },
  );
}

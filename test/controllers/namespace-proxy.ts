// A namespace-scoping gateway in front of the shared cluster's kube-apiserver, for the manager
// child process. The manager (like upstream's) has no namespace flag, so on the shared cluster it
// would reconcile every engineer's Sandboxes; this gateway rewrites its cluster-wide list and
// watch requests of the kinds it caches to the test namespace, and forwards everything else
// unchanged with the admin credentials (namespace-fanout.ts when it sees several). Responses stream through untouched (watches included).
import type { KubeConfig } from '@agent-sandbox/kube';
import { writeFileSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fanOut } from './namespace-fanout.ts';

/** Collections the manager lists and watches across all namespaces. */
const SCOPED =
  /^(\/api\/v1|\/apis\/[^/]+\/[^/]+)\/(pods|services|persistentvolumeclaims|sandboxes|events|sandboxclaims|sandboxwarmpools|sandboxtemplates|networkpolicies)(?=\?|$)/;

/** Whether `path` is a cluster-wide collection the manager caches. */
export const isScoped = (path: string): boolean => SCOPED.test(path);

/** `/api/v1/pods?watch=1` → `/api/v1/namespaces/<ns>/pods?watch=1`; other paths unchanged. */
export function scopePath(path: string, namespace: string): string {
  return path.replace(SCOPED, (_m, prefix: string, plural: string) => {
    return `${prefix}/namespaces/${encodeURIComponent(namespace)}/${plural}`;
  });
}

export interface NamespaceProxy {
  /** A kubeconfig (no credentials) pointing at the gateway. */
  kubeconfigPath: string;
  close(): Promise<void>;
}

/** Sends `req`'s method and headers to `path` on the upstream API server, with its credentials. */
export function upstreamRequest(
  upstream: KubeConfig,
  req: Pick<IncomingMessage, 'headers' | 'method'>,
  path: string,
  onAnswer: (answer: IncomingMessage) => void,
): ClientRequest {
  const target = new URL(upstream.server);
  const headers = { ...req.headers, host: target.host };
  if (upstream.token) headers['authorization'] = `Bearer ${upstream.token}`;
  const common = {
    hostname: target.hostname,
    port: target.port,
    path,
    method: req.method,
    headers,
  };
  if (target.protocol === 'http:') return httpRequest(common, onAnswer);
  return httpsRequest(
    {
      ...common,
      rejectUnauthorized: !upstream.insecureSkipTlsVerify,
      ...(upstream.caPem ? { ca: upstream.caPem } : {}),
      ...(upstream.clientCertPem ? { cert: upstream.clientCertPem } : {}),
      ...(upstream.clientKeyPem ? { key: upstream.clientKeyPem } : {}),
      ...(upstream.tlsServerName ? { servername: upstream.tlsServerName } : {}),
    },
    onAnswer,
  );
}

/** Listens on loopback and writes DIR/<name>.kubeconfig (no credentials) pointing at `server`. */
export async function listenWithKubeconfig(
  server: Server,
  dir: string,
  name: string,
  namespace: string,
): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const kubeconfigPath = join(dir, `${name}.kubeconfig`);
  writeFileSync(
    kubeconfigPath,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: proxy, cluster: {server: "http://127.0.0.1:' + port + '"}}]',
      `contexts: [{name: proxy, context: {cluster: proxy, namespace: ${namespace}}}]`,
      'current-context: proxy',
      '',
    ].join('\n'),
  );
  return kubeconfigPath;
}

export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** The gateway for `namespaces` (the first names the kubeconfig's context). */
export async function startNamespaceProxy(
  upstream: KubeConfig,
  namespaces: readonly string[],
  dir: string,
): Promise<NamespaceProxy> {
  const namespace = namespaces[0] ?? '';
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    if (namespaces.length > 1 && req.method === 'GET' && isScoped(req.url ?? '/'))
      return fanOut(upstream, req, res, namespaces);
    const path = req.method === 'GET' ? scopePath(req.url ?? '/', namespace) : (req.url ?? '/');
    const out = upstreamRequest(upstream, req, path, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    // A SIGKILLed manager drops its sockets: end the upstream request (watch) with it.
    res.on('close', () => out.destroy());
    out.on('error', () => res.destroy());
    req.pipe(out);
  };
  const server = createServer(forward);
  const kubeconfigPath = await listenWithKubeconfig(server, dir, 'namespace-proxy', namespace);
  return { kubeconfigPath, close: () => closeServer(server) };
}

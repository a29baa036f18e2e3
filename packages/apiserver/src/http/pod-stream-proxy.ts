// PodStreams by proxy, as kube-apiserver serves pods/log, exec, attach and portforward: pick and
// check the container, then forward to the node's streaming server (kubelet's /containerLogs,
// /exec, /attach, /portForward); nodes/proxy/metrics goes to the node's /metrics. Upgrades are spliced byte for byte (kube's UpgradeAwareHandler):
// the node's 101 or error answer goes back to the client unchanged. The client's credentials
// never reach the node; the proxy presents the node's own token.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect, type Socket } from 'node:net';
import { Readable, type Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { badRequest, statusError } from '../errors.ts';
import type { KubeObject } from '../objects.ts';
import { isUpgradeRequest, upgradeResponse } from './upgrade.ts';
import type { PodStreams, PodStreamSubresource } from './verbs/pod-streams.ts';

/** Where a node serves its streaming API. */
export interface NodeStreamEndpoint {
  /** e.g. https://127.0.0.1:10250 */
  url: string;
  /** PEM CA that signed the node's serving certificate. @default the system's CAs */
  ca?: string;
  /** Bearer token the node's streaming server requires. */
  token?: string;
}

export interface NodeStreamProxyOptions {
  /** Finds the node's streaming endpoint; undefined means the node is unknown (503). */
  locate(
    nodeName: string,
  ): NodeStreamEndpoint | undefined | Promise<NodeStreamEndpoint | undefined>;
}

interface ContainerSpec {
  name?: string;
}

interface PodSpecShape {
  nodeName?: string;
  containers?: ContainerSpec[];
  initContainers?: ContainerSpec[];
  ephemeralContainers?: ContainerSpec[];
}

const names = (list: ContainerSpec[] | undefined): string[] =>
  (list ?? []).map((c) => c.name ?? '');

/**
 * The container a request means (kube-apiserver's pod strategy): the named one if the Pod has it,
 * else the only container; several without a name is a 400 listing the choices.
 */
export function resolveContainer(pod: KubeObject, requested: string | null): string {
  const spec = (pod['spec'] ?? {}) as PodSpecShape;
  const podName = pod.metadata.name ?? '';
  const containers = names(spec.containers);
  const init = names(spec.initContainers);
  const ephemeral = names(spec.ephemeralContainers);
  if (requested) {
    if ([...containers, ...init, ...ephemeral].includes(requested)) return requested;
    throw badRequest(`container ${requested} is not valid for pod ${podName}`);
  }
  if (containers.length === 1) return containers[0] as string;
  if (containers.length === 0) throw badRequest(`pod ${podName} does not have a container`);
  let message = `a container name must be specified for pod ${podName}, choose one of: [${containers.join(' ')}]`;
  if (init.length > 0) message += ` or one of the init containers: [${init.join(' ')}]`;
  if (ephemeral.length > 0)
    message += ` or one of the ephemeral containers: [${ephemeral.join(' ')}]`;
  throw badRequest(message);
}

const LOG_PARAMS = [
  'follow',
  'previous',
  'timestamps',
  'tailLines',
  'limitBytes',
  'sinceSeconds',
  'sinceTime',
];
const BOOL_FALSE = /^(0|false)$/i;

function flag(query: URLSearchParams, name: string): boolean {
  const v = query.get(name);
  return v !== null && !BOOL_FALSE.test(v);
}

/** The node URL path and query for one subresource request (kubelet's parameter names). */
export function nodeLocation(
  subresource: PodStreamSubresource,
  pod: KubeObject,
  query: URLSearchParams,
): string {
  const ns = encodeURIComponent(pod.metadata.namespace ?? '');
  const name = encodeURIComponent(pod.metadata.name ?? '');
  const uid = encodeURIComponent(pod.metadata.uid ?? '');
  const out = new URLSearchParams();
  if (subresource === 'portforward') {
    for (const p of query.getAll('ports')) out.append('ports', p);
    return `/portForward/${ns}/${name}/${uid}?${out}`;
  }
  const container = encodeURIComponent(resolveContainer(pod, query.get('container')));
  if (subresource === 'log') {
    for (const p of LOG_PARAMS) {
      const v = query.get(p);
      if (v !== null) out.set(p, v);
    }
    return `/containerLogs/${ns}/${name}/${container}?${out}`;
  }
  if (subresource === 'exec') for (const c of query.getAll('command')) out.append('command', c);
  // kube-apiserver's ExecLocation/AttachLocation write kubelet's names with "1" for true.
  for (const [from, to] of [
    ['stdin', 'input'],
    ['stdout', 'output'],
    ['stderr', 'error'],
    ['tty', 'tty'],
  ] as const)
    if (flag(query, from)) out.set(to, '1');
  return `/${subresource}/${ns}/${name}/${uid}/${container}?${out}`;
}

/** Request headers that must not be forwarded to the node. */
const HOP_HEADERS = new Set([
  'host',
  'authorization',
  'content-length',
  'transfer-encoding',
  'keep-alive',
]);

function dialNode(target: URL, endpoint: NodeStreamEndpoint): Socket {
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (target.protocol === 'https:')
    return tlsConnect({
      host,
      port,
      ...(endpoint.ca ? { ca: endpoint.ca } : {}),
      ...(/^[\d.:]+$/.test(host) ? {} : { servername: host }),
    });
  return netConnect({ host, port });
}

export class NodeStreamProxy implements PodStreams {
  constructor(readonly options: NodeStreamProxyOptions) {}

  async serve(
    subresource: PodStreamSubresource,
    pod: KubeObject,
    request: Request,
  ): Promise<Response> {
    const nodeName = ((pod['spec'] ?? {}) as PodSpecShape).nodeName ?? '';
    const url = new URL(request.url);
    const location = nodeLocation(subresource, pod, url.searchParams);
    const endpoint = await this.options.locate(nodeName);
    if (!endpoint)
      throw statusError(
        503,
        'ServiceUnavailable',
        `node ${nodeName} does not serve a streaming endpoint`,
      );
    const target = new URL(location, endpoint.url);
    if (subresource === 'log') return this.#get(target, endpoint, request.signal);
    if (!isUpgradeRequest(request)) throw badRequest('Upgrade request required');
    return upgradeResponse((socket, head) => this.#splice(socket, head, request, target, endpoint));
  }

  /** nodes/<name>/proxy/<path>: a GET of the node's own path with the node's token. */
  async proxyNode(nodeName: string, path: string, request: Request): Promise<Response> {
    const endpoint = await this.options.locate(nodeName);
    if (!endpoint)
      throw statusError(503, 'ServiceUnavailable', `node ${nodeName} does not serve its API`);
    const target = new URL(`/${path}${new URL(request.url).search}`, endpoint.url);
    return this.#get(target, endpoint, request.signal);
  }

  #get(target: URL, endpoint: NodeStreamEndpoint, signal: AbortSignal): Promise<Response> {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers: Record<string, string> = endpoint.token
      ? { Authorization: `Bearer ${endpoint.token}` }
      : {};
    return new Promise((resolve, reject) => {
      const req = send(
        target,
        { headers, ...(endpoint.ca ? { ca: endpoint.ca } : {}) },
        (res: IncomingMessage) => {
          signal.addEventListener('abort', () => res.destroy(), { once: true });
          const out = new Headers();
          const type = res.headers['content-type'];
          if (type) out.set('Content-Type', type);
          resolve(
            new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, {
              status: res.statusCode ?? 502,
              headers: out,
            }),
          );
        },
      );
      signal.addEventListener('abort', () => req.destroy(), { once: true });
      req.once('error', (err) =>
        reject(statusError(502, 'InternalError', `error dialing node: ${err.message}`)),
      );
      req.end();
    });
  }

  #splice(
    client: Duplex,
    head: Buffer,
    request: Request,
    target: URL,
    endpoint: NodeStreamEndpoint,
  ): void {
    const node = dialNode(target, endpoint);
    const lines = [
      `${request.method} ${target.pathname}${target.search} HTTP/1.1`,
      `Host: ${target.host}`,
    ];
    request.headers.forEach((value, name) => {
      if (!HOP_HEADERS.has(name)) lines.push(`${name}: ${value}`);
    });
    if (endpoint.token) lines.push(`Authorization: Bearer ${endpoint.token}`);
    node.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) node.write(head);
    const end = (): void => {
      client.destroy();
      node.destroy();
    };
    node.once('error', (err: Error) => {
      // Nothing was sent to the client yet if the dial itself failed: answer like a proxy would.
      if (client.writable && node.bytesRead === 0) {
        const body = JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `error dialing backend: ${err.message}`,
          reason: 'InternalError',
          code: 500,
        });
        client.end(
          `HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
        );
      } else end();
    });
    client.once('error', end);
    client.once('close', end);
    node.once('close', end);
    client.pipe(node);
    node.pipe(client);
  }
}

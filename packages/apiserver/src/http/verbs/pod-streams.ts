// The pods/log, exec, attach and portforward subresources (semantics doc §6.3–6.4). The API
// server only checks the Pod and hands the request to a `PodStreams` implementation — in the
// embedded mode, the node agent that runs the Pod (as kube-apiserver proxies to the kubelet).
import {
  badRequest,
  methodNotAllowed,
  notFound,
  statusError,
  type ApiError,
} from '../../errors.ts';
import type { KubeObject } from '../../objects.ts';
import { objectKey } from '../../resource-store.ts';
import type { Call, ServerParts } from '../context.ts';

export type PodStreamSubresource = 'log' | 'exec' | 'attach' | 'portforward';

/**
 * Serves the streaming subresources of Pods that have a node. `request` is the client's request
 * unchanged (including WebSocket upgrade headers for exec, attach and portforward); the returned
 * Response streams to the client. Implementations throw ApiError for kube-style failures.
 */
export interface PodStreams {
  serve(subresource: PodStreamSubresource, pod: KubeObject, request: Request): Promise<Response>;
  /**
   * Serves a GET of `nodes/<nodeName>/proxy/<path>` (`path` without its leading slash; the
   * query is the request's) from the node's own API, as kube-apiserver proxies to the kubelet.
   * Optional: absent, nodes/proxy answers 503.
   */
  proxyNode?(nodeName: string, path: string, request: Request): Promise<Response>;
}

/**
 * What nodes/proxy forwards: the node's metrics and health. The node's streaming endpoints
 * (exec, attach, port-forward) are not reached this way, so nodes/proxy never bypasses the
 * pods/exec RBAC check (kube forwards everything; ADR 0040).
 */
const NODE_PROXY_PATHS = /^(metrics(\/[a-z0-9_/-]*)?|healthz)$/;

export const POD_STREAM_SUBRESOURCES: ReadonlySet<string> = new Set([
  'log',
  'exec',
  'attach',
  'portforward',
]);

function unavailable(message: string): ApiError {
  return statusError(503, 'ServiceUnavailable', message);
}

function notFoundMessage(message: string): ApiError {
  return statusError(404, 'NotFound', message);
}

/** GET nodes/<name>/proxy/<path>: the Node must exist; only NODE_PROXY_PATHS are forwarded. */
export async function nodeProxy(
  parts: ServerParts,
  call: Call,
  streams: PodStreams | undefined,
): Promise<Response> {
  const { r, req } = call;
  const name = req.name ?? '';
  if (req.verb !== 'get') throw methodNotAllowed(req.verb, r);
  if (!parts.store.get(objectKey(r, undefined, name))) throw notFound(r, name);
  const path = req.proxyPath ?? '';
  if (!NODE_PROXY_PATHS.test(path))
    throw notFoundMessage(
      `the node proxy serves only /metrics and /healthz of node ${name}, not /${path}`,
    );
  if (!streams?.proxyNode) throw unavailable(`no node agent serves node ${name}`);
  return streams.proxyNode(name, path, call.http);
}

export async function podStream(
  parts: ServerParts,
  call: Call,
  streams: PodStreams | undefined,
): Promise<Response> {
  const { r, req } = call;
  const name = req.name ?? '';
  const stored = parts.store.get(objectKey(r, req.namespace, name));
  if (!stored) throw notFound(r, name);
  const pod = parts.codec.decode(r, stored, call.version);
  const nodeName = (pod['spec'] as { nodeName?: string } | undefined)?.nodeName;
  // kube-apiserver's message when it has no kubelet to talk to (pod/strategy.go).
  if (!nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  if (!streams)
    throw unavailable(
      `no node agent serves pod ${req.namespace ?? ''}/${name} on node ${nodeName}`,
    );
  return streams.serve(req.subresource as PodStreamSubresource, pod, call.http);
}

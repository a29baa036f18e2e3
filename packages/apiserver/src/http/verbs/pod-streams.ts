// The pods/log, exec, attach and portforward subresources (semantics doc §6.3–6.4). The API
// server only checks the Pod and hands the request to a `PodStreams` implementation — in the
// embedded mode, the node agent that runs the Pod (as kube-apiserver proxies to the kubelet).
import { badRequest, notFound, statusError, type ApiError } from '../../errors.ts';
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
}

export const POD_STREAM_SUBRESOURCES: ReadonlySet<string> = new Set([
  'log',
  'exec',
  'attach',
  'portforward',
]);

function unavailable(message: string): ApiError {
  return statusError(503, 'ServiceUnavailable', message);
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

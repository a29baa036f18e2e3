// The router's publication in `up` (ADR 0028), written by the composition root as the admin:
// the objects a cluster install would have (router-objects.ts) are writes of the node and the
// installer, not of the router, which runs under its own read-mostly identity (ADR 0027).
import {
  NAMESPACES,
  PODS,
  SERVICES,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type ResourceRef,
} from '@agent-sandbox/kube';
import { formatTime, type KubeObject } from '@agent-sandbox/kube-types';
import { NODES } from '@agent-sandbox/kubelet';
import {
  ROUTER_NAMESPACE,
  ROUTER_POD,
  routerEndpoints,
  routerMirrorPod,
  routerNamespace,
  routerPodStatus,
  routerService,
  type RouterPublication,
} from './router-objects.ts';

const ENDPOINTS: ResourceRef = {
  group: '',
  version: 'v1',
  plural: 'endpoints',
  kind: 'Endpoints',
  namespaced: true,
};

/**
 * Publishes the router listening on `port` on node `nodeName`: the namespace, Service, mirror Pod
 * (Running) and Endpoints. Idempotent; a previous run's Pod is replaced (its port may differ).
 */
export async function publishRouter(
  client: KubeClient,
  nodeName: string,
  port: number,
): Promise<void> {
  const node = await client.get<KubeObject & { status?: NodeStatusShape }>(
    NODES,
    undefined,
    nodeName,
  );
  const p: RouterPublication = {
    port,
    nodeName,
    nodeUid: node.metadata.uid ?? '',
    nodeIp: node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address ?? '127.0.0.1',
    now: formatTime(new Date()),
  };
  await createOrKeep(client, NAMESPACES, routerNamespace());
  await client.patch(NAMESPACES, undefined, ROUTER_NAMESPACE, {
    type: 'merge',
    body: { metadata: { labels: routerNamespace().metadata.labels } },
  });
  // The allocated clusterIP stays; selector and ports are ours.
  await upsert(client, SERVICES, routerService(), (old, want) => {
    const spec = (o: KubeObject) => (o as { spec?: object }).spec;
    return {
      ...old,
      metadata: { ...old.metadata, labels: want.metadata.labels },
      spec: { ...spec(old), ...spec(want) },
    } as KubeObject;
  });
  // A Pod's containers are immutable and a previous run may have had another port: replace it.
  await client
    .delete(PODS, ROUTER_NAMESPACE, ROUTER_POD, { gracePeriodSeconds: 0 })
    .catch((e: unknown) => {
      if (!isNotFound(e)) throw e;
    });
  const pod = await createReplacing(client, routerMirrorPod(p));
  await client.updateStatus(PODS, { ...pod, status: routerPodStatus(p) } as KubeObject);
  await upsert(client, ENDPOINTS, routerEndpoints(p, pod.metadata.uid ?? ''), (old, want) => ({
    ...want,
    metadata: { ...old.metadata, labels: want.metadata.labels },
  }));
}

interface NodeStatusShape {
  addresses?: { type: string; address: string }[];
}

/** Creates the Pod, waiting out a deletion of the previous one that is still finishing. */
async function createReplacing(client: KubeClient, pod: KubeObject): Promise<KubeObject> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await client.create(PODS, pod);
    } catch (e: unknown) {
      if (!isAlreadyExists(e) || attempt >= 50) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function createOrKeep(client: KubeClient, ref: ResourceRef, obj: KubeObject): Promise<void> {
  await client.create(ref, obj).catch((e: unknown) => {
    if (!isAlreadyExists(e)) throw e;
  });
}

async function upsert(
  client: KubeClient,
  ref: ResourceRef,
  want: KubeObject,
  merge: (old: KubeObject, want: KubeObject) => KubeObject,
): Promise<void> {
  const ns = want.metadata.namespace;
  const name = want.metadata.name ?? '';
  const old = await client.get(ref, ns, name).catch((e: unknown) => {
    if (isNotFound(e)) return undefined;
    throw e;
  });
  if (!old) await client.create(ref, want);
  else await client.update(ref, merge(old, want));
}

/** The mirror Pod goes with the process it shows, so port-forward fails clearly. Never rejects. */
export async function unpublishRouter(client: KubeClient): Promise<void> {
  await client
    .delete(PODS, ROUTER_NAMESPACE, ROUTER_POD, { gracePeriodSeconds: 0 })
    .catch(() => undefined);
}

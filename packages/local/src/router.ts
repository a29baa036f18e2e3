// The sandbox router as a component of the embedded mode (ADR 0028): it runs in this process on
// loopback with the Pod IP cache and wake-on-request on, its URL is the `router` endpoint, and with a node it is
// published as cluster installs publish it (router-objects.ts), so the Python SDK's default mode
// — `kubectl port-forward svc/sandbox-router-svc -n agent-sandbox-system` — reaches it: the API
// server forwards to the node's streaming server, which dials the mirror Pod's port in the host's
// network namespace (hostNetworkPods below), where the router listens.
import {
  KubeClient,
  NAMESPACES,
  PODS,
  SERVICES,
  isAlreadyExists,
  isNotFound,
  type ResourceRef,
} from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { NODES, type PodContainers, type PodRef } from '@agent-sandbox/kubelet';
import { startRouter, type AccessLogEntry, type RunningRouter } from '@agent-sandbox/router';
import type { Component } from './component.ts';
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

export interface EmbeddedRouterOptions {
  /** Proxy listener. @default { host: '127.0.0.1', port: 0 } (a free port) */
  proxy?: { host: string; port: number };
  /** Publish the mirror Pod, Service and Endpoints on this node; absent: the URL only. */
  nodeName?: string;
  /** Per-sandbox host names `<port>-<sandbox>.<namespace>.<domain>`. */
  sandboxDomain?: string;
  /** Wake-on-request: how long a request for a suspended Sandbox waits for it. @default 60_000 */
  wakeTimeoutMs?: number;
  accessLog?: (entry: AccessLogEntry) => void;
}

export function routerComponent(o: EmbeddedRouterOptions = {}): Component {
  return {
    name: 'router',
    async start(ctx) {
      const client = new KubeClient({ config: ctx.apiServer.kubeConfig });
      let router: RunningRouter | undefined;
      try {
        router = await startRouter({
          proxy: o.proxy ?? { host: '127.0.0.1', port: 0 },
          client,
          cacheEnabled: true,
          wakeTimeoutMs: o.wakeTimeoutMs ?? 60_000,
          ...(o.sandboxDomain ? { sandboxDomain: o.sandboxDomain } : {}),
          ...(o.accessLog ? { accessLog: o.accessLog } : {}),
        });
        if (o.nodeName) await publish(client, o.nodeName, Number(new URL(router.proxyUrl).port));
      } catch (err: unknown) {
        await router?.close();
        await client.close();
        throw err;
      }
      const running = router;
      let stopped: () => void = () => undefined;
      const done = new Promise<void>((r) => (stopped = r));
      let stopping: Promise<void> | undefined;
      return {
        done,
        endpoints: {
          router: running.proxyUrl,
          ...(o.sandboxDomain ? { sandboxDomain: o.sandboxDomain } : {}),
        },
        stop: () =>
          (stopping ??= (async () => {
            // The mirror Pod goes with the process it shows, so port-forward fails clearly.
            if (o.nodeName)
              await client
                .delete(PODS, ROUTER_NAMESPACE, ROUTER_POD, { gracePeriodSeconds: 0 })
                .catch(() => undefined);
            await running.close();
            await client.close();
            stopped();
          })()),
      };
    },
  };
}

async function publish(client: KubeClient, nodeName: string, port: number): Promise<void> {
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
    now: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
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

const isRouterPod = (p: PodRef) => p.namespace === ROUTER_NAMESPACE && p.name === ROUTER_POD;

/**
 * The node's pods as the streaming server sees them, plus the router's mirror Pod: it uses the
 * host network, so port-forward dials the port in this process's network namespace, where the
 * router listens (kubelet's port-forward to a hostNetwork Pod does the same).
 */
export function hostNetworkPods(containers: PodContainers): PodContainers {
  return {
    execCommand: (pod, container, argv, opts) => containers.execCommand(pod, container, argv, opts),
    logPath: (pod, container, opts) => containers.logPath(pod, container, opts),
    attach: (pod, container) => containers.attach(pod, container),
    netnsPath: (pod) =>
      isRouterPod(pod) ? `/proc/${process.pid}/ns/net` : containers.netnsPath(pod),
  };
}

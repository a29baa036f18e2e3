// The sandbox router as a component of the embedded mode (ADR 0028): it runs in this process on
// loopback with the Pod IP cache and wake-on-request on, under its own user (ADR 0027), and its
// URL is the `router` endpoint. With a node the composition root publishes it as cluster
// installs do (router-publication.ts), so the Python SDK's default mode — `kubectl port-forward
// svc/sandbox-router-svc -n agent-sandbox-system` — reaches it: the API server forwards to the
// node's streaming server, which dials the mirror Pod's port in the host's network namespace
// (hostNetworkPods below), where the router listens.
import { KubeClient } from '@agent-sandbox/kube';
import type { PodContainers, PodRef } from '@agent-sandbox/kubelet';
import { startRouter, type AccessLogEntry, type RunningRouter } from '@agent-sandbox/router';
import type { Component } from './component.ts';
import { routerIdentity } from './identities.ts';
import { ROUTER_NAMESPACE, ROUTER_POD } from './router-objects.ts';

export interface EmbeddedRouterOptions {
  /** Proxy listener. @default { host: '127.0.0.1', port: 0 } (a free port) */
  proxy?: { host: string; port: number };
  /**
   * Publish the mirror Pod, Service and Endpoints on this node (the composition root does, as
   * the admin: router-publication.ts); absent: the URL only.
   */
  nodeName?: string;
  /** Per-sandbox host names `<port>-<sandbox>.<namespace>.<domain>`. */
  sandboxDomain?: string;
  /** Wake-on-request: how long a request for a suspended Sandbox waits for it. @default 60_000 */
  wakeTimeoutMs?: number;
  accessLog?: (entry: AccessLogEntry) => void;
  /** Requests the router failed (its error boundary, a dead backend). @default not logged */
  log?: (msg: string, fields: Record<string, unknown>) => void;
}

export function routerComponent(o: EmbeddedRouterOptions = {}): Component {
  return {
    name: 'router',
    identity: routerIdentity(),
    async start(ctx) {
      const client = new KubeClient({
        config: ctx.apiServer.kubeConfig,
        fetch: ctx.apiServer.fetch,
      });
      let router: RunningRouter | undefined;
      try {
        router = await startRouter({
          proxy: o.proxy ?? { host: '127.0.0.1', port: 0 },
          client,
          cacheEnabled: true,
          wakeTimeoutMs: o.wakeTimeoutMs ?? 60_000,
          ...(o.sandboxDomain ? { sandboxDomain: o.sandboxDomain } : {}),
          ...(o.accessLog ? { accessLog: o.accessLog } : {}),
          ...(o.log ? { log: o.log } : {}),
        });
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
            await running.close();
            await client.close();
            stopped();
          })()),
      };
    },
  };
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
    daemonExec: async (pod, container, argv, own) =>
      containers.daemonExec?.(pod, container, argv, own),
    runtimeHandler: (pod) => containers.runtimeHandler?.(pod) ?? 'unknown',
    netnsPath: (pod) =>
      isRouterPod(pod) ? `/proc/${process.pid}/ns/net` : containers.netnsPath(pod),
  };
}

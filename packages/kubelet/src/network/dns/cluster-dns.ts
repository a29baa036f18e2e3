// The node's cluster DNS: Services and Pods watched from the API (informer caches, so a query
// never waits on the API) and the UDP responder on the bridge address that Pods get as their
// nameserver.
import type { KubeObject, Pod, Service } from '@agent-sandbox/kube-types';
import { Informer, PODS, SERVICES, type KubeClient } from '@agent-sandbox/kube';
import { answerClusterName } from './cluster-records.ts';
import { startDnsServer } from './dns-server.ts';

export interface ClusterDnsOptions {
  client: KubeClient;
  /** Listen address (the bridge gateway). */
  host: string;
  /** @default 53 */
  port?: number;
  /** @default 'cluster.local' */
  domain?: string;
  /** The host's resolver for names outside the cluster domain; absent → REFUSED. */
  upstream?: string;
}

export interface ClusterDnsHandle {
  port: number;
  /** Stops the watches and the responder. Never rejects. */
  stop(): Promise<void>;
}

/**
 * Contract: resolves once the responder listens (answers may lag the API by a watch event);
 * rejects with KubeletError `Network` when the address cannot be bound.
 */
export async function startClusterDns(o: ClusterDnsOptions): Promise<ClusterDnsHandle> {
  const domain = o.domain ?? 'cluster.local';
  const abort = new AbortController();
  const services = new Informer<Service & KubeObject>({ client: o.client, resource: SERVICES });
  const pods = new Informer<Pod & KubeObject>({ client: o.client, resource: PODS });
  const runs = [services.run(abort.signal), pods.run(abort.signal)];
  const server = await startDnsServer({
    host: o.host,
    ...(o.port !== undefined ? { port: o.port } : {}),
    domain,
    ...(o.upstream !== undefined ? { upstream: o.upstream } : {}),
    answer: (name, type) =>
      answerClusterName(
        name,
        type,
        { services: services.cache.list(), pods: pods.cache.list() },
        domain,
      ),
  }).catch((err: unknown) => {
    abort.abort();
    throw err;
  });
  return {
    port: server.port,
    async stop() {
      abort.abort();
      await Promise.all(runs);
      await server.close().catch(() => undefined);
    },
  };
}

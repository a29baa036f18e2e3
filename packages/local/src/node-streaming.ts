// The embedded node's streaming server (kubelet's :10250) on loopback: its own CA and serving
// certificate under <dataDir>/pki, a fresh bearer token per run that only the in-process API
// server knows, and the endpoint registered with the API server's pod stream proxy. It serves
// the exec metrics (path daemon | runtime, per runtime) on /metrics with that token.
import { ensureCertificates } from '@agent-sandbox/apiserver';
import {
  ExecMetrics,
  podContainersBackend,
  startStreamingServer,
  type NodeLogger,
  type PodContainers,
} from '@agent-sandbox/kubelet';
import { randomBytes } from 'node:crypto';
import type { NodeStreamRegistry } from './node-streams.ts';

export interface NodeStreaming {
  url: string;
  /** Unregisters and closes every session. Never rejects. */
  stop(): Promise<void>;
}

export async function startNodeStreaming(
  containers: PodContainers,
  o: { nodeName: string; pkiDir: string; registry: NodeStreamRegistry; log?: NodeLogger },
): Promise<NodeStreaming> {
  const certs = await ensureCertificates({ dir: o.pkiDir });
  const token = randomBytes(32).toString('base64url');
  const metrics = new ExecMetrics();
  const server = await startStreamingServer({
    backend: podContainersBackend(containers, {
      // path: daemon (a fork by the in-sandbox daemon, ADR 0037) or runtime (runc/runsc exec).
      onExec: (e) => {
        metrics.observe(e);
        const fields = {
          pod: `${e.target.namespace}/${e.target.pod}`,
          container: e.target.container,
          path: e.path,
          runtime: e.runtime,
        };
        o.log?.info({ ...fields, startMs: Math.round(e.startMs * 10) / 10 }, 'exec');
        // A signal on the node's own exec process (bwrap, nsenter, runc exec) is the node's doing
        // or the kernel's, never the command's: worth a line of its own.
        void e.exited.then((exit) => {
          if ('signal' in exit && exit.signal)
            o.log?.warn({ ...fields, exitCode: exit.exitCode, signal: exit.signal }, 'exec killed');
        });
      },
    }),
    tls: { cert: certs.cert, key: certs.key },
    token,
    metrics: metrics.registry,
  });
  const unregister = o.registry.register(o.nodeName, { url: server.url, ca: certs.caCert, token });
  return {
    url: server.url,
    async stop() {
      unregister();
      await server.close().catch(() => undefined);
    },
  };
}

// The node agent as a component of the embedded mode: runc (default) and gVisor where the
// machine runs them, the loopback pod network until the bridge network lands, images and pod
// state under <dataDir>/node, and a RuntimeClass per runtime this machine supports.
import {
  ImageService,
  ImageStore,
  LoopbackPodNetwork,
  NodeAgent,
  RegistryClient,
  RUNTIME_CLASSES,
  hostNodeFacts,
  runcRuntime,
  runscRuntime,
  type NodeLogger,
} from '@agent-sandbox/kubelet';
import { KubeClient, isAlreadyExists } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { join } from 'node:path';
import type { Component } from './component.ts';

export interface EmbeddedNodeAgentOptions {
  /** Node name (the CLI passes the host name). */
  nodeName: string;
  /** Holds images/, pods/, logs/, claims/ and the runtimes' state. */
  dataDir: string;
  log?: NodeLogger;
}

/** RuntimeClass name → handler, for the handlers this node can run. */
export const RUNTIME_CLASS_NAMES: Record<string, string> = { runc: 'runc', runsc: 'gvisor' };

export function nodeAgentComponent(o: EmbeddedNodeAgentOptions): Component {
  return {
    name: 'kubelet',
    async start(ctx) {
      const client = new KubeClient({ config: ctx.apiServer.kubeConfig });
      const dir = o.dataDir;
      const agent = new NodeAgent({
        client,
        facts: hostNodeFacts(o.nodeName),
        runtimes: [runcRuntime(join(dir, 'runc')), runscRuntime(join(dir, 'runsc'))],
        network: new LoopbackPodNetwork(),
        images: new ImageService(new ImageStore(join(dir, 'images')), new RegistryClient()),
        dataDir: dir,
        ...(o.log ? { log: o.log } : {}),
      });
      await agent.start();
      for (const handler of agent.handlers) {
        const name = RUNTIME_CLASS_NAMES[handler] ?? handler;
        const rc = {
          apiVersion: 'node.k8s.io/v1',
          kind: 'RuntimeClass',
          metadata: { name },
          handler,
        };
        await client.create(RUNTIME_CLASSES, rc as KubeObject).catch((e: unknown) => {
          if (!isAlreadyExists(e)) throw e;
        });
      }
      let stopped: () => void = () => undefined;
      const done = new Promise<void>((r) => (stopped = r));
      return {
        done,
        stop: async () => {
          await agent.stop();
          stopped();
        },
      };
    },
  };
}

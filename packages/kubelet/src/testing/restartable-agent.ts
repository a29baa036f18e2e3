// A runc node agent on state a test names, built alike in a process of its own (agent-child.ts,
// which a test SIGKILLs: no cleanup at all) and in the test (its successor on the same state).
import { KubeClient, kubeConfigFromFile } from '@agent-sandbox/kube';
import { join } from 'node:path';
import { ImageService } from '../images/image-service.ts';
import { ImageStore } from '../images/image-store.ts';
import { RegistryClient } from '../images/registry-client.ts';
import { LoopbackPodNetwork } from '../network/loopback-network.ts';
import { runcRuntime } from '../runtime/runc-runtime.ts';
import { hostNodeFacts } from '../node/host-facts.ts';
import { NodeAgent } from '../node/node-agent.ts';

export interface AgentChildOptions {
  kubeconfig: string;
  /** Holds images/, runc/ and node/ (the agent's data dir). */
  dir: string;
  nodeName: string;
  cgroupParent: string;
  netnsPrefix: string;
}

/** The agent both the child and the test's successor build: same state, same names. */
export function restartableAgent(o: AgentChildOptions): NodeAgent {
  return new NodeAgent({
    client: new KubeClient({ config: kubeConfigFromFile(o.kubeconfig) }),
    facts: hostNodeFacts(o.nodeName),
    runtimes: [runcRuntime(join(o.dir, 'runc'))],
    cgroupParent: o.cgroupParent,
    network: new LoopbackPodNetwork({ prefix: o.netnsPrefix }),
    images: new ImageService(new ImageStore(join(o.dir, 'images')), new RegistryClient()),
    dataDir: join(o.dir, 'node'),
    backoffBaseMs: 200,
  });
}

// Where each node of the embedded mode serves its streaming API (kubelet's :10250), for the API
// server's NodeStreamProxy. The node agent registers its endpoint once its streaming server
// listens; until then (or after it stops) pods/exec, attach, portforward and log answer 503.
import type { NodeStreamEndpoint } from '@agent-sandbox/apiserver';

/**
 * Contract: `register()` replaces any endpoint the node had and returns an unregister function
 * that removes this registration only (a newer one stays). `locate()` never throws.
 */
export interface NodeStreamRegistry {
  register(nodeName: string, endpoint: NodeStreamEndpoint): () => void;
}

export class NodeStreamDirectory implements NodeStreamRegistry {
  readonly #endpoints = new Map<string, NodeStreamEndpoint>();

  register(nodeName: string, endpoint: NodeStreamEndpoint): () => void {
    this.#endpoints.set(nodeName, endpoint);
    return () => {
      if (this.#endpoints.get(nodeName) === endpoint) this.#endpoints.delete(nodeName);
    };
  }

  locate = (nodeName: string): NodeStreamEndpoint | undefined => this.#endpoints.get(nodeName);
}

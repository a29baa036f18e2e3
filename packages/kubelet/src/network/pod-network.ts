// The seam between the node agent and pod networking. kubelet-io implements the real one
// (bridge, veth, IPAM, DNS, NetworkPolicy); LoopbackPodNetwork is the fallback until it lands.

/** What a network implementation may know about a pod. */
export interface PodNetworkTarget {
  namespace: string;
  name: string;
  uid: string;
  labels: Record<string, string>;
  /** The pod's hostname (spec.hostname or the pod name). */
  hostname: string;
}

export interface PodNetworkStatus {
  /** A network namespace file that containers join (`linux.namespaces[].path`). */
  netnsPath: string;
  /** Pod IPs, node family first; empty when the pod only has loopback. */
  ips: string[];
  /** Written into the pod's /etc/resolv.conf; absent → no resolv.conf is provided. */
  dns?: { nameservers: string[]; searches: string[]; options: string[] };
  /** Extra /etc/hosts lines (`<ip> <names...>`), after localhost and the pod's own entry. */
  hostAliases?: string[];
}

/**
 * Contract:
 * - `setUp()` is idempotent: for a pod uid that is already set up it returns the same status
 *   (this is how the agent re-adopts pods after a restart). It rejects with KubeletError code
 *   `Network` and a message naming the cause when the pod cannot get a network.
 * - `tearDown()` is idempotent and never rejects for a pod it does not know.
 * - `list()` returns the uids of pods that currently hold network resources (GC after restarts,
 *   leak checks).
 * - `mode` is shown to users (`bridge`, `loopback`); a degraded mode must say so.
 * - `prepare()`, when present, may start making resources ahead for Pods to come; the agent calls
 *   it once it removed what a previous run left, and `drain()` when it stops: after it, nothing
 *   made ahead is left on the host.
 * - `idle()`, when present, hears that no Pod start is under way on the node: a time to make
 *   resources ahead without slowing a start.
 */
export interface PodNetwork {
  readonly mode: string;
  prepare?(): void;
  drain?(): Promise<void>;
  idle?(): void;
  setUp(pod: PodNetworkTarget): Promise<PodNetworkStatus>;
  tearDown(pod: Pick<PodNetworkTarget, 'uid'>): Promise<void>;
  list(): Promise<string[]>;
}

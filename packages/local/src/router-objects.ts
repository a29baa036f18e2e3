// The API objects that publish the in-process router the way a cluster publishes upstream's
// sandbox-router, so `kubectl port-forward svc/sandbox-router-svc -n agent-sandbox-system` (the
// Python SDK's default connection mode) finds it: the namespace, the Service (port 8080 → the
// container port named `proxy`), a mirror Pod on this node with hostNetwork (kubelet's way of
// showing a process it runs outside the API, a static pod) and the Endpoints the endpoints
// controller would derive. Pure: what to write, from the router's port and the Node.
import type { KubeObject } from '@agent-sandbox/kube-types';

export const ROUTER_NAMESPACE = 'agent-sandbox-system';
export const ROUTER_SERVICE = 'sandbox-router-svc';
export const ROUTER_POD = 'sandbox-router';
/** The Service port the SDK forwards to (upstream's manifest). */
export const ROUTER_SERVICE_PORT = 8080;
/** kubelet's mark of a mirror pod: the node agent never runs such a Pod from the API. */
export const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
const LABELS = { app: 'sandbox-router', 'app.kubernetes.io/part-of': 'agent-sandbox' };

export interface RouterPublication {
  /** The port the in-process router's proxy listens on (loopback). */
  port: number;
  nodeName: string;
  nodeUid: string;
  /** The node's InternalIP: a hostNetwork Pod's IP is its node's. */
  nodeIp: string;
  /** RFC 3339, for startTime and the conditions. */
  now: string;
}

/** A system namespace: the mirror Pod uses the host network, which baseline Pod Security refuses. */
export function routerNamespace(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: ROUTER_NAMESPACE,
      labels: { 'pod-security.kubernetes.io/enforce': 'privileged' },
    },
  };
}

export function routerService(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: ROUTER_SERVICE, namespace: ROUTER_NAMESPACE, labels: LABELS },
    spec: {
      type: 'ClusterIP',
      selector: { app: LABELS.app },
      ports: [{ name: 'http', port: ROUTER_SERVICE_PORT, targetPort: 'proxy', protocol: 'TCP' }],
    },
  } as KubeObject;
}

export function routerMirrorPod(p: RouterPublication): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: ROUTER_POD,
      namespace: ROUTER_NAMESPACE,
      labels: LABELS,
      annotations: {
        [MIRROR_ANNOTATION]: `in-process:${p.port}`,
        'kubernetes.io/config.source': 'agent-sandbox up',
      },
      ownerReferences: [
        { apiVersion: 'v1', kind: 'Node', name: p.nodeName, uid: p.nodeUid, controller: true },
      ],
    },
    spec: {
      nodeName: p.nodeName,
      hostNetwork: true,
      containers: [
        {
          name: 'router',
          // Never pulled: the router runs inside `agent-sandbox up` itself.
          image: 'agent-sandbox/router:in-process',
          ports: [{ name: 'proxy', containerPort: p.port, protocol: 'TCP' }],
        },
      ],
    },
  } as KubeObject;
}

/** Running and Ready, as kubelet reports a static pod's mirror. */
export function routerPodStatus(p: RouterPublication): Record<string, unknown> {
  const cond = (type: string) => ({ type, status: 'True', lastTransitionTime: p.now });
  return {
    phase: 'Running',
    hostIP: p.nodeIp,
    hostIPs: [{ ip: p.nodeIp }],
    podIP: p.nodeIp,
    podIPs: [{ ip: p.nodeIp }],
    startTime: p.now,
    conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map(cond),
    containerStatuses: [
      {
        name: 'router',
        image: 'agent-sandbox/router:in-process',
        imageID: '',
        containerID: `in-process://router-${p.port}`,
        ready: true,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: p.now } },
      },
    ],
  };
}

/** What the endpoints controller derives from the Service and the Ready mirror Pod. */
export function routerEndpoints(p: RouterPublication, podUid: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: ROUTER_SERVICE, namespace: ROUTER_NAMESPACE, labels: LABELS },
    subsets: [
      {
        addresses: [
          {
            ip: p.nodeIp,
            nodeName: p.nodeName,
            targetRef: { kind: 'Pod', namespace: ROUTER_NAMESPACE, name: ROUTER_POD, uid: podUid },
          },
        ],
        ports: [{ name: 'http', port: p.port, protocol: 'TCP' }],
      },
    ],
  } as KubeObject;
}

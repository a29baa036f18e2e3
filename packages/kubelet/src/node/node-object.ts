// The Node object and its Lease as a kubelet writes them (kubelet-and-oci §1.8): pure.
import type { KubeObject } from '@agent-sandbox/kube-types';

export interface NodeFacts {
  name: string;
  ip: string;
  cpus: number;
  memoryBytes: number;
  kernelVersion: string;
  osImage: string;
  machineID: string;
  bootID: string;
  /** `<runtime>://<version>` of the default runtime. */
  containerRuntimeVersion: string;
  /** Handlers this node can run (`runc`, `runsc`, `bwrap`), shown as node.k8s.io labels. */
  handlers: string[];
  kubeletVersion: string;
}

export interface NodeObject extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

export function nodeArch(): string {
  return process.arch === 'x64' ? 'amd64' : process.arch;
}

export function desiredNode(f: NodeFacts): NodeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: f.name,
      labels: {
        'kubernetes.io/hostname': f.name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': nodeArch(),
        'beta.kubernetes.io/os': 'linux',
        'beta.kubernetes.io/arch': nodeArch(),
        ...Object.fromEntries(f.handlers.map((h) => [`runtime.agent-sandbox.dev/${h}`, 'true'])),
      },
    },
    spec: {},
  };
}

function condition(type: string, status: string, reason: string, message: string, now: string) {
  return { type, status, reason, message, lastHeartbeatTime: now, lastTransitionTime: now };
}

export function nodeStatus(
  f: NodeFacts,
  now: string,
  previous?: Record<string, unknown>,
): Record<string, unknown> {
  const memKi = `${Math.floor(f.memoryBytes / 1024)}Ki`;
  const allocKi = `${Math.max(0, Math.floor((f.memoryBytes - 100 * 2 ** 20) / 1024))}Ki`;
  const prev = (previous?.['conditions'] ?? []) as {
    type: string;
    status: string;
    lastTransitionTime?: string;
  }[];
  const keep = (c: ReturnType<typeof condition>) => {
    const old = prev.find((p) => p.type === c.type);
    return old && old.status === c.status && old.lastTransitionTime
      ? { ...c, lastTransitionTime: old.lastTransitionTime }
      : c;
  };
  return {
    capacity: {
      cpu: String(f.cpus),
      memory: memKi,
      pods: '110',
      'ephemeral-storage': '0',
      'hugepages-2Mi': '0',
      'hugepages-1Gi': '0',
    },
    allocatable: {
      cpu: String(f.cpus),
      memory: allocKi,
      pods: '110',
      'ephemeral-storage': '0',
      'hugepages-2Mi': '0',
      'hugepages-1Gi': '0',
    },
    conditions: [
      condition(
        'MemoryPressure',
        'False',
        'KubeletHasSufficientMemory',
        'kubelet has sufficient memory available',
        now,
      ),
      condition(
        'DiskPressure',
        'False',
        'KubeletHasNoDiskPressure',
        'kubelet has no disk pressure',
        now,
      ),
      condition(
        'PIDPressure',
        'False',
        'KubeletHasSufficientPID',
        'kubelet has sufficient PID available',
        now,
      ),
      condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status', now),
    ].map(keep),
    addresses: [
      { type: 'InternalIP', address: f.ip },
      { type: 'Hostname', address: f.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
    nodeInfo: {
      machineID: f.machineID,
      systemUUID: f.machineID,
      bootID: f.bootID,
      kernelVersion: f.kernelVersion,
      osImage: f.osImage,
      containerRuntimeVersion: f.containerRuntimeVersion,
      kubeletVersion: f.kubeletVersion,
      kubeProxyVersion: '',
      operatingSystem: 'linux',
      architecture: nodeArch(),
    },
  };
}

export function desiredLease(
  nodeName: string,
  nodeUid: string,
  renewTime: string,
): KubeObject & { spec: Record<string, unknown> } {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: nodeName,
      namespace: 'kube-node-lease',
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: nodeUid }],
    },
    spec: { holderIdentity: nodeName, leaseDurationSeconds: 40, renewTime },
  };
}

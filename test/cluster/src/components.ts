import { join } from 'node:path';
import type { Ports } from './options.ts';
import type { PkiFiles } from './pki.ts';
import type { StatePaths } from './state.ts';

/** One control-plane process: how to start it and how to tell that it is ready. */
export interface ComponentSpec {
  name: 'etcd' | 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler' | 'kwok';
  binary: string;
  args: string[];
  /** Polled until it answers 200; https probes skip verification or use the admin cert. */
  healthUrl: string;
}

export interface ComponentInputs {
  binDir: string;
  ports: Ports;
  paths: StatePaths;
  pki: PkiFiles;
  /** test/cluster/kwok-stages.yaml */
  kwokStages: string;
}

const loopback = (port: number, scheme = 'http') => `${scheme}://127.0.0.1:${port}`;

/** KCM controllers: the minimum plus what ordinary workloads and our controllers use. */
export const CONTROLLERS = [
  'garbage-collector-controller',
  'namespace-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'root-ca-certificate-publisher-controller',
  // Removes the not-ready taint TaintNodesByCondition puts on every new Node; without it every
  // pod stays Pending (recipe §4).
  'node-lifecycle-controller',
  'pod-garbage-collector-controller',
  'endpointslice-controller',
  // Without them a deleted PVC keeps its kubernetes.io/pvc-protection finalizer forever and its
  // namespace never finishes terminating.
  'persistentvolumeclaim-protection-controller',
  'persistentvolume-protection-controller',
  'deployment-controller',
  'replicaset-controller',
  'statefulset-controller',
  'job-controller',
  // Fills aggregated ClusterRoles (admin, edit, view and their aggregate-to-* parts) from their
  // aggregationRule; without it `view` has no rules and RBAC cases cannot compare.
  'clusterrole-aggregation-controller',
  // taint-eviction-controller is left out on purpose: a paused VM makes leases look expired and
  // it would then evict every pod (recipe §7).
];

/** Start order; `down` stops them in reverse. */
export function componentSpecs(input: ComponentInputs): ComponentSpec[] {
  const { binDir, ports, paths, pki } = input;
  const bin = (name: string) => join(binDir, name);
  const etcdUrl = loopback(ports.etcdClient);
  const peerUrl = loopback(ports.etcdPeer);
  return [
    {
      name: 'etcd',
      binary: bin('etcd'),
      args: [
        '--name=h0',
        `--data-dir=${paths.etcdData}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=h0=${peerUrl}`,
        // Throwaway data: durability buys nothing, and every apiserver write waits on fsync.
        '--unsafe-no-fsync=true',
        '--quota-backend-bytes=8589934592',
        '--auto-compaction-mode=periodic',
        '--auto-compaction-retention=1h',
        '--log-level=warn',
      ],
      healthUrl: `${etcdUrl}/health`,
    },
    {
      name: 'kube-apiserver',
      binary: bin('kube-apiserver'),
      args: [
        `--etcd-servers=${etcdUrl}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${ports.apiserver}`,
        // Loopback only: the default would advertise the primary interface address. Endpoint
        // validation rejects loopback, so the `kubernetes` Endpoints reconciler must be off.
        '--advertise-address=127.0.0.1',
        '--endpoint-reconciler-type=none',
        `--tls-cert-file=${pki.servingCert}`,
        `--tls-private-key-file=${pki.servingKey}`,
        `--client-ca-file=${pki.caCert}`,
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-signing-key-file=${pki.saKey}`,
        `--service-account-key-file=${pki.saPub}`,
        '--service-cluster-ip-range=10.96.0.0/12',
        '--authorization-mode=RBAC',
        '--allow-privileged=true',
        // Benchmarks: the agent-sandbox kwok presubmit's in-flight limits (recipe §3.4).
        '--max-requests-inflight=2000',
        '--max-mutating-requests-inflight=1000',
        '--profiling=false',
      ],
      healthUrl: `${loopback(ports.apiserver, 'https')}/readyz`,
    },
    {
      name: 'kube-controller-manager',
      binary: bin('kube-controller-manager'),
      args: [
        `--kubeconfig=${paths.kubeconfig}`,
        '--leader-elect=false',
        '--bind-address=127.0.0.1',
        `--secure-port=${ports.controllerManager}`,
        `--service-account-private-key-file=${pki.saKey}`,
        `--root-ca-file=${pki.caCert}`,
        '--use-service-account-credentials=false',
        `--controllers=${CONTROLLERS.join(',')}`,
        '--kube-api-qps=500',
        '--kube-api-burst=1000',
      ],
      healthUrl: `${loopback(ports.controllerManager, 'https')}/healthz`,
    },
    {
      name: 'kube-scheduler',
      binary: bin('kube-scheduler'),
      args: [
        `--config=${join(paths.config, 'scheduler.yaml')}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${ports.scheduler}`,
      ],
      healthUrl: `${loopback(ports.scheduler, 'https')}/healthz`,
    },
    {
      name: 'kwok',
      binary: bin('kwok'),
      args: [
        `--kubeconfig=${paths.kubeconfig}`,
        `--config=${input.kwokStages}`,
        '--manage-all-nodes=false',
        `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
        // One pod-IP pool for all nodes; it keeps clear of the service range 10.96.0.0/12.
        '--cidr=10.244.0.1/16',
        // Loopback node IP: anything the apiserver sends "to the kubelet" (logs, exec) lands on
        // kwok's own port on this machine instead of an unroutable address.
        '--node-ip=127.0.0.1',
        `--node-port=${ports.kwok}`,
        `--server-address=127.0.0.1:${ports.kwok}`,
        // Standalone kwok defaults to 0, which renews no Leases: nodes then go NotReady (recipe §5.2).
        '--node-lease-duration-seconds=40',
      ],
      healthUrl: `${loopback(ports.kwok)}/healthz`,
    },
  ];
}

export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

/** Admin kubeconfig with absolute file references, read by kubectl, client-node and components. */
export function kubeconfigYaml(ports: Ports, pki: PkiFiles): string {
  return `apiVersion: v1
kind: Config
clusters:
  - name: agent-sandbox-harness
    cluster:
      server: https://127.0.0.1:${ports.apiserver}
      certificate-authority: ${pki.caCert}
users:
  - name: harness-admin
    user:
      client-certificate: ${pki.adminCert}
      client-key: ${pki.adminKey}
contexts:
  - name: agent-sandbox-harness
    context:
      cluster: agent-sandbox-harness
      user: harness-admin
current-context: agent-sandbox-harness
`;
}

/** A config file rather than the deprecated scheduler flags; QPS raised for benchmarks. */
export function schedulerConfigYaml(kubeconfig: string): string {
  return `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: ${kubeconfig}
  qps: 500
  burst: 1000
leaderElection:
  leaderElect: false
`;
}

// @agent-sandbox/kubelet: the local node agent (README.md says who implements which seam).
export {
  KubeletError,
  InvalidArgumentError,
  ImageError,
  RuntimeError,
  isKubeletError,
  errorMessage,
  type KubeletErrorCode,
} from './errors.ts';
export type {
  ContainerRuntime,
  ContainerStart,
  ContainerProcess,
  ExecProcess,
  ExitStatus,
  HostCommand,
  RuntimeProbe,
} from './runtime/container-runtime.ts';
export type { PodNetwork, PodNetworkStatus, PodNetworkTarget } from './network/pod-network.ts';
export { LoopbackPodNetwork, type LoopbackPodNetworkOptions } from './network/loopback-network.ts';
export type { PodContainers, PodRef, AttachTarget } from './node/pod-containers.ts';
export type { PodDaemon } from './node/pod-daemon.ts';
export {
  parseReference,
  formatReference,
  defaultPullPolicy,
  type ImageReference,
  type PullPolicy,
} from './images/reference.ts';
export { ImageStore, type ImageRecord, type ImportProgress } from './images/image-store.ts';
export { loadOciLayout, loadDockerArchive } from './images/oci-layout.ts';
export {
  RegistryClient,
  type RegistryClientOptions,
  type RegistryCredentials,
} from './images/registry-client.ts';
export { ImageService } from './images/image-service.ts';
export type {
  ContainerLog,
  ContainerTarget,
  PodTarget,
  ProcessExit,
  StreamingBackend,
  StreamProcess,
  StreamSelection,
  TerminalSize,
} from './streaming/backend.ts';
export { CriLogWriter, type LogStream } from './streaming/cri-log.ts';
export { ExecMetrics } from './streaming/exec-metrics.ts';
export {
  containerExec,
  podContainersBackend,
  type ExecEvent,
  type ExecPath,
  type PodContainersBackendOptions,
} from './streaming/pod-containers-backend.ts';
export {
  startStreamingServer,
  type StreamingServerHandle,
  type StreamingServerOptions,
} from './streaming/streaming-server.ts';
export {
  CGROUP_PARENT,
  NodeAgent,
  NODES,
  RUNTIME_CLASSES,
  type NodeAgentOptions,
} from './node/node-agent.ts';
export { hostNodeFacts, primaryIPv4 } from './node/host-facts.ts';
export { overlayMounts, type OverlayMount } from './node/container-rootfs.ts';
export { removePooledRoots, rootPoolDir, type RootPoolSettings } from './node/root-pool.ts';
export type { NodeFacts } from './node/node-object.ts';
export type { NodeLogger } from './node/node-context.ts';
export type { PodPhase, PodPhaseSink } from './node/pod-phases.ts';
export {
  OciCliRuntime,
  runcRuntime,
  runscRuntime,
  type OciCliRuntimeOptions,
} from './runtime/runc-runtime.ts';
export { BwrapRuntime, bwrapRuntime, type BwrapRuntimeOptions } from './runtime/bwrap-runtime.ts';
export { buildOciSpec, type OciSpecInput, type BundleMount } from './runtime/oci-spec.ts';
export { BridgePodNetwork, type BridgePodNetworkOptions } from './network/bridge-network.ts';
export {
  createPodNetwork,
  bridgeUnavailableReason,
  type PodNetworkChoice,
} from './network/create-pod-network.ts';
export { Ipam, gatewayOf } from './network/ipam.ts';
export {
  startClusterDns,
  type ClusterDnsHandle,
  type ClusterDnsOptions,
} from './network/dns/cluster-dns.ts';
export { podResolvConf, type ResolvConf } from './network/dns/pod-dns.ts';
export {
  PERSISTENT_VOLUMES,
  runVolumeBinder,
  syncVolumes,
  type VolumeBinderOptions,
} from './node/volume-binder.ts';
export { runLevelSync, type LevelSyncOptions } from './sync/level-sync.ts';
export {
  PolicyEnforcer,
  NETWORK_POLICIES,
  type PolicyEnforcerOptions,
} from './network/policy/policy-enforcer.ts';
export { runPolicySync, type PolicySyncOptions } from './network/policy/policy-sync.ts';

// What a PodWorker needs from its node: the seams (runtime, network, images, API objects) and
// the node's settings. NodeAgent implements it; tests may too.
import type { Pod, PodStatus } from '@agent-sandbox/kube-types';
import type { ImageService } from '../images/image-service.ts';
import type { PodNetwork } from '../network/pod-network.ts';
import type { ContainerRuntime } from '../runtime/container-runtime.ts';
import type { NodeExecSockets } from '../node-exec/registry.ts';
import type { PodDaemon } from './pod-daemon.ts';
import type { PodEventSink } from './pod-events.ts';
import type { PodPhaseSink } from './pod-phases.ts';
import type { RootPool } from './root-pool.ts';
import type { VolumeSource } from './pod-volumes.ts';

export interface NodeLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface NodeContext {
  log: NodeLogger;
  /** This node's name: the `source.host` of the Events its Pods get. */
  nodeName: string;
  events: PodEventSink;
  images: ImageService;
  network: PodNetwork;
  objects: VolumeSource;
  nodeIP: string;
  podsDir: string;
  logsDir: string;
  claimsDir: string;
  allowHostPath: boolean;
  backoffBaseMs: number;
  /** First wait before a failed sandbox set-up is retried (sandboxRetryMs). */
  sandboxRetryBaseMs: number;
  pidsLimit: number;
  /** NodeAgentOptions.earlyCreate: whether a Pod's first containers are created ahead. */
  earlyCreate(pod: Pod): boolean;
  nodeMemoryBytes: number;
  /** The cgroup holding this agent's pod cgroups (`/<parent>/pod<uid>/<container>-<n>`). */
  cgroupParent: string;
  extraReadOnlyMounts: readonly { destination: string; source: string }[];
  /** Started in each Pod's first app container once it runs (the in-sandbox daemon). */
  podDaemon: PodDaemon | undefined;
  /** The per-Pod sockets execs reach the daemon through (ADR 0037). */
  nodeExec: NodeExecSockets;
  /** Receives the timed steps of each Pod's start (profiling); absent: not measured. */
  onPhase: PodPhaseSink | undefined;
  /** The node's pool of container roots mounted ahead, when `pod` takes from it (root-pool.ts). */
  rootPoolFor(pod: Pod): RootPool | undefined;
  /** The runtime the pod's runtimeClassName selects; throws naming a missing class or handler. */
  runtimeFor(pod: Pod): Promise<ContainerRuntime>;
  /** PUT of pods/status; resolves to the stored object, or undefined when the pod is gone. */
  writeStatus(pod: Pod, status: PodStatus): Promise<Pod | undefined>;
  /** Final DELETE with grace 0 and a UID precondition. */
  deletePod(pod: Pod): Promise<void>;
  /** Tears down the pod's network, cgroups and directory (not its PVC directories). */
  releasePod(uid: string): Promise<void>;
  /**
   * A Pod's start is under way until the returned function is called (more calls do nothing);
   * once none is, the network may make resources ahead (PodNetwork.idle).
   */
  startBegun(): () => void;
}

// The probes of one app container instance (kubelet-and-oci §2.4): refused up front when a probe
// is malformed, then run against the instance with flag changes and failures handed back to the
// pod worker.
import type { Container, Pod } from '@agent-sandbox/kube-types';
import { KubeletError, errorMessage } from '../errors.ts';
import type { PodNetworkStatus } from '../network/pod-network.ts';
import { ContainerProber } from '../probes/container-prober.ts';
import type { ProbeTarget } from '../probes/probe-runner.ts';
import { probeHandler } from '../probes/probe-state.ts';
import { execUser, type ContainerRuntime } from '../runtime/container-runtime.ts';
import type { ContainerInstance } from './container-instance.ts';

export interface InstanceProbeOptions {
  pod: Pod;
  container: Container;
  runtime: ContainerRuntime;
  instance: ContainerInstance;
  network: PodNetworkStatus | undefined;
  /** The started/ready flags changed. */
  flags(f: { started: boolean; ready: boolean }): void;
  /** A startup or liveness probe failed for good: the instance is being stopped. */
  unhealthy(kind: 'startup' | 'liveness', message: string): void;
}

/** Where the instance's probes connect (the Pod IP, or inside its netns) and exec. */
export function instanceProbeTarget(
  o: Pick<InstanceProbeOptions, 'container' | 'runtime' | 'instance' | 'network'>,
): ProbeTarget {
  return {
    exec: (argv) => {
      const user = execUser(o.instance.processConfig);
      return o.runtime.execCommand(o.instance.id, argv, { tty: false, ...(user ? { user } : {}) });
    },
    podIP: o.network?.ips[0] ?? '',
    netnsPath: o.network?.netnsPath ?? '',
    ports: o.container.ports ?? [],
  };
}

/** A prober whose startup/liveness failure stops the instance with the probe's grace period. */
export function instanceProber(o: InstanceProbeOptions): ContainerProber {
  const c = o.container;
  return new ContainerProber(c, instanceProbeTarget(o), {
    flags: o.flags,
    unhealthy: (kind, message) => {
      o.unhealthy(kind, message);
      const probe = kind === 'startup' ? c.startupProbe : c.livenessProbe;
      const grace =
        probe?.terminationGracePeriodSeconds ?? o.pod.spec?.terminationGracePeriodSeconds ?? 30;
      void o.instance.stop(grace * 1000);
    },
  });
}

/** Refuses a probe without exactly one supported handler, naming the field. */
export function checkProbes(c: Container): void {
  for (const f of ['startupProbe', 'livenessProbe', 'readinessProbe'] as const) {
    const p = c[f];
    if (!p) continue;
    try {
      probeHandler(p, `containers[${c.name}].${f}`);
    } catch (e) {
      throw new KubeletError('InvalidArgument', errorMessage(e));
    }
    if (f !== 'readinessProbe' && (p.successThreshold ?? 1) !== 1)
      throw new KubeletError(
        'InvalidArgument',
        `containers[${c.name}].${f}.successThreshold: must be 1 for ${f}; remove it or set 1`,
      );
  }
}

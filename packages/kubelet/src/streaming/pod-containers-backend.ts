// The streaming server's backend on top of the node agent's PodContainers seam: exec spawns the
// runtime's host command (on a pty for TTY sessions), attach joins the primary process,
// port-forward dials inside the Pod's network namespace, logs read the CRI file of an instance.
import { KubeletError } from '../errors.ts';
import type { PodContainers, PodRef } from '../node/pod-containers.ts';
import type { ContainerTarget, PodTarget, StreamingBackend } from './backend.ts';
import { attachStreamProcess, spawnStreamProcess } from './host-process.ts';
import { dialInNetns, type NetnsDialOptions } from './netns-dial.ts';

function podRef(t: PodTarget): PodRef {
  return t.uid === undefined
    ? { namespace: t.namespace, name: t.pod }
    : { namespace: t.namespace, name: t.pod, uid: t.uid };
}

/** @param dial how port-forward reaches a port in a netns (tests may point it elsewhere) */
export function podContainersBackend(
  containers: PodContainers,
  dial: NetnsDialOptions = {},
): StreamingBackend {
  return {
    exec: async (target, command, streams) =>
      spawnStreamProcess(
        containers.execCommand(podRef(target), target.container, command, { tty: streams.tty }),
        streams,
      ),
    attach: async (target, streams) =>
      attachStreamProcess(containers.attach(podRef(target), target.container), streams),
    portForward: async (target, port) =>
      dialInNetns(containers.netnsPath(podRef(target)), port, dial),
    containerLog: async (target: ContainerTarget, { previous }) => {
      const ref = podRef(target);
      const found = containers.logPath(ref, target.container, { previous });
      if (!found) {
        if (previous)
          throw new KubeletError(
            'InvalidArgument',
            `previous terminated container "${target.container}" in pod "${target.pod}" not found`,
          );
        throw new KubeletError(
          'NotRunning',
          `container "${target.container}" in pod "${target.pod}" is waiting to start: ContainerCreating`,
        );
      }
      const { path } = found;
      // Still running while the current instance is this file and runs (a restart starts a new file).
      const isRunning = (): boolean => {
        const now = containers.logPath(ref, target.container, { previous: false });
        return !previous && now?.path === path && now.running;
      };
      return { path, isRunning };
    },
  };
}

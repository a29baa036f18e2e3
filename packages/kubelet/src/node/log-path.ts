// Where a container instance's CRI log lives (kubelet-and-oci §3.6): the kubelet's /var/log/pods
// layout under the agent's logs directory. streaming/cri-log.ts writes and reads the files.
import { join } from 'node:path';

export function criLogPath(
  logsDir: string,
  pod: { namespace: string; name: string; uid: string },
  container: string,
  restartCount: number,
): string {
  return join(logsDir, `${pod.namespace}_${pod.name}_${pod.uid}`, container, `${restartCount}.log`);
}

// From a sandbox id (what `create` printed: a claim's name, or a Sandbox's) to its running Pod,
// for the verbs that stream through the API server (exec, cp, logs, port-forward). The SDK
// resolves the id, so unknown sandboxes fail with its message; the Pod is the one the Sandbox's
// status.selector picks.
import { SANDBOXES } from '@agent-sandbox/controllers';
import { KubeClient, PODS, loadKubeConfig, type KubeConfig } from '@agent-sandbox/kube';
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import { Sandbox } from '@agent-sandbox/sdk';
import type { ClusterOptions } from '../cluster-options.ts';
import { CliError } from '../errors.ts';
import type { PodRef } from '../pod-streams/kube-transport.ts';
import { sdkConnection } from './sdk-connection.ts';

export interface SandboxPod extends PodRef {
  config: KubeConfig;
  sandboxName: string;
  /** The first container's name (the sandbox's own). */
  container: string;
}

export async function sandboxPod(id: string, opts: ClusterOptions): Promise<SandboxPod> {
  const sandbox = await Sandbox.connect(id, sdkConnection(opts));
  const { namespace, sandboxName } = sandbox;
  await sandbox.close();
  const config = loadKubeConfig({
    env: process.env,
    ...(opts.kubeconfig ? { kubeconfig: opts.kubeconfig } : {}),
    ...(opts.context ? { context: opts.context } : {}),
  });
  const client = new KubeClient({ config });
  try {
    const object = await client.get<
      KubeObject & { spec: { operatingMode?: string }; status?: { selector?: string } }
    >(SANDBOXES, namespace, sandboxName);
    if (object.spec.operatingMode === 'Suspended')
      throw new CliError(
        'Failed',
        `sandbox ${id} is suspended: it has no Pod (agent-sandbox resume ${id})`,
      );
    const selector = object.status?.selector;
    const pods = selector
      ? (await client.list<Pod & KubeObject>(PODS, namespace, { labelSelector: selector })).items
      : [];
    const pod = pods.find((p) => !p.metadata.deletionTimestamp && p.status?.phase === 'Running');
    if (!pod)
      throw new CliError(
        'Failed',
        `sandbox ${id} has no running Pod yet (agent-sandbox get ${id} shows its state)`,
      );
    return {
      config,
      namespace,
      name: pod.metadata.name ?? '',
      sandboxName,
      container: pod.spec?.containers[0]?.name ?? '',
    };
  } finally {
    await client.close();
  }
}

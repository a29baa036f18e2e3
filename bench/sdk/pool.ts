// The benchmark's template and warm pool on `up`: the busybox test image sleeping in a container
// named `sandbox` (sandboxd is injected by the node agent), never pulled (loaded locally).
import { SANDBOX_TEMPLATES, SANDBOX_WARM_POOLS } from '@agent-sandbox/controllers';
import { KubeClient, kubeConfigFromFile } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';

const EXTENSIONS = 'extensions.agents.x-k8s.io/v1beta1';

export async function applyBenchPool(
  kubeconfig: string,
  name: string,
  image: string,
  replicas: number,
): Promise<KubeClient> {
  const client = new KubeClient({ config: kubeConfigFromFile(kubeconfig) });
  await client.create(SANDBOX_TEMPLATES, {
    apiVersion: EXTENSIONS,
    kind: 'SandboxTemplate',
    metadata: { name, namespace: 'default' },
    spec: {
      podTemplate: {
        spec: {
          terminationGracePeriodSeconds: 0,
          containers: [
            {
              name: 'sandbox',
              image,
              imagePullPolicy: 'Never',
              command: ['sleep', '3600'],
              workingDir: '/',
            },
          ],
        },
      },
    },
  } as KubeObject);
  await client.create(SANDBOX_WARM_POOLS, {
    apiVersion: EXTENSIONS,
    kind: 'SandboxWarmPool',
    metadata: { name, namespace: 'default' },
    spec: { replicas, sandboxTemplateRef: { name } },
  } as KubeObject);
  return client;
}

/** Until the pool reports `replicas` ready members (bounded: a stuck pool fails the run). */
export async function untilPoolReady(
  client: KubeClient,
  name: string,
  replicas: number,
): Promise<void> {
  const end = Date.now() + 120_000;
  for (;;) {
    const pool = await client.get<KubeObject & { status?: { readyReplicas?: number } }>(
      SANDBOX_WARM_POOLS,
      'default',
      name,
    );
    if ((pool.status?.readyReplicas ?? 0) >= replicas) return;
    if (Date.now() > end) throw new Error(`warm pool ${name}: not ${replicas} ready in 120 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// An SDK test world: the embedded API server with our CRDs, the real controller manager (the
// Sandbox and extension controllers) restricted to a fresh namespace, and a scripted kubelet
// that reports every Pod Running and Ready on a loopback IP (the embedded mode runs no Pods
// yet), so a sandboxd started by the test on 127.0.0.1 is what the SDK reaches on the "Pod IP".
/* eslint-disable no-restricted-imports -- test support composes the real server and controllers */
import {
  readOurCrds,
  startTestApiServer,
  type TestApiServer,
} from '@agent-sandbox/apiserver/testing';
import {
  extensionControllers,
  sandboxCacheTransforms,
  sandboxController,
} from '@agent-sandbox/controllers';
import { Manager } from '@agent-sandbox/runtime';
/* eslint-enable no-restricted-imports */
import {
  Informer,
  KubeClient,
  NAMESPACES,
  PODS,
  kubeConfigFromFile,
  isNotFound,
} from '@agent-sandbox/kube';
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { SANDBOX_TEMPLATES, SANDBOX_WARM_POOLS } from '../resources.ts';

export interface SdkWorld {
  server: TestApiServer;
  /** An admin client for the test's own setup and checks. */
  client: KubeClient;
  namespace: string;
  kubeconfigPath: string;
  /** Creates a SandboxTemplate with one container (`main`, busybox) that allows claim env. */
  createTemplate(name: string): Promise<void>;
  /**
   * Creates a SandboxWarmPool of `replicas` for `template` and resolves once it reports them all
   * ready (a claim made earlier finds no warm member within its grace and goes cold).
   */
  createPool(name: string, template: string, replicas: number): Promise<void>;
  close(): Promise<void>;
}

export interface SdkWorldOptions {
  podIp?: string;
  /**
   * Set: each Pod is reported Running on the IP but not Ready until this resolves (a node whose
   * daemon starts after the container runs). @default Running and Ready at once
   */
  readyWhen?: (podName: string) => Promise<void>;
}

export async function openSdkWorld(options: SdkWorldOptions = {}): Promise<SdkWorld> {
  const server = await startTestApiServer({ crds: readOurCrds() });
  const client = new KubeClient({ config: kubeConfigFromFile(server.kubeconfigPath) });
  const namespace = `sdk-${randomBytes(4).toString('hex')}`;
  await client.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
  const manager = new Manager({
    client,
    logger: pino({ level: 'silent' }),
    namespace,
    cacheTransforms: sandboxCacheTransforms,
  });
  manager.add(sandboxController({ client, informers: manager, concurrency: 4 }));
  for (const c of extensionControllers({ client, informers: manager })) manager.add(c);
  const abort = new AbortController();
  const managerDone = manager.start(abort.signal);
  managerDone.catch(() => undefined);
  const kubeletDone = runScriptedKubelet(
    client,
    namespace,
    options.podIp ?? '127.0.0.1',
    abort.signal,
    options.readyWhen,
  );
  return {
    server,
    client,
    namespace,
    kubeconfigPath: server.kubeconfigPath,
    createTemplate: async (name) => {
      await client.create(SANDBOX_TEMPLATES, {
        apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
        kind: 'SandboxTemplate',
        metadata: { name, namespace },
        spec: {
          envVarsInjectionPolicy: 'Allowed',
          podTemplate: {
            metadata: { labels: { app: 'agent' } },
            spec: {
              terminationGracePeriodSeconds: 1,
              containers: [{ name: 'main', image: 'busybox' }],
            },
          },
        },
      } as KubeObject);
    },
    createPool: async (name, template, replicas) => {
      await client.create(SANDBOX_WARM_POOLS, {
        apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
        kind: 'SandboxWarmPool',
        metadata: { name, namespace },
        spec: { replicas, sandboxTemplateRef: { name: template } },
      } as KubeObject);
      await untilPoolReady(client, namespace, name, replicas);
    },
    close: async () => {
      abort.abort();
      await managerDone.catch(() => undefined);
      await kubeletDone.catch(() => undefined);
      await client.close();
      await server.close();
    },
  };
}

/**
 * Plays the kubelet: every Pod in `namespace` is reported Running and Ready on `ip` (Running
 * first, and Ready once `readyWhen` resolves, when given).
 */
async function runScriptedKubelet(
  client: KubeClient,
  namespace: string,
  ip: string,
  signal: AbortSignal,
  readyWhen?: (podName: string) => Promise<void>,
): Promise<void> {
  const informer = new Informer<Pod & KubeObject>({ client, resource: PODS, namespace });
  const started = new Set<string>();
  const start = (pod: Pod & KubeObject): void => {
    const uid = pod.metadata.uid ?? '';
    if (started.has(uid) || pod.metadata.deletionTimestamp || pod.status?.phase === 'Running')
      return;
    started.add(uid);
    const name = pod.metadata.name ?? '';
    const report = (ready: boolean): Promise<unknown> =>
      client.patch(
        PODS,
        namespace,
        name,
        { type: 'merge', body: { status: runningStatus(ip, ready) } },
        { subresource: 'status', signal },
      );
    const reported = readyWhen
      ? report(false).then(() => readyWhen(name).then(() => report(true)))
      : report(true);
    reported.catch((err: unknown) => {
      if (!isNotFound(err) && !signal.aborted) started.delete(uid);
    });
  };
  informer.addHandlers({ onAdd: start, onUpdate: (_old, pod) => start(pod) });
  await informer.run(signal);
}

function runningStatus(ip: string, ready: boolean): Record<string, unknown> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    phase: 'Running',
    podIP: ip,
    podIPs: [{ ip }],
    conditions: [
      { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
      { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: now },
    ],
  };
}

async function untilPoolReady(
  client: KubeClient,
  namespace: string,
  name: string,
  replicas: number,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const pool = await client.get<KubeObject & { status?: { readyReplicas?: number } }>(
      SANDBOX_WARM_POOLS,
      namespace,
      name,
    );
    if ((pool.status?.readyReplicas ?? 0) >= replicas) return;
    if (Date.now() > deadline)
      throw new Error(`warm pool ${namespace}/${name} has not ${replicas} ready members in 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

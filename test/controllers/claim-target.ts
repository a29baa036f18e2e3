// Where the claim storm and the claim interleavings run: a fresh namespace on the embedded API
// server or on the shared cluster (our CRDs installed and served), a client for the test, and the
// kubeconfig the manager child process uses — as its own identity (manager-identity.ts), straight
// to the embedded server, or through the namespace-scoping gateway on the cluster so other tests'
// objects stay untouched.
import { readOurCrds } from '@agent-sandbox/apiserver/testing';
import { SANDBOX_CLAIMS } from '@agent-sandbox/controllers';
import {
  KubeClient,
  NAMESPACES,
  isAlreadyExists,
  kubeConfigFromFile,
  type KubeConfig,
  CUSTOM_RESOURCE_DEFINITIONS,
} from '@agent-sandbox/kube';
import type { CustomResourceDefinition, KubeObject } from '@agent-sandbox/kube-types';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectTarget, type TestTarget } from '../support/target.ts';
import { managerConnection } from './manager-identity.ts';

export interface ClaimTarget {
  target: TestTarget;
  client: KubeClient;
  namespace: string;
  /** `namespace` first, then the others the manager also sees (openClaimTarget's `count`). */
  namespaces: string[];
  /** A scratch directory, removed by close(). */
  dir: string;
  /** What the manager child process connects to. */
  managerKubeconfig: string;
  /** The same, loaded (a gate in front of the manager forwards to it). */
  managerConfig: KubeConfig;
  /** No kubelet on the target: a scripted one has to report Pods Running and Ready. */
  playKubelet: boolean;
  close(): Promise<void>;
}

async function installCrds(client: KubeClient, namespace: string): Promise<void> {
  for (const crd of readOurCrds()) {
    await client
      .create(CUSTOM_RESOURCE_DEFINITIONS, crd as CustomResourceDefinition & KubeObject)
      .catch((err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
      });
  }
  for (let i = 0; ; i++) {
    const served = await client.list(SANDBOX_CLAIMS, namespace).then(
      () => true,
      () => false,
    );
    if (served) return;
    if (i > 300) throw new Error('the SandboxClaim CRD was not served within 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** `count` fresh namespaces (the first is `namespace`), all in the manager's scope. */
export async function openClaimTarget(
  target: TestTarget,
  prefix: string,
  count = 1,
): Promise<ClaimTarget> {
  const handle = await connectTarget(target);
  const namespaces = Array.from(
    { length: count },
    () => `${prefix}-${randomBytes(4).toString('hex')}`,
  );
  const namespace = namespaces[0] ?? '';
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const config = kubeConfigFromFile(handle.kubeconfigPath);
  const client = new KubeClient({ config });
  for (const name of namespaces)
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  if (target === 'cluster') await installCrds(client, namespace);
  const { kubeconfigPath: managerKubeconfig, proxy } = await managerConnection({
    handle,
    admin: client,
    adminConfig: config,
    namespace,
    others: namespaces.slice(1),
    extensions: true,
    dir,
  });
  return {
    target,
    client,
    namespace,
    namespaces,
    dir,
    managerKubeconfig,
    managerConfig: kubeConfigFromFile(managerKubeconfig),
    playKubelet: !handle.hasNodes,
    close: async () => {
      await proxy?.close();
      if (target === 'cluster')
        for (const name of namespaces)
          await client.delete(NAMESPACES, undefined, name).catch(() => undefined);
      await client.close();
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Restart safety on the real control plane (issue 5): the same scenario as the integration test,
// with kube-scheduler and kwok running the Pods and kube-controller-manager collecting garbage.
// The manager reaches kube-apiserver through a namespace-scoping gateway (namespace-proxy.ts) so
// it leaves other tests' Sandboxes on the shared cluster alone, as its own ServiceAccount
// (manager-identity.ts). Replay a run with
// AGENT_SANDBOX_CHAOS_SEED=<seed printed in the log>.
import { readOurCrds } from '@agent-sandbox/apiserver/testing';
import { SANDBOXES } from '@agent-sandbox/controllers';
import {
  KubeClient,
  NAMESPACES,
  PERSISTENT_VOLUME_CLAIMS,
  isAlreadyExists,
  kubeConfigFromFile,
  CUSTOM_RESOURCE_DEFINITIONS,
} from '@agent-sandbox/kube';
import type { CustomResourceDefinition, KubeObject } from '@agent-sandbox/kube-types';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureCluster } from '../support/cluster.ts';
import { chaosSeed } from './chaos-plan.ts';
import { managerConnection } from './manager-identity.ts';
import type { NamespaceProxy } from './namespace-proxy.ts';
import { runRestartChaos } from './restart-chaos.ts';

const SEED_ENV = 'AGENT_SANDBOX_CHAOS_SEED';
/** Added by kube-apiserver; its controller is not among the harness's kube-controller-manager's. */
const PVC_PROTECTION = 'kubernetes.io/pvc-protection';
const namespace = `chaos-${randomBytes(4).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'restart-chaos-'));
let client: KubeClient;
let proxy: NamespaceProxy;

beforeAll(async () => {
  const { kubeconfig } = await ensureCluster();
  const config = kubeConfigFromFile(kubeconfig);
  client = new KubeClient({ config });
  for (const crd of readOurCrds()) {
    await client
      .create(CUSTOM_RESOURCE_DEFINITIONS, crd as CustomResourceDefinition & KubeObject)
      .catch((err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
      });
  }
  await client.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
  // Served once a list of the kind succeeds (a fresh CRD takes a moment).
  for (let i = 0; ; i++) {
    const ok = await client.list(SANDBOXES, namespace).then(
      () => true,
      () => false,
    );
    if (ok) break;
    if (i > 300) throw new Error('the Sandbox CRD was not served within 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  const manager = await managerConnection({
    handle: { target: 'cluster' },
    admin: client,
    adminConfig: config,
    namespace,
    extensions: false,
    dir,
  });
  if (!manager.proxy) throw new Error('the cluster target runs the manager behind the gateway');
  proxy = manager.proxy;
});
afterAll(async () => {
  await proxy?.close();
  await client?.delete(NAMESPACES, undefined, namespace).catch(() => undefined);
  // Nothing removes the PVC-protection finalizer here; without this the namespace never goes.
  const pvcs = await client?.list(PERSISTENT_VOLUME_CLAIMS, namespace).catch(() => undefined);
  for (const pvc of pvcs?.items ?? [])
    await client
      .patch(PERSISTENT_VOLUME_CLAIMS, namespace, pvc.metadata.name ?? '', {
        type: 'merge',
        body: { metadata: { finalizers: null } },
      })
      .catch(() => undefined);
  await client?.close();
  rmSync(dir, { recursive: true, force: true });
});

it(
  'SIGKILLing the manager mid-work leaves no duplicate or orphaned child and converges',
  { timeout: 240_000 },
  async () => {
    const result = await runRestartChaos(
      {
        client,
        namespace,
        managerKubeconfig: proxy.kubeconfigPath,
        playKubelet: false,
        unservedFinalizers: [PVC_PROTECTION],
      },
      { seed: chaosSeed(process.env[SEED_ENV], SEED_ENV), log: (line) => console.log(line) },
    );
    expect(result.driver.errors).toEqual([]);
    // At least one kill cut reconciles off in flight (each generation's numbers are in the log).
    expect(result.generations.some((g) => g.killed && g.sample.activeWorkers > 0)).toBe(true);
    expect(result.violations).toEqual([]);
  },
);

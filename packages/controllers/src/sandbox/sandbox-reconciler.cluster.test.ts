// The Sandbox controller against the real control plane of test/cluster: kube-scheduler binds the
// Pod to a kwok node and kwok reports it Running and Ready with an IP, so Ready turns True without
// the test faking any status.
import { Labels, SandboxReason, nameHash } from '@agent-sandbox/api';
// eslint-disable-next-line no-restricted-imports -- tests install our CRDs on the real cluster
import { readOurCrds } from '@agent-sandbox/apiserver/testing';
import {
  KubeClient,
  NAMESPACES,
  PODS,
  SERVICES,
  isAlreadyExists,
  kubeConfigFromFile,
  CUSTOM_RESOURCE_DEFINITIONS,
} from '@agent-sandbox/kube';
import type { CustomResourceDefinition, KubeObject, Pod, Service } from '@agent-sandbox/kube-types';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterKubeconfig } from '@agent-sandbox/kube/testing';
import {
  condition,
  createNamespace,
  eventually,
  getSandbox,
  newSandbox,
  startSandboxController,
  type RunningController,
} from '../testing/harness.ts';
import { SANDBOXES } from './sandbox-reconciler.ts';

let client: KubeClient;
let controller: RunningController | undefined;
const ns = `sbx-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  const kubeconfig = clusterKubeconfig();
  client = new KubeClient({ config: kubeConfigFromFile(kubeconfig) });
  for (const crd of readOurCrds()) {
    await client
      .create(CUSTOM_RESOURCE_DEFINITIONS, crd as CustomResourceDefinition & KubeObject)
      .catch((err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
      });
  }
  await createNamespace(client, ns);
  // Served once a list of the kind succeeds.
  await eventually(() => client.list(SANDBOXES, ns), 60_000);
  controller = startSandboxController(client, ns);
});
afterAll(async () => {
  await controller?.stop();
  await client?.delete(NAMESPACES, undefined, ns).catch(() => undefined);
  await client?.close();
});

describe('Sandbox controller (real kube-apiserver, kwok nodes)', () => {
  it('creates the Pod and Service; kwok runs the Pod and the Sandbox becomes Ready', async () => {
    const created = await client.create(SANDBOXES, newSandbox(ns, 'agent', { service: true }));
    const pod = await eventually(() => client.get<Pod & KubeObject>(PODS, ns, 'agent'));
    expect(pod.metadata.ownerReferences?.find((r) => r.controller === true)?.uid).toBe(
      created.metadata.uid,
    );
    expect(pod.metadata.labels?.[Labels.SandboxNameHash]).toBe(nameHash('agent'));
    const service = await eventually(() => client.get<Service & KubeObject>(SERVICES, ns, 'agent'));
    expect(service.spec?.clusterIP).toBe('None');

    const ready = await eventually(async () => {
      const s = await getSandbox(client, ns, 'agent');
      return condition(s, 'Ready')?.status === 'True' ? s : undefined;
    }, 90_000);
    expect(condition(ready, 'Ready')).toMatchObject({
      reason: SandboxReason.DependenciesReady,
      message: 'Pod is Ready; Service Exists',
    });
    expect(ready.status?.podIPs?.[0]).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(ready.status?.nodeName).toMatch(/^kwok-node-/);
    expect(ready.status?.serviceFQDN).toBe(`agent.${ns}.svc.cluster.local`);
    expect(condition(ready, 'PodScheduled')?.status).toBe('True');
  });
});

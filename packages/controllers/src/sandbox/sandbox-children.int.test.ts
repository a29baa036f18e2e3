// More §21.1 scenarios with I/O on the embedded API server: a Pod deleted while Running is
// recreated, `service: false` deletes the owned Service, and a second owned Pod fails closed with
// Ready MultiplePods and a Warning event.
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded API server (our envtest)
import {
  readOurCrds,
  startTestApiServer,
  type TestApiServer,
} from '@agent-sandbox/apiserver/testing';
import { Labels, SandboxReason, nameHash } from '@agent-sandbox/api';
import { EVENTS, KubeClient, PODS, SERVICES, kubeConfigFromFile } from '@agent-sandbox/kube';
import type { Event, KubeObject } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  condition,
  createNamespace,
  eventually,
  getSandbox,
  gone,
  markPodRunning,
  newSandbox,
  startSandboxController,
  waitForPod,
  type PodObject,
  type RunningController,
} from '../testing/harness.ts';
import { SANDBOXES } from './sandbox-reconciler.ts';

let server: TestApiServer;
let client: KubeClient;
let nsCounter = 0;

beforeAll(async () => {
  server = await startTestApiServer({ crds: readOurCrds() });
  client = new KubeClient({ config: kubeConfigFromFile(server.kubeconfigPath) });
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

async function setup(): Promise<{ ns: string; controller: RunningController }> {
  const ns = `kids-${++nsCounter}`;
  await createNamespace(client, ns);
  return { ns, controller: startSandboxController(client, ns) };
}

describe('Sandbox controller children (embedded API server)', () => {
  it('recreates a Pod deleted while Running; Suspended stays False', async () => {
    const { ns, controller } = await setup();
    try {
      await client.create(SANDBOXES, newSandbox(ns, 'phoenix'));
      const first = await waitForPod(client, ns, 'phoenix');
      const before = await eventually(async () => {
        const s = await getSandbox(client, ns, 'phoenix');
        return condition(s, 'Suspended') !== undefined ? s : undefined;
      });
      await client.delete(PODS, ns, 'phoenix', { gracePeriodSeconds: 0 });
      const second = await eventually(async () => {
        const p = await client.get<PodObject>(PODS, ns, 'phoenix');
        return p.metadata.uid !== first.metadata.uid ? p : undefined;
      });
      expect(second.metadata.labels?.[Labels.SandboxNameHash]).toBe(nameHash('phoenix'));
      const after = await getSandbox(client, ns, 'phoenix');
      expect(condition(after, 'Suspended')).toMatchObject({
        status: 'False',
        reason: SandboxReason.NotSuspended,
        lastTransitionTime: condition(before, 'Suspended')?.lastTransitionTime,
      });
    } finally {
      await controller.stop();
    }
  });

  it('deletes the owned Service and clears the service status on service: false', async () => {
    const { ns, controller } = await setup();
    try {
      await client.create(SANDBOXES, newSandbox(ns, 'svc', { service: true }));
      await eventually(async () => {
        const s = await getSandbox(client, ns, 'svc');
        return s.status?.serviceFQDN;
      });
      await client.patch(SANDBOXES, ns, 'svc', {
        type: 'merge',
        body: { spec: { service: false } },
      });
      await eventually(() => gone(client, SERVICES, ns, 'svc'));
      const cleared = await eventually(async () => {
        const s = await getSandbox(client, ns, 'svc');
        return s.status?.service === undefined ? s : undefined;
      });
      expect(cleared.status?.serviceFQDN).toBeUndefined();
      await markPodRunning(client, ns, 'svc');
      await eventually(async () => {
        const s = await getSandbox(client, ns, 'svc');
        return condition(s, 'Ready')?.message === 'Pod is Ready' ? s : undefined;
      });
    } finally {
      await controller.stop();
    }
  });

  it('fails closed on two owned Pods: Ready MultiplePods, a Warning event, nothing deleted', async () => {
    const { ns, controller } = await setup();
    try {
      const sandbox = await client.create(SANDBOXES, newSandbox(ns, 'dup'));
      const owned = await waitForPod(client, ns, 'dup');
      await client.create<PodObject>(PODS, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'dup-extra',
          namespace: ns,
          labels: { [Labels.SandboxNameHash]: nameHash('dup') },
          ownerReferences: [
            {
              apiVersion: 'agents.x-k8s.io/v1beta1',
              kind: 'Sandbox',
              name: 'dup',
              uid: sandbox.metadata.uid ?? '',
              controller: true,
            },
          ],
        },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      });
      const failed = await eventually(async () => {
        const s = await getSandbox(client, ns, 'dup');
        return condition(s, 'Ready')?.reason === SandboxReason.MultiplePods ? s : undefined;
      });
      expect(condition(failed, 'Ready')?.message).toContain('multiple Pods (2)');
      const event = await eventually(async () => {
        const events = await client.list<Event & KubeObject>(EVENTS, ns);
        return events.items.find((e) => e.reason === 'MultiplePods');
      });
      expect(event).toMatchObject({
        type: 'Warning',
        action: 'Reconciling',
        involvedObject: { kind: 'Sandbox', name: 'dup', uid: sandbox.metadata.uid },
        reportingComponent: 'sandbox-controller',
      });
      const pods = await client.list<PodObject>(PODS, ns);
      expect(pods.items.map((p) => p.metadata.name).sort()).toEqual(['dup', 'dup-extra']);
      expect(pods.items.find((p) => p.metadata.name === 'dup')?.metadata.uid).toBe(
        owned.metadata.uid,
      );
    } finally {
      await controller.stop();
    }
  });
});

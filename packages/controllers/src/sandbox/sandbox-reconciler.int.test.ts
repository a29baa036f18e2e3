// The Sandbox controller on the embedded API server (our envtest), spec §21.1 scenarios with I/O.
// There is no kubelet: the test plays it by writing the Pod's status through `pods/status`.
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded API server (our envtest)
import {
  readOurCrds,
  startTestApiServer,
  type TestApiServer,
} from '@agent-sandbox/apiserver/testing';
import { Labels, SandboxReason, nameHash } from '@agent-sandbox/api';
import {
  KubeClient,
  PERSISTENT_VOLUME_CLAIMS,
  PODS,
  SERVICES,
  kubeConfigFromFile,
} from '@agent-sandbox/kube';
import type { KubeObject, PersistentVolumeClaim, Service } from '@agent-sandbox/kube-types';
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
  type RunningController,
  type PodObject,
  type SandboxObject,
  waitForPod,
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

/** A fresh namespace and a running controller watching it. */
async function setup(): Promise<{ ns: string; controller: RunningController }> {
  const ns = `sbx-${++nsCounter}`;
  await createNamespace(client, ns);
  return { ns, controller: startSandboxController(client, ns) };
}

describe('Sandbox controller (embedded API server)', () => {
  it('creates an owned, labelled Pod, a headless Service and PVCs; Ready once the Pod is', async () => {
    const { ns, controller } = await setup();
    try {
      const created = await client.create(
        SANDBOXES,
        newSandbox(ns, 'web', {
          service: true,
          volumeClaimTemplates: [
            {
              metadata: { name: 'data' },
              spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
            },
          ],
        }),
      );
      const pod = await waitForPod(client, ns, 'web');
      const controllerRef = pod.metadata.ownerReferences?.find((r) => r.controller === true);
      expect(controllerRef).toMatchObject({
        kind: 'Sandbox',
        name: 'web',
        uid: created.metadata.uid,
      });
      expect(pod.metadata.labels?.[Labels.SandboxNameHash]).toBe(nameHash('web'));
      expect(pod.metadata.labels?.['app']).toBe('agent');
      expect(pod.spec?.volumes).toContainEqual({
        name: 'data',
        persistentVolumeClaim: { claimName: 'data-web' },
      });

      const service = await eventually(() => client.get<Service & KubeObject>(SERVICES, ns, 'web'));
      expect(service.spec?.clusterIP).toBe('None');
      expect(service.spec?.selector).toEqual({ [Labels.SandboxNameHash]: nameHash('web') });
      expect(service.metadata.ownerReferences?.[0]?.uid).toBe(created.metadata.uid);
      const pvc = await client.get<PersistentVolumeClaim & KubeObject>(
        PERSISTENT_VOLUME_CLAIMS,
        ns,
        'data-web',
      );
      expect(pvc.metadata.ownerReferences?.[0]?.uid).toBe(created.metadata.uid);

      const pending = await eventually(async () => {
        const s = await getSandbox(client, ns, 'web');
        return s.status?.serviceFQDN !== undefined ? s : undefined;
      });
      expect(pending.status?.serviceFQDN).toBe(`web.${ns}.svc.cluster.local`);
      expect(pending.status?.service).toBe('web');
      expect(pending.status?.selector).toBe(`${Labels.SandboxNameHash}=${nameHash('web')}`);
      expect(condition(pending, 'Ready')).toMatchObject({
        status: 'False',
        reason: SandboxReason.DependenciesNotReady,
      });

      await markPodRunning(client, ns, 'web');
      const ready = await eventually(async () => {
        const s = await getSandbox(client, ns, 'web');
        return condition(s, 'Ready')?.status === 'True' ? s : undefined;
      });
      expect(condition(ready, 'Ready')).toMatchObject({
        reason: SandboxReason.DependenciesReady,
        message: 'Pod is Ready; Service Exists',
      });
      expect(ready.status?.podIPs).toEqual(['10.0.0.7']);
    } finally {
      await controller.stop();
    }
  });

  it('writes the status a bounded number of times per launch', async () => {
    const { ns, controller } = await setup();
    const abort = new AbortController();
    // Each status the watch shows that differs from the one before: a change the controller
    // wrote. From the create's revision, so no write is missed however late the watch opens; its
    // metadata patches (the pod-name annotation) change no status and are not counted.
    const statuses: string[] = [];
    let counting: Promise<void> | undefined;
    try {
      const created = await client.create(SANDBOXES, newSandbox(ns, 'count', { service: true }));
      counting = (async () => {
        let last = JSON.stringify(created.status ?? {});
        const events = client.watch<SandboxObject>(SANDBOXES, ns, {
          signal: abort.signal,
          resourceVersion: created.metadata.resourceVersion ?? '',
        });
        for await (const event of events) {
          if (event.type !== 'MODIFIED') continue;
          const status = JSON.stringify(event.object.status ?? {});
          if (status !== last) statuses.push(status);
          last = status;
        }
      })();
      await waitForPod(client, ns, 'count');
      await markPodRunning(client, ns, 'count');
      await eventually(async () => {
        const s = await getSandbox(client, ns, 'count');
        return condition(s, 'Ready')?.status === 'True' ? s : undefined;
      });
      await new Promise((r) => setTimeout(r, 500)); // let any trailing write land
      // Provisioning (Pod, Service, selector, FQDN) then Ready: not one write per event.
      expect(statuses.length, statuses.join('\n')).toBeGreaterThanOrEqual(2);
      expect(statuses.length, statuses.join('\n')).toBeLessThanOrEqual(4);
    } finally {
      abort.abort();
      await counting?.catch(() => undefined);
      await controller.stop();
    }
  });

  it('suspends (Pod deleted, Suspended PodTerminated) and resumes (Pod recreated)', async () => {
    const { ns, controller } = await setup();
    try {
      await client.create(SANDBOXES, newSandbox(ns, 'nap'));
      const first = await waitForPod(client, ns, 'nap');
      await client.patch(SANDBOXES, ns, 'nap', {
        type: 'merge',
        body: { spec: { operatingMode: 'Suspended' } },
      });
      await eventually(() => gone(client, PODS, ns, 'nap'));
      const suspended = await eventually(async () => {
        const s = await getSandbox(client, ns, 'nap');
        return condition(s, 'Suspended')?.status === 'True' ? s : undefined;
      });
      expect(condition(suspended, 'Suspended')?.reason).toBe(SandboxReason.PodTerminated);
      expect(condition(suspended, 'Ready')).toMatchObject({
        status: 'False',
        reason: SandboxReason.SandboxSuspended,
        message: 'Sandbox is suspended',
      });
      expect(condition(suspended, 'PodScheduled')).toBeUndefined();

      await client.patch(SANDBOXES, ns, 'nap', {
        type: 'merge',
        body: { spec: { operatingMode: 'Running' } },
      });
      const second = await waitForPod(client, ns, 'nap');
      expect(second.metadata.uid).not.toBe(first.metadata.uid);
      const resumed = await eventually(async () => {
        const s = await getSandbox(client, ns, 'nap');
        return condition(s, 'Suspended')?.status === 'False' ? s : undefined;
      });
      expect(condition(resumed, 'Suspended')?.reason).toBe(SandboxReason.NotSuspended);
    } finally {
      await controller.stop();
    }
  });

  it('expires with shutdownPolicy Delete: the Sandbox is deleted', async () => {
    const { ns, controller } = await setup();
    try {
      const past = new Date(Date.now() - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      await client.create(
        SANDBOXES,
        newSandbox(ns, 'brief', { shutdownTime: past, shutdownPolicy: 'Delete' }),
      );
      await eventually(() => gone(client, SANDBOXES, ns, 'brief'));
      expect(await gone(client, PODS, ns, 'brief')).toBe(true);
    } finally {
      await controller.stop();
    }
  });

  it('expires with shutdownPolicy Retain: Pod and Service deleted, Sandbox kept as SandboxExpired', async () => {
    const { ns, controller } = await setup();
    try {
      const soon = new Date(Date.now() + 3_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      await client.create(
        SANDBOXES,
        newSandbox(ns, 'kept', { service: true, shutdownTime: soon, shutdownPolicy: 'Retain' }),
      );
      await waitForPod(client, ns, 'kept');
      await eventually(() => client.get(SERVICES, ns, 'kept'));
      await eventually(() => gone(client, PODS, ns, 'kept'), 15_000);
      await eventually(() => gone(client, SERVICES, ns, 'kept'));
      const expired = await eventually(async () => {
        const s = await getSandbox(client, ns, 'kept');
        return s.status?.service === undefined &&
          condition(s, 'Ready')?.reason === SandboxReason.SandboxExpired
          ? s
          : undefined;
      });
      expect(condition(expired, 'Ready')).toMatchObject({
        status: 'False',
        message: 'Sandbox has expired',
      });
      expect(expired.status?.serviceFQDN).toBeUndefined();
      expect(expired.status?.selector).toBeUndefined();
    } finally {
      await controller.stop();
    }
  });

  it('never touches a foreign Pod with the Sandbox name (bug #265)', async () => {
    const { ns, controller } = await setup();
    try {
      const foreign = await client.create<PodObject>(PODS, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'twin',
          namespace: ns,
          labels: { owner: 'someone-else' },
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: 'other',
              uid: '11111111-2222-3333-4444-555555555555',
              controller: true,
            },
          ],
        },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      });
      await client.create(SANDBOXES, newSandbox(ns, 'twin'));
      const refused = await eventually(async () => {
        const s = await getSandbox(client, ns, 'twin');
        return condition(s, 'Ready')?.reason === SandboxReason.ReconcilerError ? s : undefined;
      });
      expect(condition(refused, 'Ready')?.message).toContain(
        'pod "twin" is owned by ReplicaSet/other',
      );
      expect(refused.status?.podIPs).toBeUndefined();

      await client.patch(SANDBOXES, ns, 'twin', {
        type: 'merge',
        body: { spec: { operatingMode: 'Suspended' } },
      });
      await eventually(async () => {
        const s = await getSandbox(client, ns, 'twin');
        return condition(s, 'Suspended')?.reason === SandboxReason.PodNotOwned ? s : undefined;
      });
      const after = await client.get<PodObject>(PODS, ns, 'twin');
      expect(after.metadata.resourceVersion).toBe(foreign.metadata.resourceVersion);
      expect(after.metadata.deletionTimestamp).toBeUndefined();
    } finally {
      await controller.stop();
    }
  });

  it('is restart-safe: a second manager creates no duplicate Pod, Service or PVC', async () => {
    const { ns, controller } = await setup();
    const spec = {
      service: true,
      volumeClaimTemplates: [
        {
          metadata: { name: 'home' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        },
      ],
    };
    await client.create(SANDBOXES, newSandbox(ns, 'again', spec));
    await waitForPod(client, ns, 'again');
    await controller.stop(); // mid-way: the status may not be written yet

    const second = startSandboxController(client, ns);
    try {
      await markPodRunning(client, ns, 'again');
      await eventually(async () => {
        const s = await getSandbox(client, ns, 'again');
        return condition(s, 'Ready')?.status === 'True' ? s : undefined;
      });
      const selector = `${Labels.SandboxNameHash}=${nameHash('again')}`;
      const pods = await client.list(PODS, ns, { labelSelector: selector });
      const services = await client.list(SERVICES, ns);
      const pvcs = await client.list(PERSISTENT_VOLUME_CLAIMS, ns);
      expect(pods.items.map((p) => p.metadata.name)).toEqual(['again']);
      expect(services.items.map((s) => s.metadata.name)).toEqual(['again']);
      expect(pvcs.items.map((p) => p.metadata.name)).toEqual(['home-again']);
    } finally {
      await second.stop();
    }
  });
});

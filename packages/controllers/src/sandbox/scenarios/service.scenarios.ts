// Spec §21.1 TestReconcileService and TestServicePortsForSandboxReturnsNilWithoutContainerPorts end
// to end: the headless Service's ports from container and native-sidecar ports, drift repair,
// unmanaged port fields, the spec.service tri-state (true / unset / false) against missing, owned,
// unowned and foreign Services, and adoption with its authorisation and headless checks.
import { Labels, SandboxReason, nameHash } from '@agent-sandbox/api';
import { SERVICES } from '@agent-sandbox/kube';
import type { KubeObject, Service, ServicePort } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  createForeignOwner,
  eventually,
  getSandbox,
  gone,
  openScenarioWorld,
  pokeAndSettle,
  sandboxControllerRef,
  scriptedSandbox,
  waitForCondition,
  type SandboxObject,
  type ScenarioWorld,
  objectWhere,
} from '../../testing/harness.ts';
import { SANDBOXES } from '../sandbox-reconciler.ts';

type ServiceObject = Service & KubeObject;

const tracking = (name: string): Record<string, string> => ({
  [Labels.SandboxNameHash]: nameHash(name),
});

/** Only the four fields the controller manages, per port. */
const managed = (ports: readonly ServicePort[] | undefined): Partial<ServicePort>[] | undefined =>
  ports?.map(({ name, protocol, port, targetPort }) => ({ name, protocol, port, targetPort }));

function preService(
  ns: string,
  name: string,
  metadata: NonNullable<Service['metadata']> = {},
  spec: NonNullable<Service['spec']> = { clusterIP: 'None', selector: { app: 'other' } },
): ServiceObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { ...metadata, name, namespace: ns },
    spec,
  };
}

function serviceWhere(
  world: ScenarioWorld,
  name: string,
  check: (s: ServiceObject) => boolean,
): Promise<ServiceObject> {
  return objectWhere(world, SERVICES, name, check);
}

const ownedBy = (sandbox: SandboxObject) => (s: ServiceObject) =>
  s.metadata.ownerReferences?.some((r) => r.uid === sandbox.metadata.uid && r.controller) ?? false;

async function setService(
  world: ScenarioWorld,
  name: string,
  service: boolean | null,
): Promise<void> {
  await world.client.patch(SANDBOXES, world.ns, name, {
    type: 'merge',
    body: { spec: { service } },
  });
}

export function defineServiceScenarios(target: TestTarget): void {
  describe(`Sandbox Service scenarios (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target);
    });
    afterAll(async () => {
      await world?.close();
    });

    describe.concurrent('TestReconcileService: service true', () => {
      it('TestReconcileService: creates a headless Service with sorted, deduplicated container and native-sidecar ports', async () => {
        const sandbox = scriptedSandbox(world.ns, 'ports', { service: true });
        sandbox.spec.podTemplate.spec.containers = [
          {
            name: 'main',
            image: 'busybox',
            ports: [
              { containerPort: 8080, name: 'http' },
              { containerPort: 53, protocol: 'UDP' },
              { containerPort: 7000, name: 'p-53-udp' },
            ],
          },
          {
            name: 'helper',
            image: 'busybox',
            // Same key as main's 8080/TCP: main's explicit name came first and wins.
            ports: [
              { containerPort: 8080, name: 'web' },
              { containerPort: 53, name: 'dns' },
            ],
          },
        ];
        sandbox.spec.podTemplate.spec.initContainers = [
          {
            name: 'sidecar',
            image: 'busybox',
            restartPolicy: 'Always',
            ports: [{ containerPort: 9090, name: 'metrics' }],
          },
          { name: 'setup', image: 'busybox', ports: [{ containerPort: 6000, name: 'setup' }] },
        ];
        const created = await world.client.create(SANDBOXES, sandbox);
        const service = await eventually(() =>
          world.client.get<ServiceObject>(SERVICES, world.ns, 'ports'),
        );
        expect(service.spec?.clusterIP).toBe('None');
        expect(service.spec?.selector).toEqual(tracking('ports'));
        expect(service.metadata.labels).toEqual(tracking('ports'));
        expect(service.metadata.ownerReferences).toEqual([sandboxControllerRef(created)]);
        expect(managed(service.spec?.ports)).toEqual([
          { name: 'dns', protocol: 'TCP', port: 53, targetPort: 53 },
          // The generated name collides with an explicit one: suffixed.
          { name: 'p-53-udp-2', protocol: 'UDP', port: 53, targetPort: 53 },
          { name: 'p-53-udp', protocol: 'TCP', port: 7000, targetPort: 7000 },
          { name: 'http', protocol: 'TCP', port: 8080, targetPort: 8080 },
          { name: 'metrics', protocol: 'TCP', port: 9090, targetPort: 9090 },
        ]);
        const s = await eventually(async () => {
          const got = await getSandbox(world.client, world.ns, 'ports');
          return got.status?.serviceFQDN === undefined ? undefined : got;
        });
        expect(s.status?.service).toBe('ports');
        expect(s.status?.serviceFQDN).toBe(`ports.${world.ns}.svc.cluster.local`);
      });

      it('TestServicePortsForSandboxReturnsNilWithoutContainerPorts: no container ports, a Service without ports', async () => {
        const sandbox = scriptedSandbox(world.ns, 'no-ports', { service: true });
        sandbox.spec.podTemplate.spec.containers = [{ name: 'main', image: 'busybox' }];
        await world.client.create(SANDBOXES, sandbox);
        const service = await eventually(() =>
          world.client.get<ServiceObject>(SERVICES, world.ns, 'no-ports'),
        );
        expect(service.spec?.ports).toBeUndefined();
      });

      it('TestReconcileService: reuses the owned Service without writing it', async () => {
        await world.client.create(SANDBOXES, scriptedSandbox(world.ns, 'reuse', { service: true }));
        const service = await eventually(() =>
          world.client.get<ServiceObject>(SERVICES, world.ns, 'reuse'),
        );
        await pokeAndSettle(world, 'reuse');
        const after = await world.client.get<ServiceObject>(SERVICES, world.ns, 'reuse');
        expect(after.metadata.resourceVersion).toBe(service.metadata.resourceVersion);
        expect(after.metadata.uid).toBe(service.metadata.uid);
      });

      it('TestReconcileService: repairs selector, label and port drift; keeps unmanaged port fields until the ports drift', async () => {
        await world.client.create(SANDBOXES, scriptedSandbox(world.ns, 'drift', { service: true }));
        const original = await eventually(() =>
          world.client.get<ServiceObject>(SERVICES, world.ns, 'drift'),
        );
        const desiredPorts = managed(original.spec?.ports);
        await world.client.patch(SERVICES, world.ns, 'drift', {
          type: 'merge',
          body: {
            metadata: { labels: { [Labels.SandboxNameHash]: 'wrong' } },
            spec: { selector: { [Labels.SandboxNameHash]: 'wrong', extra: 'x' } },
          },
        });
        const repaired = await serviceWhere(
          world,
          'drift',
          (s) => s.spec?.selector?.[Labels.SandboxNameHash] === nameHash('drift'),
        );
        expect(repaired.spec?.selector).toEqual(tracking('drift'));
        expect(repaired.metadata.labels).toEqual(tracking('drift'));

        // appProtocol is not one of the four compared fields: it survives.
        const ports = (original.spec?.ports ?? []).map((p) => ({ ...p, appProtocol: 'http' }));
        await world.client.patch(SERVICES, world.ns, 'drift', {
          type: 'merge',
          body: { spec: { ports } },
        });
        await pokeAndSettle(world, 'drift');
        const kept = await world.client.get<ServiceObject>(SERVICES, world.ns, 'drift');
        expect(kept.spec?.ports?.[0]?.appProtocol).toBe('http');

        await world.client.patch(SERVICES, world.ns, 'drift', {
          type: 'merge',
          body: { spec: { ports: [{ ...ports[0], name: 'renamed' }] } },
        });
        const fixed = await serviceWhere(
          world,
          'drift',
          (s) => s.spec?.ports?.[0]?.name !== 'renamed',
        );
        expect(managed(fixed.spec?.ports)).toEqual(desiredPorts);
        expect(fixed.spec?.ports?.[0]?.appProtocol).toBeUndefined();
      });

      it('TestReconcileService: refuses a Service owned by another controller', async () => {
        const owner = await createForeignOwner(world.client, world.ns, 'svc-foreign-owner');
        const pre = await world.client.create(
          SERVICES,
          preService(world.ns, 'svc-foreign', { ownerReferences: [owner] }),
        );
        await world.client.create(
          SANDBOXES,
          scriptedSandbox(world.ns, 'svc-foreign', { service: true }),
        );
        await waitForCondition(world.client, world.ns, 'svc-foreign', 'Ready', {
          reason: SandboxReason.ReconcilerError,
          message: `Error seen: service "svc-foreign" is owned by ConfigMap/svc-foreign-owner (UID: ${owner.uid}), not by sandbox "svc-foreign"`,
        });
        const after = await world.client.get<ServiceObject>(SERVICES, world.ns, 'svc-foreign');
        expect(after.metadata.resourceVersion).toBe(pre.metadata.resourceVersion);
      });

      it.each([
        ['the adoptable label', 'adopt-flag', { [Labels.Adoptable]: 'true' }],
        ['the legacy tracking label', 'adopt-legacy', tracking('adopt-legacy')],
      ])(
        'TestReconcileService: adopts an unowned headless Service carrying %s: owner set, selector and ports overwritten',
        async (_title, name, labels) => {
          const pre = await world.client.create(
            SERVICES,
            preService(
              world.ns,
              name,
              { labels },
              {
                clusterIP: 'None',
                selector: { app: 'other' },
                ports: [{ name: 'old', port: 1, targetPort: 1, protocol: 'TCP' }],
              },
            ),
          );
          const sandbox = await world.client.create(
            SANDBOXES,
            scriptedSandbox(world.ns, name, { service: true }),
          );
          const adopted = await serviceWhere(world, name, ownedBy(sandbox));
          expect(adopted.metadata.uid).toBe(pre.metadata.uid);
          expect(adopted.spec?.selector).toEqual(tracking(name));
          expect(adopted.metadata.labels).toMatchObject(tracking(name));
          expect(managed(adopted.spec?.ports)).toEqual([
            { name: 'p-8080-tcp', protocol: 'TCP', port: 8080, targetPort: 8080 },
          ]);
        },
      );

      it('TestReconcileService: adoption clears the ports when the Sandbox has none', async () => {
        await world.client.create(
          SERVICES,
          preService(
            world.ns,
            'adopt-noports',
            { labels: { [Labels.Adoptable]: 'true' } },
            // With a selector: kube-apiserver defaults a selectorless headless Service to
            // RequireDualStack, and the adopting Update that adds the selector is then invalid
            // on a single-stack cluster (the embedded server does not default it that way).
            {
              clusterIP: 'None',
              selector: { app: 'other' },
              ports: [{ name: 'old', port: 1, targetPort: 1 }],
            },
          ),
        );
        const sandbox = scriptedSandbox(world.ns, 'adopt-noports', { service: true });
        sandbox.spec.podTemplate.spec.containers = [{ name: 'main', image: 'busybox' }];
        const created = await world.client.create(SANDBOXES, sandbox);
        const adopted = await serviceWhere(world, 'adopt-noports', ownedBy(created));
        expect(adopted.spec?.ports).toBeUndefined();
      });

      it('TestReconcileService: refuses to adopt a non-headless ClusterIP Service', async () => {
        const pre = await world.client.create(
          SERVICES,
          preService(
            world.ns,
            'clusterip',
            { labels: { [Labels.Adoptable]: 'true' } },
            { selector: { app: 'other' }, ports: [{ port: 80 }] },
          ),
        );
        const ip = pre.spec?.clusterIP ?? '';
        expect(ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
        await world.client.create(
          SANDBOXES,
          scriptedSandbox(world.ns, 'clusterip', { service: true }),
        );
        await waitForCondition(world.client, world.ns, 'clusterip', 'Ready', {
          reason: SandboxReason.ReconcilerError,
          message: `Error seen: cannot adopt service "clusterip": ClusterIP is "${ip}" (expected "None", field is immutable)`,
        });
      });

      it('TestReconcileService: refuses an unowned Service without an authorisation label', async () => {
        const pre = await world.client.create(SERVICES, preService(world.ns, 'unauthorised'));
        await world.client.create(
          SANDBOXES,
          scriptedSandbox(world.ns, 'unauthorised', { service: true }),
        );
        await waitForCondition(world.client, world.ns, 'unauthorised', 'Ready', {
          reason: SandboxReason.ReconcilerError,
          message: `Error seen: cannot adopt unowned service "unauthorised": missing required pool authorization label ("${Labels.Adoptable}") or sandbox tracking label ("${Labels.SandboxNameHash}")`,
        });
        const after = await world.client.get<ServiceObject>(SERVICES, world.ns, 'unauthorised');
        expect(after.metadata.resourceVersion).toBe(pre.metadata.resourceVersion);
      });
    });

    describe.concurrent('TestReconcileService: service unset and false', () => {
      it('TestReconcileService: unset → no Service is created', async () => {
        await world.client.create(SANDBOXES, scriptedSandbox(world.ns, 'unset'));
        const s = await waitForCondition(world.client, world.ns, 'unset', 'Ready', {
          message: 'Pod exists with phase: Pending',
        });
        await pokeAndSettle(world, 'unset');
        expect(await gone(world.client, SERVICES, world.ns, 'unset')).toBe(true);
        expect(s.status?.service).toBeUndefined();
        expect(s.status?.serviceFQDN).toBeUndefined();
      });

      it('TestReconcileService: unset keeps the owned Service and repairs its selector, ports untouched', async () => {
        await world.client.create(
          SANDBOXES,
          scriptedSandbox(world.ns, 'was-true', { service: true }),
        );
        await eventually(() => world.client.get<ServiceObject>(SERVICES, world.ns, 'was-true'));
        await setService(world, 'was-true', null);
        await waitForCondition(world.client, world.ns, 'was-true', 'Ready', {
          message: 'Pod exists with phase: Pending; Service Exists',
        });
        await world.client.patch(SERVICES, world.ns, 'was-true', {
          type: 'merge',
          body: {
            spec: {
              selector: { [Labels.SandboxNameHash]: 'wrong', app: 'elsewhere' },
              ports: [{ name: 'custom', port: 1234, targetPort: 1234, protocol: 'TCP' }],
            },
          },
        });
        const repaired = await serviceWhere(
          world,
          'was-true',
          (s) => s.spec?.selector?.[Labels.SandboxNameHash] === nameHash('was-true'),
        );
        expect(repaired.spec?.selector).toEqual(tracking('was-true'));
        expect(managed(repaired.spec?.ports)).toEqual([
          { name: 'custom', port: 1234, targetPort: 1234, protocol: 'TCP' },
        ]);
        const s = await getSandbox(world.client, world.ns, 'was-true');
        expect(s.status?.service).toBe('was-true');
      });

      it.each([
        ['unset', undefined],
        ['false', false],
      ] as const)(
        'TestReconcileService: %s ignores an unowned Service (not adopted, not required, status clear)',
        async (title, service) => {
          const name = `ignore-${title}`;
          const pre = await world.client.create(
            SERVICES,
            preService(world.ns, name, { labels: { [Labels.Adoptable]: 'true' } }),
          );
          await world.client.create(
            SANDBOXES,
            scriptedSandbox(world.ns, name, service === undefined ? {} : { service }),
          );
          const s = await waitForCondition(world.client, world.ns, name, 'Ready', {
            message: 'Pod exists with phase: Pending',
          });
          await pokeAndSettle(world, name);
          const after = await world.client.get<ServiceObject>(SERVICES, world.ns, name);
          expect(after.metadata.resourceVersion).toBe(pre.metadata.resourceVersion);
          expect(s.status?.service).toBeUndefined();
        },
      );

      it('TestReconcileService: false deletes the owned Service and clears the status', async () => {
        await world.client.create(
          SANDBOXES,
          scriptedSandbox(world.ns, 'to-false', { service: true }),
        );
        await eventually(async () => {
          const s = await getSandbox(world.client, world.ns, 'to-false');
          return s.status?.service;
        });
        await setService(world, 'to-false', false);
        await eventually(() => gone(world.client, SERVICES, world.ns, 'to-false'));
        const s = await waitForCondition(world.client, world.ns, 'to-false', 'Ready', {
          message: 'Pod exists with phase: Pending',
        });
        expect(s.status?.service).toBeUndefined();
        expect(s.status?.serviceFQDN).toBeUndefined();
      });
    });
  });
}

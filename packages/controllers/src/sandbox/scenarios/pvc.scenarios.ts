// Spec §21.1 TestReconcilePVCs and TestMergeVolumeClaimVolumes end to end: PVCs created from the
// volumeClaimTemplates, reused, refused when foreign or unauthorised, adopted when authorised; the
// first refusal stops the rest; the Pod's volumes merge the claims over same-named template
// volumes. No provisioner is needed: an unbound PVC is all the controller looks at.
import { Labels, SandboxReason, nameHash } from '@agent-sandbox/api';
import type { v1beta1 } from '@agent-sandbox/api';
import { PERSISTENT_VOLUME_CLAIMS } from '@agent-sandbox/kube';
import type { KubeObject, PersistentVolumeClaim, Volume } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  createForeignOwner,
  eventually,
  gone,
  openScenarioWorld,
  pokeAndSettle,
  sandboxControllerRef,
  scriptedSandbox,
  waitForCondition,
  waitForPod,
  type SandboxObject,
  type ScenarioWorld,
  objectWhere,
} from '../../testing/harness.ts';
import { SANDBOXES } from '../sandbox-reconciler.ts';

type PvcObject = PersistentVolumeClaim & KubeObject;
type Template = NonNullable<v1beta1.SandboxSpec['volumeClaimTemplates']>[number];

const SPEC = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };

function template(name: string, metadata: Omit<Template['metadata'], 'name'> = {}): Template {
  return { metadata: { ...metadata, name }, spec: SPEC } as Template;
}

function prePvc(ns: string, name: string, metadata: PvcObject['metadata'] = {}): PvcObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { ...metadata, name, namespace: ns },
    spec: SPEC,
  };
}

function pvcWhere(
  world: ScenarioWorld,
  name: string,
  check: (p: PvcObject) => boolean,
): Promise<PvcObject> {
  return objectWhere(world, PERSISTENT_VOLUME_CLAIMS, name, check);
}

const ownedBy = (sandbox: SandboxObject) => (p: PvcObject) =>
  p.metadata.ownerReferences?.some(
    (r) => r.controller === true && r.uid === sandbox.metadata.uid,
  ) ?? false;

const NOT_ADOPTABLE = (name: string): string =>
  `cannot adopt unowned PVC "${name}": missing required pool authorization label ("${Labels.Adoptable}") or sandbox tracking label ("${Labels.SandboxNameHash}")`;

/** The Pod's volumes by name (the server may add its own, e.g. a service-account token). */
function volumesByName(volumes: readonly Volume[] | undefined, names: string[]): Volume[] {
  return (volumes ?? []).filter((v) => names.includes(v.name));
}

export function definePvcScenarios(target: TestTarget): void {
  describe(`Sandbox PVC scenarios (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target);
    });
    afterAll(async () => {
      await world?.close();
    });

    describe.concurrent('TestReconcilePVCs', () => {
      it('TestReconcilePVCs: creates <template>-<sandbox> with the template labels, tracking label, annotations and controller ref', async () => {
        const created = await world.client.create(
          SANDBOXES,
          scriptedSandbox(world.ns, 'makes', {
            volumeClaimTemplates: [
              template('data', { labels: { tier: 'db' }, annotations: { note: 'x' } }),
            ],
          }),
        );
        const pvc = await eventually(() =>
          world.client.get<PvcObject>(PERSISTENT_VOLUME_CLAIMS, world.ns, 'data-makes'),
        );
        expect(pvc.metadata.labels).toEqual({
          tier: 'db',
          [Labels.SandboxNameHash]: nameHash('makes'),
        });
        expect(pvc.metadata.annotations?.['note']).toBe('x');
        expect(pvc.metadata.ownerReferences).toEqual([sandboxControllerRef(created)]);
        expect(pvc.spec?.accessModes).toEqual(['ReadWriteOnce']);
        expect(pvc.spec?.resources?.requests?.['storage']).toBe('1Gi');
      });

      it('TestReconcilePVCs: reuses the owned PVC without writing it', async () => {
        await world.client.create(
          SANDBOXES,
          scriptedSandbox(world.ns, 'reuses', { volumeClaimTemplates: [template('data')] }),
        );
        const pvc = await eventually(() =>
          world.client.get<PvcObject>(PERSISTENT_VOLUME_CLAIMS, world.ns, 'data-reuses'),
        );
        await pokeAndSettle(world, 'reuses');
        const after = await world.client.get<PvcObject>(
          PERSISTENT_VOLUME_CLAIMS,
          world.ns,
          'data-reuses',
        );
        expect(after.metadata.resourceVersion).toBe(pvc.metadata.resourceVersion);
      });

      it('TestReconcilePVCs: refuses a PVC owned by another controller, and stops at that first refusal', async () => {
        const owner = await createForeignOwner(world.client, world.ns, 'pvc-owner');
        const pre = await world.client.create(
          PERSISTENT_VOLUME_CLAIMS,
          prePvc(world.ns, 'data-foreign', { ownerReferences: [owner] }),
        );
        await world.client.create(
          SANDBOXES,
          scriptedSandbox(world.ns, 'foreign', {
            volumeClaimTemplates: [template('data'), template('logs')],
          }),
        );
        await waitForCondition(world.client, world.ns, 'foreign', 'Ready', {
          reason: SandboxReason.ReconcilerError,
          message: `Error seen: PVC "data-foreign" is owned by ConfigMap/pvc-owner (UID: ${owner.uid}), not by sandbox "foreign"`,
        });
        await pokeAndSettle(world, 'foreign');
        const after = await world.client.get<PvcObject>(
          PERSISTENT_VOLUME_CLAIMS,
          world.ns,
          'data-foreign',
        );
        expect(after.metadata.resourceVersion).toBe(pre.metadata.resourceVersion);
        expect(await gone(world.client, PERSISTENT_VOLUME_CLAIMS, world.ns, 'logs-foreign')).toBe(
          true,
        );
      });

      it.each([
        ['the adoptable label', 'adopt-flag', { [Labels.Adoptable]: 'true' }],
        [
          'the legacy tracking label',
          'adopt-legacy',
          { [Labels.SandboxNameHash]: nameHash('adopt-legacy') },
        ],
      ])('TestReconcilePVCs: adopts an unowned PVC carrying %s', async (_title, name, labels) => {
        const pre = await world.client.create(
          PERSISTENT_VOLUME_CLAIMS,
          prePvc(world.ns, `data-${name}`, { labels }),
        );
        const sandbox = await world.client.create(
          SANDBOXES,
          scriptedSandbox(world.ns, name, { volumeClaimTemplates: [template('data')] }),
        );
        const adopted = await pvcWhere(world, `data-${name}`, ownedBy(sandbox));
        expect(adopted.metadata.uid).toBe(pre.metadata.uid);
        expect(adopted.metadata.ownerReferences).toEqual([sandboxControllerRef(sandbox)]);
      });

      it('TestReconcilePVCs: refuses an unowned PVC without an authorisation label', async () => {
        const pre = await world.client.create(
          PERSISTENT_VOLUME_CLAIMS,
          prePvc(world.ns, 'data-unauth', { labels: { app: 'other' } }),
        );
        await world.client.create(
          SANDBOXES,
          scriptedSandbox(world.ns, 'unauth', { volumeClaimTemplates: [template('data')] }),
        );
        await waitForCondition(world.client, world.ns, 'unauth', 'Ready', {
          reason: SandboxReason.ReconcilerError,
          message: `Error seen: ${NOT_ADOPTABLE('data-unauth')}`,
        });
        const after = await world.client.get<PvcObject>(
          PERSISTENT_VOLUME_CLAIMS,
          world.ns,
          'data-unauth',
        );
        expect(after.metadata.resourceVersion).toBe(pre.metadata.resourceVersion);
        expect(after.metadata.ownerReferences).toBeUndefined();
      });
    });

    describe.concurrent('TestMergeVolumeClaimVolumes (the created Pod’s volumes)', () => {
      it('TestMergeVolumeClaimVolumes: a claim replaces the same-named template volume; new claims are appended', async () => {
        const sandbox = scriptedSandbox(world.ns, 'merge', {
          volumeClaimTemplates: [template('data'), template('extra')],
        });
        sandbox.spec.podTemplate.spec.volumes = [
          { name: 'data', emptyDir: {} },
          { name: 'cache', emptyDir: {} },
        ];
        await world.client.create(SANDBOXES, sandbox);
        const pod = await waitForPod(world.client, world.ns, 'merge');
        expect(volumesByName(pod.spec?.volumes, ['data', 'cache', 'extra'])).toEqual([
          { name: 'cache', emptyDir: {} },
          { name: 'data', persistentVolumeClaim: { claimName: 'data-merge' } },
          { name: 'extra', persistentVolumeClaim: { claimName: 'extra-merge' } },
        ]);
      });

      it('TestMergeVolumeClaimVolumes: no claims leave the template volumes as they are', async () => {
        const sandbox = scriptedSandbox(world.ns, 'no-claims');
        sandbox.spec.podTemplate.spec.volumes = [{ name: 'cache', emptyDir: {} }];
        await world.client.create(SANDBOXES, sandbox);
        const pod = await waitForPod(world.client, world.ns, 'no-claims');
        expect(volumesByName(pod.spec?.volumes, ['cache'])).toEqual([
          { name: 'cache', emptyDir: {} },
        ]);
        expect(pod.spec?.volumes?.some((v) => v.persistentVolumeClaim !== undefined)).toBe(false);
      });
    });
  });
}

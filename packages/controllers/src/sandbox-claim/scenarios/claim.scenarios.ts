// Spec §21.3 TestSandboxClaimReconcile end to end: cold creation, template and pool resolution,
// foreign Sandboxes, Ready forwarding, metadata and env policies, the legacy NetworkPolicy,
// events, recovery. Warm adoption is in claim.adoption.scenarios.ts, cleanup policies and TTL in
// claim.cleanup.scenarios.ts.
import {
  Annotations,
  Labels,
  nameHash,
  type PersistentVolumeClaimTemplate,
} from '@agent-sandbox/api';
import { EVENTS, PERSISTENT_VOLUME_CLAIMS, PODS } from '@agent-sandbox/kube';
import type { Event, KubeObject, PersistentVolumeClaim, Pod } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  NETWORK_POLICIES,
  SANDBOX_CLAIMS,
  extensionsOwnerRef,
  type ClaimObject,
  type SandboxObj,
} from '../../extensions/resources.ts';
import { SANDBOXES } from '../../sandbox/child-writes.ts';
import {
  createClaim,
  createPool,
  createTemplate,
  newClaim,
  newPool,
  newTemplate,
  where,
  readyCondition,
} from '../../testing/extensions.ts';
import {
  eventually,
  gone,
  newSandbox,
  openScenarioWorld,
  type ScenarioWorld,
} from '../../testing/harness.ts';

export function defineClaimScenarios(target: TestTarget): void {
  describe(`SandboxClaim scenarios (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target, { extensions: {} });
      await createTemplate(world, newTemplate(world.ns, 'tpl'));
      await createPool(world, newPool(world.ns, 'cold', 'tpl', { replicas: 0 }));
    });
    afterAll(async () => {
      await world?.close();
    });
    const claimWhere = (
      name: string,
      check: (c: ClaimObject) => boolean,
      timeoutMs?: number,
    ): Promise<ClaimObject> => where<ClaimObject>(world, SANDBOX_CLAIMS, name, check, timeoutMs);
    const readyReason = (name: string, reason: string): Promise<ClaimObject> =>
      claimWhere(name, (c) => readyCondition(c)?.reason === reason);

    describe.concurrent('TestSandboxClaimReconcile', () => {
      it('TestSandboxClaimReconcile: cold create from the template (labels, annotations, owner, automount off) and Ready forwarded', async () => {
        const claim = newClaim(world.ns, 'cold-one', 'cold');
        claim.metadata.labels = { [Labels.CreatedBy]: 'python-client' };
        const created = await createClaim(world, claim);
        const sandbox = await where<SandboxObj>(world, SANDBOXES, 'cold-one', () => true);
        expect(sandbox.metadata.labels).toMatchObject({
          [Labels.ClaimUid]: created.metadata.uid,
          [Labels.LaunchType]: 'cold',
          [Labels.SandboxTemplateRefHash]: nameHash('tpl'),
          [Labels.CreatedBy]: 'python-client',
        });
        expect(sandbox.metadata.annotations?.[Annotations.SandboxTemplateRef]).toBe('tpl');
        expect(sandbox.metadata.ownerReferences).toEqual([
          expect.objectContaining({
            kind: 'SandboxClaim',
            name: 'cold-one',
            uid: created.metadata.uid,
            controller: true,
          }),
        ]);
        expect(sandbox.spec.podTemplate.spec.automountServiceAccountToken).toBe(false);
        expect(sandbox.spec.podTemplate.metadata?.labels).toMatchObject({
          app: 'agent',
          [Labels.ClaimUid]: created.metadata.uid,
          [Labels.SandboxTemplateRefHash]: nameHash('tpl'),
        });
        const done = await readyReason('cold-one', 'DependenciesReady');
        expect(readyCondition(done)).toMatchObject({
          status: 'True',
          observedGeneration: done.metadata.generation,
        });
        expect(done.status?.sandbox?.name).toBe('cold-one');
        expect(done.status?.sandbox?.podIPs?.length).toBeGreaterThan(0);
        expect(done.metadata.annotations?.[Annotations.ControllerFirstObservedAt]).toMatch(
          /\.\d+Z$/,
        );
        // Stamped right after the status write that made it Ready.
        await claimWhere('cold-one', (c) =>
          /Z$/.test(c.metadata.annotations?.[Annotations.ClaimFirstReadyAt] ?? ''),
        );
      });

      it('TestSandboxClaimConditions: the Ready forwarded from the Sandbox carries the claim’s generation — 2 after a spec edit, while the Sandbox’s own Ready stays at its generation 1', async () => {
        await createClaim(world, newClaim(world.ns, 'gen', 'cold'));
        await readyReason('gen', 'DependenciesReady');
        const shutdownTime = new Date(Date.now() + 3_600_000)
          .toISOString()
          .replace(/\.\d{3}Z$/, 'Z');
        const edited = await world.client.patch<ClaimObject>(SANDBOX_CLAIMS, world.ns, 'gen', {
          type: 'merge',
          body: { spec: { lifecycle: { shutdownTime, shutdownPolicy: 'Retain' } } },
        });
        expect(edited.metadata.generation).toBe(2);
        const done = await claimWhere('gen', (c) => readyCondition(c)?.observedGeneration === 2);
        expect(readyCondition(done)).toMatchObject({ status: 'True', reason: 'DependenciesReady' });
        const sandbox = await world.client.get<SandboxObj>(SANDBOXES, world.ns, 'gen');
        expect(sandbox.metadata.generation).toBe(1);
        expect(readyCondition(sandbox)?.observedGeneration).toBe(1);
      });

      it('TestObservedTimeMapCompareAndDeletePreservesNewerUID / TestGetOrRecordObservedTime / TestSandboxClaimReconcileCleanup: the first-observed time is recorded once per claim; a claim deleted and created again under its name gets its own, later one', async () => {
        const first = await createClaim(world, newClaim(world.ns, 'again', 'cold'));
        const stamped = (uid: string | undefined) => (c: ClaimObject) =>
          c.metadata.uid === uid &&
          c.metadata.annotations?.[Annotations.ClaimFirstReadyAt] !== undefined;
        const a = await claimWhere('again', stamped(first.metadata.uid));
        const seenA = a.metadata.annotations?.[Annotations.ControllerFirstObservedAt] ?? '';
        expect(seenA).toMatch(/\.\d+Z$/);
        // Later passes (the Ready stamp's own write woke one) keep the first time.
        await world.client.patch(SANDBOX_CLAIMS, world.ns, 'again', {
          type: 'merge',
          body: { metadata: { labels: { 'test.agent-sandbox.dev/poke': '1' } } },
        });
        await claimWhere(
          'again',
          (c) => c.metadata.labels?.['test.agent-sandbox.dev/poke'] === '1',
        );
        expect(
          (await world.client.get<ClaimObject>(SANDBOX_CLAIMS, world.ns, 'again')).metadata
            .annotations?.[Annotations.ControllerFirstObservedAt],
        ).toBe(seenA);
        await world.client.delete(SANDBOX_CLAIMS, world.ns, 'again');
        await eventually(() => gone(world.client, SANDBOX_CLAIMS, world.ns, 'again'));
        await eventually(() => gone(world.client, SANDBOXES, world.ns, 'again'), 30_000);
        const second = await createClaim(world, newClaim(world.ns, 'again', 'cold'));
        const b = await claimWhere('again', stamped(second.metadata.uid));
        const seenB = b.metadata.annotations?.[Annotations.ControllerFirstObservedAt] ?? '';
        expect(Date.parse(seenB)).toBeGreaterThan(Date.parse(seenA));
      });

      it('TestSandboxClaimReconcile: pool missing → WarmPoolNotFound; template missing → TemplateNotFound', async () => {
        await createClaim(world, newClaim(world.ns, 'no-pool', 'absent'));
        const a = await readyReason('no-pool', 'WarmPoolNotFound');
        expect(readyCondition(a)?.message).toBe('SandboxWarmPool "absent" not found');
        await createPool(world, newPool(world.ns, 'no-tpl', 'missing-tpl', { replicas: 0 }));
        await createClaim(world, newClaim(world.ns, 'no-tpl-claim', 'no-tpl'));
        const b = await readyReason('no-tpl-claim', 'TemplateNotFound');
        expect(readyCondition(b)?.message).toBe('SandboxTemplate "missing-tpl" not found');
      });

      it('TestSandboxClaimRecoveryWhenTemplateCreated: the template appearing wakes the claim', async () => {
        await createPool(world, newPool(world.ns, 'late', 'late-tpl', { replicas: 0 }));
        await createClaim(world, newClaim(world.ns, 'late-claim', 'late'));
        await readyReason('late-claim', 'TemplateNotFound');
        await createTemplate(world, newTemplate(world.ns, 'late-tpl'));
        await readyReason('late-claim', 'DependenciesReady');
      });

      it('TestSandboxClaimReconcile: an existing foreign Sandbox with the claim name → ReconcilerError', async () => {
        await world.client.create(SANDBOXES, newSandbox(world.ns, 'taken'));
        await createClaim(world, newClaim(world.ns, 'taken', 'cold'));
        const c = await readyReason('taken', 'ReconcilerError');
        expect(readyCondition(c)?.message).toBe(
          'Error seen: sandbox "taken" is not controlled by claim "taken". Please use a different claim name or delete the sandbox manually',
        );
      });

      it('TestSandboxClaimReconcile: additionalPodMetadata applied; a label without a domain → InvalidMetadata', async () => {
        await createClaim(
          world,
          newClaim(world.ns, 'meta', 'cold', {
            additionalPodMetadata: {
              labels: { 'sandbox.users.io/team': 'a' },
              annotations: { note: 'x' },
            },
          }),
        );
        const sandbox = await where<SandboxObj>(world, SANDBOXES, 'meta', () => true);
        expect(sandbox.spec.podTemplate.metadata?.labels?.['sandbox.users.io/team']).toBe('a');
        expect(sandbox.spec.podTemplate.metadata?.annotations?.['note']).toBe('x');
        await createClaim(
          world,
          newClaim(world.ns, 'bad-meta', 'cold', {
            additionalPodMetadata: { labels: { team: 'a' } },
          }),
        );
        const bad = await readyReason('bad-meta', 'InvalidMetadata');
        expect(readyCondition(bad)?.message).toBe(
          `invalid additionalPodMetadata: failed to validate label "team": label "team" must have a domain prefix (e.g. 'sandbox.users.io/my-label') to prevent opting into unintended policy domains`,
        );
      });

      it('TestSandboxClaimReconcile: env injection — Disallowed rejected, Allowed adds, Overrides replaces', async () => {
        await createClaim(
          world,
          newClaim(world.ns, 'env-no', 'cold', { env: [{ name: 'A', value: '1' }] }),
        );
        const no = await readyReason('env-no', 'EnvVarsInjectionRejected');
        expect(readyCondition(no)?.message).toBe(
          'environment variable injection rejected: environment variable injection is not allowed by the template policy',
        );
        const base = newTemplate(world.ns, 'env-allowed', { envVarsInjectionPolicy: 'Allowed' });
        base.spec.podTemplate.spec.containers[0]!.env = [{ name: 'KEEP', value: 'k' }];
        await createTemplate(world, base);
        await createPool(world, newPool(world.ns, 'env-allowed', 'env-allowed', { replicas: 0 }));
        await createClaim(
          world,
          newClaim(world.ns, 'env-yes', 'env-allowed', { env: [{ name: 'A', value: '1' }] }),
        );
        const s = await where<SandboxObj>(world, SANDBOXES, 'env-yes', () => true);
        expect(s.spec.podTemplate.spec.containers[0]?.env).toEqual([
          { name: 'KEEP', value: 'k' },
          { name: 'A', value: '1' },
        ]);
        await createClaim(
          world,
          newClaim(world.ns, 'env-clash', 'env-allowed', { env: [{ name: 'KEEP', value: 'x' }] }),
        );
        const clash = await readyReason('env-clash', 'ReconcilerError');
        expect(readyCondition(clash)?.message).toBe(
          'Error seen: environment variable override is not allowed by the template policy for variable "KEEP"',
        );
        const over = newTemplate(world.ns, 'env-over', { envVarsInjectionPolicy: 'Overrides' });
        over.spec.podTemplate.spec.containers[0]!.env = [{ name: 'KEEP', value: 'k' }];
        await createTemplate(world, over);
        await createPool(world, newPool(world.ns, 'env-over', 'env-over', { replicas: 0 }));
        await createClaim(
          world,
          newClaim(world.ns, 'env-override', 'env-over', { env: [{ name: 'KEEP', value: 'x' }] }),
        );
        const o = await where<SandboxObj>(world, SANDBOXES, 'env-override', () => true);
        expect(o.spec.podTemplate.spec.containers[0]?.env).toEqual([{ name: 'KEEP', value: 'x' }]);
      });

      it('TestCreateSandboxPropagatesVolumeClaimTemplates / TestCreateSandboxClaimVolumeClaimTemplatesSuccess: the template’s and the claim’s volumeClaimTemplates (Allowed) reach the Sandbox, its PVCs and its Pod’s volumes', async () => {
        const vct = (name: string, storage: string): PersistentVolumeClaimTemplate => ({
          metadata: { name, labels: { 'sandbox.users.io/vct': name } },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
        });
        await createTemplate(
          world,
          newTemplate(world.ns, 'tpl-vct', {
            volumeClaimTemplates: [vct('data', '1Gi')],
            volumeClaimTemplatesPolicy: 'Allowed',
          }),
        );
        await createPool(world, newPool(world.ns, 'vct-pool', 'tpl-vct', { replicas: 0 }));
        await createClaim(
          world,
          newClaim(world.ns, 'vct-claim', 'vct-pool', {
            volumeClaimTemplates: [vct('scratch', '2Gi')],
          }),
        );
        const s = await where<SandboxObj>(world, SANDBOXES, 'vct-claim', () => true);
        expect(s.spec.volumeClaimTemplates?.map((v) => v.metadata?.name)).toEqual([
          'data',
          'scratch',
        ]);
        for (const [name, storage] of [
          ['data', '1Gi'],
          ['scratch', '2Gi'],
        ] as const) {
          const pvc = await eventually(() =>
            world.client.get<PersistentVolumeClaim & KubeObject>(
              PERSISTENT_VOLUME_CLAIMS,
              world.ns,
              `${name}-vct-claim`,
            ),
          );
          expect(pvc.spec?.resources?.requests?.['storage']).toBe(storage);
          expect(pvc.metadata.labels?.['sandbox.users.io/vct']).toBe(name);
          expect(pvc.metadata.ownerReferences).toEqual([
            expect.objectContaining({ kind: 'Sandbox', name: 'vct-claim', controller: true }),
          ]);
        }
        const pod = await eventually(() =>
          world.client.get<Pod & KubeObject>(PODS, world.ns, 'vct-claim'),
        );
        expect(
          pod.spec?.volumes
            ?.filter((v) => v.persistentVolumeClaim !== undefined)
            .map((v) => [v.name, v.persistentVolumeClaim?.claimName]),
        ).toEqual([
          ['data', 'data-vct-claim'],
          ['scratch', 'scratch-vct-claim'],
        ]);
      });

      it('TestCreateSandboxClaimVolumeClaimTemplatesSuccess: Overrides keeps the template order with same-named entries replaced by the claim’s and new ones appended; a claim without volumeClaimTemplates needs no policy', async () => {
        const vct = (name: string, storage: string): PersistentVolumeClaimTemplate => ({
          metadata: { name },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
        });
        const storage = (s: SandboxObj): string[] =>
          (s.spec.volumeClaimTemplates ?? []).map(
            (v) => `${v.metadata?.name}=${v.spec.resources?.requests?.['storage']}`,
          );
        await createTemplate(
          world,
          newTemplate(world.ns, 'tpl-vct-over', {
            volumeClaimTemplates: [vct('data', '1Gi'), vct('logs', '1Gi')],
            volumeClaimTemplatesPolicy: 'Overrides',
          }),
        );
        await createPool(world, newPool(world.ns, 'vct-over', 'tpl-vct-over', { replicas: 0 }));
        await createClaim(
          world,
          newClaim(world.ns, 'vct-overrides', 'vct-over', {
            volumeClaimTemplates: [vct('extra', '3Gi'), vct('data', '5Gi')],
          }),
        );
        // The template's own default policy (unset = Disallowed) does not matter without claim VCTs.
        await createTemplate(
          world,
          newTemplate(world.ns, 'tpl-vct-none', { volumeClaimTemplates: [vct('data', '1Gi')] }),
        );
        await createPool(world, newPool(world.ns, 'vct-none', 'tpl-vct-none', { replicas: 0 }));
        await createClaim(world, newClaim(world.ns, 'vct-bypass', 'vct-none'));
        const over = await where<SandboxObj>(world, SANDBOXES, 'vct-overrides', () => true);
        expect(storage(over)).toEqual(['data=5Gi', 'logs=1Gi', 'extra=3Gi']);
        const bypass = await where<SandboxObj>(world, SANDBOXES, 'vct-bypass', () => true);
        expect(storage(bypass)).toEqual(['data=1Gi']);
      });

      it('TestCreateSandboxClaimVolumeClaimTemplatesErrors: Disallowed by default', async () => {
        await createClaim(
          world,
          newClaim(world.ns, 'vct', 'cold', {
            volumeClaimTemplates: [
              {
                metadata: { name: 'data' },
                spec: {
                  accessModes: ['ReadWriteOnce'],
                  resources: { requests: { storage: '1Gi' } },
                },
              },
            ],
          }),
        );
        const c = await readyReason('vct', 'VolumeClaimTemplatesError');
        expect(readyCondition(c)?.message).toBe(
          'failed to merge volume claim templates: volume claim templates are disallowed by the template',
        );
      });

      it('TestSandboxClaimReconcile: a legacy per-claim NetworkPolicy is deleted, a user one with the name kept', async () => {
        const claim = await createClaim(world, newClaim(world.ns, 'legacy', 'cold'));
        const np = {
          apiVersion: 'networking.k8s.io/v1',
          kind: 'NetworkPolicy',
          metadata: {
            name: 'legacy-network-policy',
            namespace: world.ns,
            ownerReferences: [extensionsOwnerRef(claim, 'SandboxClaim')],
          },
          spec: { podSelector: {} },
        };
        await world.client.create(NETWORK_POLICIES, np as KubeObject);
        await eventually(() =>
          gone(world.client, NETWORK_POLICIES, world.ns, 'legacy-network-policy'),
        );
        const user = { ...np, metadata: { name: 'mine-network-policy', namespace: world.ns } };
        await world.client.create(NETWORK_POLICIES, user as KubeObject);
        await createClaim(world, newClaim(world.ns, 'mine', 'cold'));
        await readyReason('mine', 'DependenciesReady');
        await world.client.get(NETWORK_POLICIES, world.ns, 'mine-network-policy');
      });

      it('TestSandboxProvisionEvent: SandboxProvisioned on cold creation', async () => {
        await createClaim(world, newClaim(world.ns, 'evented', 'cold'));
        await eventually(async () => {
          const events = await world.client.list<Event & KubeObject>(EVENTS, world.ns);
          return events.items.find(
            (e) =>
              e.involvedObject.name === 'evented' &&
              e.reason === 'SandboxProvisioned' &&
              e.message === 'Created Sandbox "evented"',
          );
        });
      });
    });
  });
}

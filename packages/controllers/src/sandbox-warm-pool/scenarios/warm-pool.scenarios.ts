// Spec §21.4 sandboxwarmpool_controller_test.go and sandboxwarmpool_overcreation_test.go end to
// end: replicas (nil → 1, scale up/down, zero), member labels/annotations/secure defaults, VCTs,
// readyReplicas/observedGeneration/selector, orphan adoption and foreign members, rollout on
// template change (Recreate, OnReplenish, default, re-pointed ref, multi-template isolation,
// claimed sandboxes untouched), the template→pools mapping, orphan vetting, and no over-creation.
import { Annotations, Labels, nameHash } from '@agent-sandbox/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  SANDBOX_CLAIMS,
  SANDBOX_TEMPLATES,
  SANDBOX_WARM_POOLS,
  type ClaimObject,
  type PoolObject,
  type SandboxObj,
} from '../../extensions/resources.ts';
import { SANDBOXES } from '../../sandbox/child-writes.ts';
import {
  createClaim,
  createPool,
  createTemplate,
  listMembers,
  newClaim,
  newPool,
  newTemplate,
  poolSettled,
  where,
} from '../../testing/extensions.ts';
import {
  createForeignOwner,
  eventually,
  gone,
  newSandbox,
  testPodTemplate,
  openScenarioWorld,
  type ScenarioWorld,
} from '../../testing/harness.ts';

export function defineWarmPoolScenarios(target: TestTarget): void {
  describe(`SandboxWarmPool scenarios (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target, { extensions: {} });
    });
    afterAll(async () => {
      await world?.close();
    });
    const scale = (pool: string, replicas: number): Promise<unknown> =>
      world.client.patch(SANDBOX_WARM_POOLS, world.ns, pool, {
        type: 'merge',
        body: { spec: { replicas } },
      });
    /** A Recreate pool of one member on a new default template, settled. */
    const recreatePool = async (pool: string, template: string): Promise<void> => {
      await createTemplate(world, newTemplate(world.ns, template));
      await createPool(
        world,
        newPool(world.ns, pool, template, { replicas: 1, updateStrategy: { type: 'Recreate' } }),
      );
      await poolSettled(world, pool, 1);
    };
    const setImage = (template: string, image: string): Promise<unknown> =>
      world.client.patch(SANDBOX_TEMPLATES, world.ns, template, {
        type: 'json',
        ops: [{ op: 'replace', path: '/spec/podTemplate/spec/containers/0/image', value: image }],
      });
    const images = async (pool: string): Promise<string[]> =>
      (await listMembers(world, pool))
        .filter((s) => s.metadata.deletionTimestamp === undefined)
        .map((s) => s.spec.podTemplate.spec.containers[0]?.image ?? '')
        .sort();

    const vct = (
      name: string,
      storageClassName: string,
      metadata: Record<string, unknown> = {},
    ) => ({
      metadata: { name, ...metadata },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName,
        resources: { requests: { storage: '1Gi' } },
      },
    });
    const liveMembers = async (pool: string): Promise<SandboxObj[]> =>
      (await listMembers(world, pool)).filter((s) => s.metadata.deletionTimestamp === undefined);
    interface RolloutCase {
      name: string;
      initial?: Record<string, unknown>;
      /** A merge patch of the template's spec. */
      edit: Record<string, unknown>;
      recreate: boolean;
    }
    /**
     * One Recreate pool of one member per case (an Unmanaged template, so no secure DNS default),
     * each template edited once its member exists; waits until every `recreate` member was
     * replaced and checks that the others were kept. A replacement carries a blueprint hash other
     * than its predecessor's, a kept member its own. Returns the replacements by case.
     */
    const rollout = async (cases: RolloutCase[]): Promise<Map<string, SandboxObj>> => {
      const first = new Map<string, SandboxObj>();
      for (const c of cases) {
        await createTemplate(
          world,
          newTemplate(world.ns, `tpl-${c.name}`, {
            networkPolicyManagement: 'Unmanaged',
            ...(c.initial ?? {}),
          }),
        );
        await createPool(
          world,
          newPool(world.ns, c.name, `tpl-${c.name}`, {
            replicas: 1,
            updateStrategy: { type: 'Recreate' },
          }),
        );
      }
      // Non-triggers first: their edits are written before the triggers'.
      const ordered = [...cases.filter((c) => !c.recreate), ...cases.filter((c) => c.recreate)];
      for (const c of ordered) {
        const [member] = await eventually(async () => {
          const m = await liveMembers(c.name);
          return m.length === 1 ? m : undefined;
        });
        first.set(c.name, member as SandboxObj);
        await world.client.patch(SANDBOX_TEMPLATES, world.ns, `tpl-${c.name}`, {
          type: 'merge',
          body: { spec: c.edit },
        });
      }
      const hash = (s: SandboxObj | undefined): string | undefined =>
        s?.metadata.labels?.[Labels.SandboxTemplateHash];
      const replaced = new Map<string, SandboxObj>();
      for (const c of ordered.filter((x) => x.recreate)) {
        const [next] = await eventually(async () => {
          const m = await liveMembers(c.name);
          return m.length === 1 && m[0]?.metadata.uid !== first.get(c.name)?.metadata.uid
            ? m
            : undefined;
        }, 60_000);
        expect(hash(next)).toBeDefined();
        expect(hash(next)).not.toBe(hash(first.get(c.name)));
        replaced.set(c.name, next as SandboxObj);
      }
      // The pools share one controller queue: by the time every trigger was replaced (two
      // passes each), the non-triggers, edited first, were reconciled too.
      for (const c of ordered.filter((x) => !x.recreate)) {
        const [kept] = await liveMembers(c.name);
        expect(kept?.metadata.uid).toBe(first.get(c.name)?.metadata.uid);
        expect(hash(kept)).toBe(hash(first.get(c.name)));
      }
      return replaced;
    };

    describe.concurrent('TestSandboxWarmPoolReconcile', () => {
      it('TestSandboxWarmPoolReconcile / TestApplySandboxSecureDefaults: nil replicas means one; members carry labels, annotation, owner and secure defaults (automount off, public DNS for a Managed template without a policy)', async () => {
        const podTemplate = testPodTemplate();
        podTemplate.metadata = {
          labels: { app: 'agent', version: '2.0' },
          annotations: { 'pod-annotation': 'from-podtemplate' },
        };
        await createTemplate(world, newTemplate(world.ns, 'tpl-one', { podTemplate }));
        await createPool(world, newPool(world.ns, 'one', 'tpl-one'));
        const pool = await poolSettled(world, 'one', 1);
        expect(pool.status).toMatchObject({
          replicas: 1,
          readyReplicas: 1,
          selector: `${Labels.WarmPoolSandbox}=${nameHash('one')}`,
          observedGeneration: pool.metadata.generation,
        });
        const [member] = await listMembers(world, 'one');
        expect(member?.metadata.name).toMatch(/^one-[a-z0-9]{5}$/);
        expect(member?.metadata.labels).toMatchObject({
          [Labels.WarmPoolSandbox]: nameHash('one'),
          [Labels.SandboxTemplateRefHash]: nameHash('tpl-one'),
          [Labels.LaunchType]: 'warm',
          [Labels.CreatedBy]: 'controller',
        });
        expect(member?.metadata.labels?.[Labels.SandboxTemplateHash]).toMatch(/^[0-9a-f]{8}$/);
        expect(member?.metadata.annotations?.[Annotations.SandboxTemplateRef]).toBe('tpl-one');
        expect(member?.metadata.ownerReferences).toEqual([
          expect.objectContaining({ kind: 'SandboxWarmPool', name: 'one', controller: true }),
        ]);
        // TestPoolLabelValueInIntegration: the template's pod labels and annotations come along.
        const memberPod = member?.spec.podTemplate;
        expect(memberPod?.metadata?.annotations).toMatchObject({
          [Annotations.SafeToEvict]: 'true',
          'pod-annotation': 'from-podtemplate',
        });
        expect(memberPod?.metadata?.labels).toMatchObject({
          [Labels.WarmPoolSandbox]: nameHash('one'),
          version: '2.0',
          app: 'agent',
        });
        expect(memberPod?.spec.automountServiceAccountToken).toBe(false);
        expect(memberPod?.spec.dnsPolicy).toBe('None');
        expect(memberPod?.spec.dnsConfig).toEqual({ nameservers: ['8.8.8.8', '1.1.1.1'] });
      });

      it('TestSandboxWarmPoolReconcile: scale up, scale down, zero replicas empties the pool', async () => {
        await createTemplate(world, newTemplate(world.ns, 'tpl-scale'));
        await createPool(world, newPool(world.ns, 'scale', 'tpl-scale', { replicas: 2 }));
        await poolSettled(world, 'scale', 2);
        await scale('scale', 5);
        await poolSettled(world, 'scale', 5);
        await scale('scale', 1);
        await poolSettled(world, 'scale', 1);
        await scale('scale', 0);
        const empty = await poolSettled(world, 'scale', 0);
        // Zero values are cleared from the status (omitempty), the selector stays.
        expect(empty.status?.replicas).toBeUndefined();
        expect(empty.status?.readyReplicas).toBeUndefined();
        expect(empty.status?.selector).toBe(`${Labels.WarmPoolSandbox}=${nameHash('scale')}`);
        await eventually(async () => ((await images('scale')).length === 0 ? true : undefined));
      });

      it('TestSandboxWarmPoolReconcile / TestApplySandboxSecureDefaults: explicit automount and a custom policy keep the template pod spec; VCTs propagated', async () => {
        await createTemplate(
          world,
          newTemplate(world.ns, 'tpl-explicit', {
            networkPolicy: { ingress: [] },
            volumeClaimTemplates: [
              {
                metadata: { name: 'data' },
                spec: {
                  accessModes: ['ReadWriteOnce'],
                  resources: { requests: { storage: '1Gi' } },
                },
              },
            ],
            podTemplate: {
              spec: {
                automountServiceAccountToken: true,
                containers: [{ name: 'main', image: 'busybox' }],
              },
            },
          }),
        );
        await createPool(world, newPool(world.ns, 'explicit', 'tpl-explicit'));
        const [member] = await eventually(async () => {
          const m = await listMembers(world, 'explicit');
          return m.length === 1 ? m : undefined;
        });
        expect(member?.spec.podTemplate.spec.automountServiceAccountToken).toBe(true);
        expect(member?.spec.podTemplate.spec.dnsPolicy).toBeUndefined();
        expect(member?.spec.volumeClaimTemplates?.[0]?.metadata?.name).toBe('data');
      });

      it('TestSandboxWarmPoolReconcile / TestSandboxWarmPoolOrphanVetting: adopts an orphan that matches the template, ignores a foreign-controlled one', async () => {
        await createTemplate(world, newTemplate(world.ns, 'tpl-orphan'));
        const labels = {
          [Labels.WarmPoolSandbox]: nameHash('orphans'),
          [Labels.SandboxTemplateRefHash]: nameHash('tpl-orphan'),
        };
        const orphan = newSandbox(world.ns, 'orphan-a');
        orphan.metadata.labels = labels;
        orphan.spec.podTemplate = newTemplate(world.ns, 'x').spec.podTemplate;
        await world.client.create(SANDBOXES, orphan);
        const foreign = newSandbox(world.ns, 'orphan-foreign');
        foreign.metadata.labels = labels;
        foreign.metadata.ownerReferences = [
          await createForeignOwner(world.client, world.ns, 'cm-pool'),
        ];
        await world.client.create(SANDBOXES, foreign);
        await createPool(world, newPool(world.ns, 'orphans', 'tpl-orphan', { replicas: 1 }));
        const adopted = await where<SandboxObj>(world, SANDBOXES, 'orphan-a', (s) =>
          (s.metadata.ownerReferences ?? []).some((r) => r.kind === 'SandboxWarmPool'),
        );
        expect(adopted.metadata.labels?.[Labels.LaunchType]).toBe('warm');
        await poolSettled(world, 'orphans', 1);
        const members = (await listMembers(world, 'orphans')).map((s) => s.metadata.name).sort();
        expect(members).toEqual(['orphan-a', 'orphan-foreign']);
        const stillForeign = await world.client.get<SandboxObj>(
          SANDBOXES,
          world.ns,
          'orphan-foreign',
        );
        expect(stillForeign.metadata.ownerReferences?.[0]?.kind).toBe('ConfigMap');
      });

      it('TestSandboxWarmPoolRollout: Recreate replaces stale members, OnReplenish and the default keep them', async () => {
        for (const name of ['recreate', 'replenish', 'default']) {
          await createTemplate(world, newTemplate(world.ns, `tpl-${name}`));
          await createPool(
            world,
            newPool(world.ns, name, `tpl-${name}`, {
              replicas: 2,
              ...(name === 'default'
                ? {}
                : { updateStrategy: { type: name === 'recreate' ? 'Recreate' : 'OnReplenish' } }),
            }),
          );
        }
        for (const name of ['recreate', 'replenish', 'default']) await poolSettled(world, name, 2);
        for (const name of ['recreate', 'replenish', 'default']) {
          await setImage(`tpl-${name}`, 'busybox:2');
        }
        await eventually(async () =>
          (await images('recreate')).join() === 'busybox:2,busybox:2' ? true : undefined,
        );
        await poolSettled(world, 'recreate', 2);
        expect(await images('replenish')).toEqual(['busybox', 'busybox']);
        expect(await images('default')).toEqual(['busybox', 'busybox']);
        // Replenishment uses the new template: a member lost from an OnReplenish pool comes back
        // on busybox:2, the other keeps the old image.
        const [lost] = await listMembers(world, 'replenish');
        await world.client.delete(SANDBOXES, world.ns, lost?.metadata.name ?? '');
        await eventually(async () =>
          (await images('replenish')).join() === 'busybox,busybox:2' ? true : undefined,
        );
      });

      it('TestSandboxWarmPoolRollout / TestSandboxWarmPoolRecreateNonTriggers: a metadata-only template edit does not roll a Recreate pool', async () => {
        await recreatePool('meta', 'tpl-meta');
        const [before] = await listMembers(world, 'meta');
        await world.client.patch(SANDBOX_TEMPLATES, world.ns, 'tpl-meta', {
          type: 'merge',
          body: { spec: { podTemplate: { metadata: { labels: { app: 'agent', extra: 'x' } } } } },
        });
        await new Promise((r) => setTimeout(r, 1_000));
        const [after] = await listMembers(world, 'meta');
        expect(after?.metadata.uid).toBe(before?.metadata.uid);
      });

      it('TestSandboxWarmPoolRollout: re-pointing a Recreate pool to an identical template recreates its members', async () => {
        await createTemplate(world, newTemplate(world.ns, 'tpl-first'));
        await createTemplate(world, newTemplate(world.ns, 'tpl-second'));
        await createPool(
          world,
          newPool(world.ns, 'repoint', 'tpl-first', {
            replicas: 1,
            updateStrategy: { type: 'Recreate' },
          }),
        );
        await poolSettled(world, 'repoint', 1);
        await world.client.patch(SANDBOX_WARM_POOLS, world.ns, 'repoint', {
          type: 'merge',
          body: { spec: { sandboxTemplateRef: { name: 'tpl-second' } } },
        });
        await eventually(async () => {
          const m = (await listMembers(world, 'repoint')).filter(
            (s) => s.metadata.deletionTimestamp === undefined,
          );
          return m.length === 1 &&
            m[0]?.metadata.labels?.[Labels.SandboxTemplateRefHash] === nameHash('tpl-second')
            ? true
            : undefined;
        });
        await poolSettled(world, 'repoint', 1);
      });

      it('TestSandboxWarmPoolOverCreation: a burst of pool events never over-creates', async () => {
        await createTemplate(world, newTemplate(world.ns, 'tpl-burst'));
        await createPool(world, newPool(world.ns, 'burst', 'tpl-burst', { replicas: 10 }));
        // Status-only and annotation writes re-enqueue the pool while its creates are in flight.
        for (let i = 0; i < 10; i++) {
          await world.client.patch(SANDBOX_WARM_POOLS, world.ns, 'burst', {
            type: 'merge',
            body: { metadata: { annotations: { poke: String(i) } } },
          });
        }
        await poolSettled(world, 'burst', 10);
        const all = await world.client.list<SandboxObj>(SANDBOXES, world.ns, {
          labelSelector: `${Labels.WarmPoolSandbox}=${nameHash('burst')}`,
        });
        expect(all.items).toHaveLength(10);
      });

      it('TestFindWarmPoolsForTemplate: a template created after its pool wakes the pool, which fills', async () => {
        await createPool(world, newPool(world.ns, 'late', 'tpl-late', { replicas: 2 }));
        // No template: the pass creates nothing and asks for no requeue, so only the template's
        // own event can start the fill.
        const waiting = await where<PoolObject>(
          world,
          SANDBOX_WARM_POOLS,
          'late',
          (p) => p.status?.observedGeneration === p.metadata.generation,
        );
        expect(waiting.status?.replicas).toBeUndefined();
        expect(await listMembers(world, 'late')).toEqual([]);
        await createTemplate(world, newTemplate(world.ns, 'tpl-late'));
        await poolSettled(world, 'late', 2);
      });

      it('TestSandboxWarmPoolRollout: multi-template isolation — editing one template rolls only the pools that reference it', async () => {
        for (const name of ['iso-a', 'iso-b']) {
          await createTemplate(world, newTemplate(world.ns, `tpl-${name}`));
          await createPool(
            world,
            newPool(world.ns, name, `tpl-${name}`, {
              replicas: 1,
              updateStrategy: { type: 'Recreate' },
            }),
          );
        }
        for (const name of ['iso-a', 'iso-b']) await poolSettled(world, name, 1);
        const [untouched] = await listMembers(world, 'iso-b');
        await setImage('tpl-iso-a', 'busybox:2');
        await eventually(async () =>
          (await images('iso-a')).join() === 'busybox:2' ? true : undefined,
        );
        await poolSettled(world, 'iso-a', 1);
        const [after] = await listMembers(world, 'iso-b');
        expect(after?.metadata.uid).toBe(untouched?.metadata.uid);
      });

      it('TestSandboxWarmPoolRollout: Recreate never touches a claimed sandbox', async () => {
        await recreatePool('claimed', 'tpl-claimed');
        const [warm] = await listMembers(world, 'claimed');
        await createClaim(world, newClaim(world.ns, 'holder', 'claimed'));
        const bound = await where<ClaimObject>(
          world,
          SANDBOX_CLAIMS,
          'holder',
          (c) => c.status?.sandbox?.name === warm?.metadata.name,
        );
        await poolSettled(world, 'claimed', 1);
        await setImage('tpl-claimed', 'busybox:2');
        await eventually(async () =>
          (await images('claimed')).join() === 'busybox:2' ? true : undefined,
        );
        const kept = await world.client.get<SandboxObj>(
          SANDBOXES,
          world.ns,
          bound.status?.sandbox?.name ?? '',
        );
        expect(kept.metadata.uid).toBe(warm?.metadata.uid);
        expect(kept.metadata.deletionTimestamp).toBeUndefined();
        expect(kept.spec.podTemplate.spec.containers[0]?.image).toBe('busybox');
      });

      it('TestReconcilePool_TemplateUpdateRecreate / TestSandboxWarmPoolRecreateTriggers / TestSandboxWarmPoolRecreateNonTriggers: a Recreate pool replaces its member on a VCT addition, a VCT spec change, a VCT removal and a Service addition, and keeps it on VCT label or annotation drift', async () => {
        const replaced = await rollout([
          {
            name: 'vct-labels',
            initial: { volumeClaimTemplates: [vct('data', 'standard')] },
            edit: {
              volumeClaimTemplates: [vct('data', 'standard', { labels: { extra: 'label' } })],
            },
            recreate: false,
          },
          {
            name: 'vct-annotations',
            initial: { volumeClaimTemplates: [vct('data', 'standard')] },
            edit: {
              volumeClaimTemplates: [
                vct('data', 'standard', { annotations: { extra: 'annotation' } }),
              ],
            },
            recreate: false,
          },
          {
            name: 'vct-add',
            edit: { volumeClaimTemplates: [vct('data', 'standard')] },
            recreate: true,
          },
          {
            name: 'vct-change',
            initial: { volumeClaimTemplates: [vct('data', 'standard')] },
            edit: { volumeClaimTemplates: [vct('data', 'fast-ssd')] },
            recreate: true,
          },
          {
            name: 'vct-remove',
            initial: { volumeClaimTemplates: [vct('data', 'standard')] },
            edit: { volumeClaimTemplates: null },
            recreate: true,
          },
          { name: 'svc-add', edit: { service: true }, recreate: true },
        ]);
        const blueprint = (name: string) => replaced.get(name)?.spec;
        expect(blueprint('vct-add')?.volumeClaimTemplates?.[0]?.metadata?.name).toBe('data');
        expect(blueprint('vct-change')?.volumeClaimTemplates?.[0]?.spec.storageClassName).toBe(
          'fast-ssd',
        );
        expect(blueprint('vct-remove')?.volumeClaimTemplates ?? []).toEqual([]);
        expect(blueprint('svc-add')?.service).toBe(true);
      });

      it('TestCompareSandboxBlueprint / TestCompareSandboxBlueprintAllFields / TestSandboxWarmPoolPodSpecNormalization / TestSandboxTemplateBlueprintHash: a Recreate pool keeps its member when the template only spells out a secure default (automount false) or edits pod labels, and replaces it on a VCT reorder or rename, service false where it was unset, a container env var or an image — replacements carry the new blueprint hash, kept members their old one', async () => {
        const containers = (extra: Record<string, unknown>) => [
          { ...testPodTemplate().spec.containers[0], ...extra },
        ];
        await rollout([
          {
            name: 'bp-automount',
            edit: { podTemplate: { spec: { automountServiceAccountToken: false } } },
            recreate: false,
          },
          {
            name: 'bp-labels',
            edit: { podTemplate: { metadata: { labels: { app: 'agent', tier: 'new' } } } },
            recreate: false,
          },
          {
            name: 'bp-vct-order',
            initial: { volumeClaimTemplates: [vct('a', 'standard'), vct('b', 'standard')] },
            edit: { volumeClaimTemplates: [vct('b', 'standard'), vct('a', 'standard')] },
            recreate: true,
          },
          {
            name: 'bp-vct-name',
            initial: { volumeClaimTemplates: [vct('data', 'standard')] },
            edit: { volumeClaimTemplates: [vct('data2', 'standard')] },
            recreate: true,
          },
          { name: 'bp-svc-false', edit: { service: false }, recreate: true },
          {
            name: 'bp-env',
            edit: {
              podTemplate: {
                spec: { containers: containers({ env: [{ name: 'A', value: '1' }] }) },
              },
            },
            recreate: true,
          },
          {
            name: 'bp-image',
            edit: { podTemplate: { spec: { containers: containers({ image: 'busybox:2' }) } } },
            recreate: true,
          },
        ]);
      });

      it('TestReconcilePool_TemplateUpdate_DNSPolicy / TestSandboxWarmPoolDNSPolicyTemplateUpdate: a Recreate pool of an Unmanaged template rolls its members to the new dnsPolicy', async () => {
        await createTemplate(
          world,
          newTemplate(world.ns, 'tpl-dns', {
            networkPolicyManagement: 'Unmanaged',
            podTemplate: {
              ...testPodTemplate(),
              spec: { ...testPodTemplate().spec, dnsPolicy: 'Default' },
            },
          }),
        );
        await createPool(
          world,
          newPool(world.ns, 'dns', 'tpl-dns', {
            replicas: 2,
            updateStrategy: { type: 'Recreate' },
          }),
        );
        const dnsPolicies = async (): Promise<string> =>
          (await listMembers(world, 'dns'))
            .filter((s) => s.metadata.deletionTimestamp === undefined)
            .map((s) => s.spec.podTemplate.spec.dnsPolicy ?? '')
            .sort()
            .join();
        await eventually(async () =>
          (await dnsPolicies()) === 'Default,Default' ? true : undefined,
        );
        await world.client.patch(SANDBOX_TEMPLATES, world.ns, 'tpl-dns', {
          type: 'merge',
          body: { spec: { podTemplate: { spec: { dnsPolicy: 'ClusterFirst' } } } },
        });
        await eventually(
          async () => ((await dnsPolicies()) === 'ClusterFirst,ClusterFirst' ? true : undefined),
          60_000,
        );
      });

      it('TestSandboxWarmPoolReconcile / TestSandboxWarmPoolOrphanVetting: an orphan whose spec differs from the template is deleted, not adopted', async () => {
        await createTemplate(world, newTemplate(world.ns, 'tpl-vet'));
        const orphan = newSandbox(world.ns, 'orphan-stale');
        orphan.metadata.labels = {
          [Labels.WarmPoolSandbox]: nameHash('vet'),
          [Labels.SandboxTemplateRefHash]: nameHash('tpl-vet'),
        };
        orphan.spec.podTemplate = newTemplate(world.ns, 'x').spec.podTemplate;
        orphan.spec.podTemplate.spec.containers[0]!.image = 'busybox:old';
        await world.client.create(SANDBOXES, orphan);
        await createPool(world, newPool(world.ns, 'vet', 'tpl-vet', { replicas: 1 }));
        expect(
          await eventually(() => gone(world.client, SANDBOXES, world.ns, 'orphan-stale')),
        ).toBe(true);
        await poolSettled(world, 'vet', 1);
        expect(await images('vet')).toEqual(['busybox']);
      });

      it('TestSandboxWarmPoolReconcile: a deleted member is replaced', async () => {
        await createTemplate(world, newTemplate(world.ns, 'tpl-replace'));
        await createPool(world, newPool(world.ns, 'replace', 'tpl-replace', { replicas: 2 }));
        await poolSettled(world, 'replace', 2);
        const [victim] = await listMembers(world, 'replace');
        await world.client.delete(SANDBOXES, world.ns, victim?.metadata.name ?? '');
        await eventually(async () => {
          const m = (await listMembers(world, 'replace')).filter(
            (s) => s.metadata.deletionTimestamp === undefined,
          );
          return m.length === 2 && !m.some((s) => s.metadata.uid === victim?.metadata.uid)
            ? true
            : undefined;
        });
        const pool = await poolSettled(world, 'replace', 2);
        expect((pool as PoolObject).status?.readyReplicas).toBe(2);
      });
    });
  });
}

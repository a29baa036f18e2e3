// Spec §21.3 warm adoption end to end: TestSandboxClaimSandboxAdoption (the hand-over from the
// pool to the claim), pod exclusivity (sandboxclaim_pod_exclusivity_test.go), no re-adoption by a
// bound claim, a Recreate candidate kept while its template cannot be read, and claim-time env
// on the warm path (beyond upstream, ADR 0023).
import { Annotations, Labels } from '@agent-sandbox/api';
import { PODS } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  SANDBOX_CLAIMS,
  SANDBOX_TEMPLATES,
  SANDBOX_WARM_POOLS,
  extensionsOwnerRef,
  type ClaimObject,
  type SandboxObj,
} from '../../extensions/resources.ts';
import { SANDBOXES } from '../../sandbox/child-writes.ts';
import { CLAIM_ENV_ANNOTATION, WARM_ENV_ANNOTATION } from '../warm-env.ts';
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
  readyCondition,
} from '../../testing/extensions.ts';
import {
  eventually,
  gone,
  newSandbox,
  openScenarioWorld,
  type ScenarioWorld,
} from '../../testing/harness.ts';

export function defineClaimAdoptionScenarios(target: TestTarget): void {
  describe(`SandboxClaim warm adoption (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target, { extensions: {} });
      await createTemplate(world, newTemplate(world.ns, 'tpl'));
      await createPool(world, newPool(world.ns, 'cold', 'tpl', { replicas: 0 }));
    });
    afterAll(async () => {
      await world?.close();
    });
    const readyReason = (name: string, reason: string): Promise<ClaimObject> =>
      where<ClaimObject>(world, SANDBOX_CLAIMS, name, (c) => readyCondition(c)?.reason === reason);

    describe.concurrent('TestSandboxClaimSandboxAdoption', () => {
      it('TestSandboxClaimSandboxAdoption: adopts a Ready warm Sandbox (owner, labels, pod-name) and the pool replenishes', async () => {
        await createPool(world, newPool(world.ns, 'warm', 'tpl', { replicas: 2 }));
        await poolSettled(world, 'warm', 2);
        const before = (await listMembers(world, 'warm')).map((s) => s.metadata.name);
        const claim = newClaim(world.ns, 'warm-one', 'warm');
        claim.metadata.labels = { [Labels.CreatedBy]: 'go-client' };
        const created = await createClaim(world, claim);
        const done = await readyReason('warm-one', 'DependenciesReady');
        const name = done.status?.sandbox?.name ?? '';
        expect(before).toContain(name);
        expect(done.metadata.annotations?.[Annotations.SandboxName]).toBe(name);
        const s = await world.client.get<SandboxObj>(SANDBOXES, world.ns, name);
        expect(s.metadata.ownerReferences).toEqual([
          expect.objectContaining({
            kind: 'SandboxClaim',
            name: 'warm-one',
            uid: created.metadata.uid,
            controller: true,
          }),
        ]);
        expect(s.metadata.labels?.[Labels.WarmPoolSandbox]).toBeUndefined();
        expect(s.metadata.labels?.[Labels.SandboxTemplateHash]).toBeUndefined();
        expect(s.metadata.labels).toMatchObject({
          [Labels.LaunchType]: 'warm',
          [Labels.ClaimUid]: created.metadata.uid,
          [Labels.CreatedBy]: 'go-client',
        });
        expect(s.metadata.annotations?.[Annotations.PodName]).toBe(name);
        expect(s.spec.podTemplate.metadata?.annotations?.[Annotations.SafeToEvict]).toBeUndefined();
        // The Sandbox controller takes the pool label off the Pod in place.
        await eventually(async () => {
          const pod = await world.client.get<KubeObject>(PODS, world.ns, name);
          return pod.metadata.labels?.[Labels.WarmPoolSandbox] === undefined ? true : undefined;
        });
        await poolSettled(world, 'warm', 2);
        expect((await listMembers(world, 'warm')).map((m) => m.metadata.name)).not.toContain(name);
      });

      it('TestSandboxClaimPodExclusivity: 2 warm Sandboxes, 3 claims → each owns exactly one distinct Sandbox', async () => {
        await createPool(world, newPool(world.ns, 'excl', 'tpl', { replicas: 2 }));
        await poolSettled(world, 'excl', 2);
        await world.client.patch(SANDBOX_WARM_POOLS, world.ns, 'excl', {
          type: 'merge',
          body: { spec: { replicas: 0 } },
        });
        const claims = ['excl-a', 'excl-b', 'excl-c'];
        await Promise.all(claims.map((c) => createClaim(world, newClaim(world.ns, c, 'excl'))));
        const done = await Promise.all(claims.map((c) => readyReason(c, 'DependenciesReady')));
        const names = done.map((c) => c.status?.sandbox?.name);
        expect(new Set(names).size).toBe(3);
        const sandboxes = await world.client.list<SandboxObj>(SANDBOXES, world.ns);
        for (const c of done) {
          const owned = sandboxes.items.filter((s) =>
            s.metadata.ownerReferences?.some((r) => r.uid === c.metadata.uid),
          );
          expect(owned).toHaveLength(1);
        }
      });

      it("TestSandboxClaimPodExclusivity (beyond upstream): a second Sandbox controlled by a bound claim — a dead manager's late write — is deleted, the bound one kept", async () => {
        const created = await createClaim(world, newClaim(world.ns, 'one-only', 'cold'));
        await readyReason('one-only', 'DependenciesReady');
        const extra = newSandbox(world.ns, 'one-only-late');
        extra.metadata.ownerReferences = [extensionsOwnerRef(created, 'SandboxClaim')];
        await world.client.create(SANDBOXES, extra);
        await eventually(() => gone(world.client, SANDBOXES, world.ns, 'one-only-late'));
        const c = await readyReason('one-only', 'DependenciesReady');
        expect(c.status?.sandbox?.name).toBe('one-only');
        expect(
          (await world.client.get<SandboxObj>(SANDBOXES, world.ns, 'one-only')).metadata.uid,
        ).toBeDefined();
      });

      it('TestSandboxClaimNoReAdoption: a bound claim keeps its Sandbox', async () => {
        await createPool(world, newPool(world.ns, 'noreadopt', 'tpl', { replicas: 1 }));
        await poolSettled(world, 'noreadopt', 1);
        await createClaim(world, newClaim(world.ns, 'bound', 'noreadopt'));
        const first = await readyReason('bound', 'DependenciesReady');
        // The pool's status can still count the adopted member: wait for its replacement.
        await eventually(async () => {
          const m = await listMembers(world, 'noreadopt');
          return m.length === 1 && m[0]?.metadata.name !== first.status?.sandbox?.name
            ? true
            : undefined;
        });
        await poolSettled(world, 'noreadopt', 1);
        await world.client.patch(SANDBOX_CLAIMS, world.ns, 'bound', {
          type: 'merge',
          body: { metadata: { annotations: { poke: '1' } } },
        });
        await new Promise((r) => setTimeout(r, 500));
        const again = await world.client.get<ClaimObject>(SANDBOX_CLAIMS, world.ns, 'bound');
        expect(again.status?.sandbox?.name).toBe(first.status?.sandbox?.name);
        expect(await listMembers(world, 'noreadopt')).toHaveLength(1);
      });
    });

    describe.concurrent('TestGetCandidateRequeuesRecreateCandidateOnTemplateLookupError', () => {
      it('TestGetCandidateRequeuesRecreateCandidateOnTemplateLookupError: under Recreate with the template gone the member is pushed back, not adopted nor discarded (TemplateNotFound); the template created again wakes the claim and it adopts that member', async () => {
        await createTemplate(world, newTemplate(world.ns, 'tpl-rc'));
        await createPool(
          world,
          newPool(world.ns, 'rc', 'tpl-rc', { replicas: 1, updateStrategy: { type: 'Recreate' } }),
        );
        await poolSettled(world, 'rc', 1);
        const [member] = await listMembers(world, 'rc');
        const name = member?.metadata.name ?? '';
        await world.client.delete(SANDBOX_TEMPLATES, world.ns, 'tpl-rc');
        const templates = world.controller.manager.getInformer(SANDBOX_TEMPLATES).cache;
        await eventually(() =>
          templates.get(`${world.ns}/tpl-rc`) === undefined ? true : undefined,
        );
        await createClaim(world, newClaim(world.ns, 'rc-claim', 'rc'));
        const waiting = await readyReason('rc-claim', 'TemplateNotFound');
        expect(waiting.status?.sandbox).toBeUndefined();
        const kept = await world.client.get<SandboxObj>(SANDBOXES, world.ns, name);
        expect(kept.metadata.ownerReferences?.find((r) => r.controller)?.kind).toBe(
          'SandboxWarmPool',
        );
        await createTemplate(world, newTemplate(world.ns, 'tpl-rc'));
        const done = await readyReason('rc-claim', 'DependenciesReady');
        expect(done.status?.sandbox?.name).toBe(name);
      });
    });

    describe.concurrent('TestSandboxClaimWarmEnv (beyond upstream, ADR 0023)', () => {
      it('TestSandboxClaimWarmEnv: with the template opt-in a claim with env adopts warm; the env reaches the running Pod as an annotation', async () => {
        const tpl = newTemplate(world.ns, 'tpl-warm-env', { envVarsInjectionPolicy: 'Allowed' });
        tpl.metadata.annotations = { [WARM_ENV_ANNOTATION]: 'pod-annotation' };
        await createTemplate(world, tpl);
        await createPool(world, newPool(world.ns, 'warm-env', 'tpl-warm-env', { replicas: 1 }));
        await poolSettled(world, 'warm-env', 1);
        const [member] = await listMembers(world, 'warm-env');
        await createClaim(
          world,
          newClaim(world.ns, 'env-warm', 'warm-env', { env: [{ name: 'TOKEN', value: 't-1' }] }),
        );
        const done = await readyReason('env-warm', 'DependenciesReady');
        expect(done.status?.sandbox?.name).toBe(member?.metadata.name);
        const want = JSON.stringify([{ containerName: 'main', name: 'TOKEN', value: 't-1' }]);
        const pod = await eventually(async () => {
          const p = await world.client.get<KubeObject>(PODS, world.ns, member?.metadata.name ?? '');
          return p.metadata.annotations?.[CLAIM_ENV_ANNOTATION] === want ? p : undefined;
        });
        expect(pod.metadata.uid).toBeDefined();
        // The Pod was not replaced: same Sandbox, spec env untouched.
        const s = await world.client.get<SandboxObj>(
          SANDBOXES,
          world.ns,
          member?.metadata.name ?? '',
        );
        expect(s.spec.podTemplate.spec.containers[0]?.env).toBeUndefined();
      });

      it('TestSandboxClaimWarmEnv: without the opt-in env forces a cold start (upstream); the policy still applies on the warm path', async () => {
        await createTemplate(
          world,
          newTemplate(world.ns, 'tpl-env-cold', { envVarsInjectionPolicy: 'Allowed' }),
        );
        await createPool(world, newPool(world.ns, 'env-cold', 'tpl-env-cold', { replicas: 1 }));
        await poolSettled(world, 'env-cold', 1);
        await createClaim(
          world,
          newClaim(world.ns, 'env-cold-claim', 'env-cold', { env: [{ name: 'A', value: '1' }] }),
        );
        const cold = await readyReason('env-cold-claim', 'DependenciesReady');
        expect(cold.status?.sandbox?.name).toBe('env-cold-claim');
        const denied = newTemplate(world.ns, 'tpl-env-denied');
        denied.metadata.annotations = { [WARM_ENV_ANNOTATION]: 'pod-annotation' };
        await createTemplate(world, denied);
        await createPool(world, newPool(world.ns, 'env-denied', 'tpl-env-denied', { replicas: 1 }));
        await createClaim(
          world,
          newClaim(world.ns, 'env-denied-claim', 'env-denied', {
            env: [{ name: 'A', value: '1' }],
          }),
        );
        await readyReason('env-denied-claim', 'EnvVarsInjectionRejected');
        await createClaim(
          world,
          newClaim(world.ns, 'env-smuggle', 'cold', {
            additionalPodMetadata: { annotations: { [CLAIM_ENV_ANNOTATION]: '[]' } },
          }),
        );
        await readyReason('env-smuggle', 'InvalidMetadata');
      });
    });
  });
}

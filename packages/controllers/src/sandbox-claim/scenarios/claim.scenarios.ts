// Spec §21.3 sandboxclaim_controller_test.go (+ small files) end to end: cold creation, template
// and pool resolution, foreign Sandboxes, Ready forwarding, metadata and env policies, warm
// adoption and exclusivity, cleanup policies and TTL after Finished, events, recovery.
import { Annotations, Labels, nameHash, type Condition } from '@agent-sandbox/api';
import { EVENTS, PODS } from '@agent-sandbox/kube';
import type { Event, KubeObject } from '@agent-sandbox/kube-types';
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
} from '../../testing/extensions.ts';
import {
  SCRIPTED_SCHEDULER,
  eventually,
  gone,
  newSandbox,
  openScenarioWorld,
  setPodStatus,
  type ScenarioWorld,
} from '../../testing/harness.ts';

function ready(claim: ClaimObject): Condition | undefined {
  return claim.status?.conditions?.find((c) => c.type === 'Ready');
}

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
      claimWhere(name, (c) => ready(c)?.reason === reason);

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
        expect(ready(done)).toMatchObject({
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

      it('TestSandboxClaimReconcile: pool missing → WarmPoolNotFound; template missing → TemplateNotFound', async () => {
        await createClaim(world, newClaim(world.ns, 'no-pool', 'absent'));
        const a = await readyReason('no-pool', 'WarmPoolNotFound');
        expect(ready(a)?.message).toBe('SandboxWarmPool "absent" not found');
        await createPool(world, newPool(world.ns, 'no-tpl', 'missing-tpl', { replicas: 0 }));
        await createClaim(world, newClaim(world.ns, 'no-tpl-claim', 'no-tpl'));
        const b = await readyReason('no-tpl-claim', 'TemplateNotFound');
        expect(ready(b)?.message).toBe('SandboxTemplate "missing-tpl" not found');
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
        expect(ready(c)?.message).toBe(
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
        expect(ready(bad)?.message).toBe(
          `invalid additionalPodMetadata: failed to validate label "team": label "team" must have a domain prefix (e.g. 'sandbox.users.io/my-label') to prevent opting into unintended policy domains`,
        );
      });

      it('TestSandboxClaimReconcile: env injection — Disallowed rejected, Allowed adds, Overrides replaces', async () => {
        await createClaim(
          world,
          newClaim(world.ns, 'env-no', 'cold', { env: [{ name: 'A', value: '1' }] }),
        );
        const no = await readyReason('env-no', 'EnvVarsInjectionRejected');
        expect(ready(no)?.message).toBe(
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
        expect(ready(clash)?.message).toBe(
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
        expect(ready(c)?.message).toBe(
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
        await world.client.patch(
          (await import('../../extensions/resources.ts')).SANDBOX_WARM_POOLS,
          world.ns,
          'excl',
          { type: 'merge', body: { spec: { replicas: 0 } } },
        );
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

    describe.concurrent('TestSandboxClaimCleanupPolicy', () => {
      const soon = (): string =>
        new Date(Date.now() + 1_500).toISOString().replace(/\.\d{3}Z$/, 'Z');

      it('TestSandboxClaimCleanupPolicy: Retain deletes the Sandbox and keeps the claim (ClaimExpired)', async () => {
        await createClaim(
          world,
          newClaim(world.ns, 'retain', 'cold', {
            lifecycle: { shutdownTime: soon(), shutdownPolicy: 'Retain' },
          }),
        );
        await where<SandboxObj>(world, SANDBOXES, 'retain', () => true);
        const c = await readyReason('retain', 'ClaimExpired');
        expect(ready(c)?.message).toBe('Claim expired. Sandbox cleanup initiated.');
        await eventually(() => gone(world.client, SANDBOXES, world.ns, 'retain'));
        // The pass after the Sandbox's delete event clears the binding.
        const after = await claimWhere('retain', (x) => x.status?.sandbox === undefined);
        expect(ready(after)?.reason).toBe('ClaimExpired');
      });

      it('TestSandboxClaimCleanupPolicy: Delete deletes the claim (and its Sandbox through GC)', async () => {
        await createClaim(
          world,
          newClaim(world.ns, 'delete', 'cold', {
            lifecycle: { shutdownTime: soon(), shutdownPolicy: 'Delete' },
          }),
        );
        await where<SandboxObj>(world, SANDBOXES, 'delete', () => true);
        await eventually(() => gone(world.client, SANDBOX_CLAIMS, world.ns, 'delete'));
        await eventually(() => gone(world.client, SANDBOXES, world.ns, 'delete'), 30_000);
      });

      it('TestSandboxClaimCleanupPolicy: DeleteForeground keeps the claim until its Sandbox is gone', async () => {
        await createClaim(
          world,
          newClaim(world.ns, 'foreground', 'cold', {
            lifecycle: { shutdownTime: soon(), shutdownPolicy: 'DeleteForeground' },
          }),
        );
        await where<SandboxObj>(world, SANDBOXES, 'foreground', () => true);
        await eventually(() => gone(world.client, SANDBOX_CLAIMS, world.ns, 'foreground'), 30_000);
        expect(await gone(world.client, SANDBOXES, world.ns, 'foreground')).toBe(true);
      });

      it('TestSandboxClaimMirrorsFinishedConditionAndSchedulesTTL / TestSandboxClaimTTLAfterFinishedCleanupPolicy: Finished mirrored; the TTL requeue (no other event comes) expires it; Retain keeps Finished', async () => {
        const scripted = newTemplate(world.ns, 'tpl-scripted');
        scripted.spec.podTemplate.spec.schedulerName = SCRIPTED_SCHEDULER;
        await createTemplate(world, scripted);
        await createPool(world, newPool(world.ns, 'scripted', 'tpl-scripted', { replicas: 0 }));
        await createClaim(
          world,
          newClaim(world.ns, 'ttl', 'scripted', {
            lifecycle: { ttlSecondsAfterFinished: 1, shutdownPolicy: 'Retain' },
          }),
        );
        await eventually(() => world.client.get(PODS, world.ns, 'ttl'));
        await setPodStatus(world.client, world.ns, 'ttl', { phase: 'Succeeded' });
        const finished = await claimWhere(
          'ttl',
          (c) =>
            c.status?.conditions?.some((x) => x.type === 'Finished' && x.status === 'True') ??
            false,
        );
        expect(finished.status?.conditions?.find((x) => x.type === 'Finished')?.reason).toBe(
          'PodSucceeded',
        );
        const expired = await readyReason('ttl', 'ClaimExpired');
        expect(expired.status?.conditions?.map((x) => x.type)).toEqual(['Finished', 'Ready']);
        await eventually(() => gone(world.client, SANDBOXES, world.ns, 'ttl'));
        const kept = await world.client.get<ClaimObject>(SANDBOX_CLAIMS, world.ns, 'ttl');
        expect(kept.status?.conditions?.find((x) => x.type === 'Finished')?.status).toBe('True');
      });
    });
  });
}

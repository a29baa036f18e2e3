// Spec §21.4 sandboxtemplate_controller_test.go end to end: the managed NetworkPolicy (secure
// default, custom rules, spec edits), Unmanaged (none created, an owned one deleted), and a
// policy of that name the template does not control (never updated or deleted). utils_test.go's
// template ref hash is seen where it lands: the template's label, the policy's selector, members.
import { Labels, nameHash } from '@agent-sandbox/api';
import type { NetworkPolicy } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  NETWORK_POLICIES,
  SANDBOX_TEMPLATES,
  type TemplateObject,
} from '../../extensions/resources.ts';
import {
  createPool,
  createTemplate,
  newPool,
  newTemplate,
  poolMembers,
  where,
} from '../../testing/extensions.ts';
import { eventually, gone, openScenarioWorld, type ScenarioWorld } from '../../testing/harness.ts';
import type { NetworkPolicyObject } from '../network-policy.ts';

export function defineTemplateScenarios(target: TestTarget): void {
  describe(`SandboxTemplate scenarios (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target, { extensions: {} });
    });
    afterAll(async () => {
      await world?.close();
    });
    const policy = (name: string): Promise<NetworkPolicyObject> =>
      eventually(() => world.client.get<NetworkPolicyObject>(NETWORK_POLICIES, world.ns, name));

    describe.concurrent('TestSandboxTemplateReconcile', () => {
      it('TestSandboxTemplateReconcile: default secure policy, and the template labelled with its ref hash', async () => {
        await createTemplate(world, newTemplate(world.ns, 'secure'));
        const np = await policy('secure-network-policy');
        expect(np.spec).toMatchObject({
          podSelector: { matchLabels: { [Labels.SandboxTemplateRefHash]: nameHash('secure') } },
          policyTypes: ['Ingress', 'Egress'],
          ingress: [
            {
              from: [
                {
                  namespaceSelector: {
                    matchLabels: { 'kubernetes.io/metadata.name': 'agent-sandbox-system' },
                  },
                  podSelector: { matchLabels: { app: 'sandbox-router' } },
                },
              ],
            },
          ],
          egress: [
            {
              to: [
                {
                  ipBlock: {
                    cidr: '0.0.0.0/0',
                    except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16'],
                  },
                },
                { ipBlock: { cidr: '::/0', except: ['fc00::/7', 'fe80::/10'] } },
              ],
            },
          ],
        });
        expect(np.metadata.ownerReferences).toEqual([
          expect.objectContaining({ kind: 'SandboxTemplate', name: 'secure', controller: true }),
        ]);
        await where<TemplateObject>(
          world,
          SANDBOX_TEMPLATES,
          'secure',
          (t) => t.metadata.labels?.[Labels.SandboxTemplateRefHash] === nameHash('secure'),
        );
      });

      it('TestSandboxTemplateReconcileNetworkPolicy: a second pass leaves the labelled template alone — an owned policy deleted by hand is recreated without another template write', async () => {
        await createTemplate(world, newTemplate(world.ns, 'again'));
        const labelled = await where<TemplateObject>(
          world,
          SANDBOX_TEMPLATES,
          'again',
          (t) => t.metadata.labels?.[Labels.SandboxTemplateRefHash] === nameHash('again'),
        );
        const first = await policy('again-network-policy');
        // The policy's delete event (an owned kind) brings the next pass.
        await world.client.delete(NETWORK_POLICIES, world.ns, 'again-network-policy');
        const recreated = await eventually(async () => {
          const np = await world.client.get<NetworkPolicyObject>(
            NETWORK_POLICIES,
            world.ns,
            'again-network-policy',
          );
          return np.metadata.uid !== first.metadata.uid ? np : undefined;
        });
        expect(recreated.spec?.podSelector).toEqual(first.spec?.podSelector);
        // Upstream's fake client counts any write; both real servers skip a no-op patch, so
        // what this pins is that the pass changed nothing on the template.
        const after = await world.client.get<TemplateObject>(SANDBOX_TEMPLATES, world.ns, 'again');
        expect(after.metadata.resourceVersion).toBe(labelled.metadata.resourceVersion);
      });

      it('TestSandboxTemplateReconcile: custom policy copied, and a spec change updates it', async () => {
        const ingress = [{ ports: [{ port: 8080, protocol: 'TCP' }] }];
        await createTemplate(
          world,
          newTemplate(world.ns, 'custom', { networkPolicy: { ingress } }),
        );
        const np = await policy('custom-network-policy');
        expect(np.spec?.ingress).toEqual(ingress);
        expect(np.spec?.egress).toBeUndefined();
        expect(np.spec?.policyTypes).toEqual(['Ingress', 'Egress']);
        await world.client.patch(SANDBOX_TEMPLATES, world.ns, 'custom', {
          type: 'merge',
          body: { spec: { networkPolicy: { ingress: [{ ports: [{ port: 9090 }] }] } } },
        });
        await eventually(async () => {
          const np2 = await world.client.get<NetworkPolicyObject>(
            NETWORK_POLICIES,
            world.ns,
            'custom-network-policy',
          );
          return np2.spec?.ingress?.[0]?.ports?.[0]?.port === 9090 ? true : undefined;
        });
      });

      it('TestSandboxTemplateReconcile: Unmanaged creates none; switching to Unmanaged deletes the owned one', async () => {
        await createTemplate(
          world,
          newTemplate(world.ns, 'unmanaged', { networkPolicyManagement: 'Unmanaged' }),
        );
        await where<TemplateObject>(
          world,
          SANDBOX_TEMPLATES,
          'unmanaged',
          (t) => t.metadata.labels?.[Labels.SandboxTemplateRefHash] !== undefined,
        );
        expect(
          await gone(world.client, NETWORK_POLICIES, world.ns, 'unmanaged-network-policy'),
        ).toBe(true);

        await createTemplate(world, newTemplate(world.ns, 'switch'));
        await policy('switch-network-policy');
        await world.client.patch(SANDBOX_TEMPLATES, world.ns, 'switch', {
          type: 'merge',
          body: { spec: { networkPolicyManagement: 'Unmanaged' } },
        });
        await eventually(() =>
          gone(world.client, NETWORK_POLICIES, world.ns, 'switch-network-policy'),
        );
      });

      it('TestSandboxTemplateReconcile: a policy it does not control is never updated or deleted', async () => {
        const foreign: NetworkPolicy & { metadata: { name: string } } = {
          apiVersion: 'networking.k8s.io/v1',
          kind: 'NetworkPolicy',
          metadata: { name: 'foreign-network-policy', namespace: world.ns },
          spec: { podSelector: { matchLabels: { mine: 'yes' } }, policyTypes: ['Ingress'] },
        };
        const created = await world.client.create(NETWORK_POLICIES, foreign as NetworkPolicyObject);
        await createTemplate(world, newTemplate(world.ns, 'foreign'));
        await where<TemplateObject>(
          world,
          SANDBOX_TEMPLATES,
          'foreign',
          (t) => t.metadata.labels?.[Labels.SandboxTemplateRefHash] !== undefined,
        );
        await world.client.patch(SANDBOX_TEMPLATES, world.ns, 'foreign', {
          type: 'merge',
          body: { spec: { networkPolicyManagement: 'Unmanaged' } },
        });
        await new Promise((r) => setTimeout(r, 500));
        const after = await world.client.get<NetworkPolicyObject>(
          NETWORK_POLICIES,
          world.ns,
          'foreign-network-policy',
        );
        expect(after.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
        expect(after.spec?.podSelector).toEqual({ matchLabels: { mine: 'yes' } });
      });
    });

    describe.concurrent('utils_test', () => {
      it('utils_test: the template ref hash — 8 hex digits, FNV-1a of the name as upstream computes it, distinct per name, and one value for the template label, its NetworkPolicy selector and the warm members built from it', async () => {
        const names = ['sandbox-name', 'other-template'];
        for (const name of names) await createTemplate(world, newTemplate(world.ns, name));
        await createPool(world, newPool(world.ns, 'hash-pool', 'sandbox-name', { replicas: 1 }));
        const hashes: string[] = [];
        for (const name of names) {
          const t = await where<TemplateObject>(
            world,
            SANDBOX_TEMPLATES,
            name,
            (x) => x.metadata.labels?.[Labels.SandboxTemplateRefHash] !== undefined,
          );
          const hash = t.metadata.labels?.[Labels.SandboxTemplateRefHash] ?? '';
          expect(hash).toMatch(/^[0-9a-f]{8}$/);
          expect(hash).toBe(nameHash(name));
          const np = await policy(`${name}-network-policy`);
          expect(np.spec?.podSelector).toEqual({
            matchLabels: { [Labels.SandboxTemplateRefHash]: hash },
          });
          hashes.push(hash);
        }
        expect(new Set(hashes).size).toBe(names.length);
        const [member] = await poolMembers(world, 'hash-pool', 1);
        expect(member?.metadata.labels?.[Labels.SandboxTemplateRefHash]).toBe(hashes[0]);
      });
    });
  });
}

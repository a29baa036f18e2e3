// TestVerifySandboxCandidate_NamespaceIsolation (spec §21.3) with the manager as a child process
// that sees two namespaces: each holds template `tpl` and pool `pool`, so a Ready member of one
// has every name and label a claim in the other would match on. A claim must still be served in
// its own namespace (cold here: its own pool is empty) and the other namespace's member keep its
// owner and labels. Run one way, then the other.
import { SANDBOX_CLAIMS, SANDBOX_WARM_POOLS, SANDBOXES } from '@agent-sandbox/controllers';
import { eventually } from '@agent-sandbox/controllers/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestTarget } from '../support/target.ts';
import {
  claimObject,
  claimWhere,
  controller,
  createPool,
  members,
  readyOn,
  runPods,
} from './claim-gate-world.ts';
import type { Sandbox } from './claim-invariants.ts';
import { openClaimTarget, type ClaimTarget } from './claim-target.ts';
import { startManager, type ManagerProcess } from './manager-process.ts';

const TIMEOUT = { timeout: 240_000 };

/** What adoption would change on a member: its owners and its labels. */
const ownership = (s: Sandbox): unknown => ({
  owners: s.metadata.ownerReferences,
  labels: s.metadata.labels,
});

export function defineClaimNamespaces(target: TestTarget): void {
  describe(`claims across namespaces (${target})`, () => {
    let ct: ClaimTarget | undefined;
    let manager: ManagerProcess | undefined;
    beforeEach(async () => {
      ct = await openClaimTarget(target, 'nsiso', 2);
    });
    afterEach(async () => {
      await manager?.kill();
      await ct?.close();
    });

    it(
      'TestVerifySandboxCandidate_NamespaceIsolation: with a Ready member of the same-named pool and template in the other namespace, a claim is served cold in its own namespace and the other member keeps its owner and labels, both ways',
      TIMEOUT,
      async () => {
        if (ct === undefined) throw new Error('no target');
        const { client } = ct;
        const [a, b] = ct.namespaces as [string, string];
        await createPool(client, a, 0);
        await createPool(client, b, 1);
        manager = startManager(ct.managerKubeconfig, ['--extensions']);
        await manager.serving;
        const scale = (ns: string, replicas: number) =>
          client.patch(SANDBOX_WARM_POOLS, ns, 'pool', {
            type: 'merge',
            body: { spec: { replicas } },
          });
        const readyMember = async (ns: string): Promise<Sandbox> => {
          const [m] = await eventually(async () => {
            const found = await members(client, ns);
            return found.length === 1 ? found : undefined;
          }, 60_000);
          await runPods(client, ns, [m?.metadata.name ?? '']);
          await eventually(async () => {
            const pool = await client.get<{ status?: { readyReplicas?: number } } & Sandbox>(
              SANDBOX_WARM_POOLS,
              ns,
              'pool',
            );
            return pool.status?.readyReplicas === 1 ? true : undefined;
          }, 60_000);
          return client.get<Sandbox>(SANDBOXES, ns, m?.metadata.name ?? '');
        };
        const claimBeside = async (ns: string, other: Sandbox, claim: string): Promise<void> => {
          const otherNs = other.metadata.namespace ?? '';
          await client.create(SANDBOX_CLAIMS, claimObject(ns, claim));
          await runPods(client, ns, [claim]);
          await claimWhere(client, ns, claim, readyOn(claim));
          const served = await client.get<Sandbox>(SANDBOXES, ns, claim);
          expect(controller(served)).toBe('SandboxClaim');
          const after = await client.get<Sandbox>(SANDBOXES, otherNs, other.metadata.name ?? '');
          expect(controller(after)).toBe('SandboxWarmPool');
          expect(ownership(after)).toEqual(ownership(other));
          const claimed = (await client.list<Sandbox>(SANDBOXES, otherNs)).items.filter((s) =>
            s.metadata.ownerReferences?.some((r) => r.kind === 'SandboxClaim' && r.name === claim),
          );
          expect(claimed).toEqual([]);
        };
        await claimBeside(a, await readyMember(b), 'claim-a');
        // The reverse: B's pool emptied, A's filled.
        await scale(b, 0);
        await eventually(async () => ((await members(client, b)).length === 0 ? true : undefined));
        await scale(a, 1);
        const aMember = await readyMember(a);
        await claimBeside(b, aMember, 'claim-b');
        expect(aMember.metadata.namespace).toBe(a);
      },
    );
  });
}

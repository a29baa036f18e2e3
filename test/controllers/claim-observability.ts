// What the claim controller tells the outside (spec §12.9, §19.1, §21.3), read where a user or
// upstream's tooling reads it: the raw patches byte for byte as they leave the manager (through
// the gate), the launch-type label rules (TestInitializeSandboxLaunchTypeLabel), and the claim
// metrics from the manager's /metrics after a warm and a cold claim, the latencies checked to the
// millisecond against the annotations they are computed from.
import { Annotations, Labels } from '@agent-sandbox/api';
import { SANDBOX_CLAIMS, SANDBOXES } from '@agent-sandbox/controllers';
import { eventually } from '@agent-sandbox/controllers/testing';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import type { TestTarget } from '../support/target.ts';
import type { Claim, Sandbox } from './claim-invariants.ts';
import {
  GROUP,
  SCRIPTED_SCHEDULER,
  claimObject,
  claimWhere,
  createPool,
  readyOn,
  runPods,
  useGateWorld,
} from './claim-gate-world.ts';
import { sumSamples } from './manager-process.ts';

const TIMEOUT = { timeout: 240_000 };

const reasonIs = (reason: string) => (c: Claim) =>
  (c.status?.conditions ?? []).some((x) => x.type === 'Ready' && x.reason === reason);

/** A Sandbox the claim controls, created by the test (a pass that died before labelling it). */
function claimedSandbox(
  ns: string,
  name: string,
  claim: KubeObject,
  labels: Record<string, string> = {},
): Sandbox {
  return {
    apiVersion: 'agents.x-k8s.io/v1beta1',
    kind: 'Sandbox',
    metadata: {
      name,
      namespace: ns,
      labels,
      ownerReferences: [
        {
          apiVersion: GROUP,
          kind: 'SandboxClaim',
          name: claim.metadata.name ?? '',
          uid: claim.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      podTemplate: {
        spec: {
          schedulerName: SCRIPTED_SCHEDULER,
          containers: [{ name: 'main', image: 'busybox' }],
        },
      },
    },
  } as Sandbox;
}

/** The millisecond distance between two RFC 3339 annotations of `claim`. */
function between(claim: Claim, from: string, to: string): number {
  const a = claim.metadata.annotations ?? {};
  return Date.parse(a[to] ?? '') - Date.parse(a[from] ?? '');
}

export function defineClaimObservability(target: TestTarget): void {
  describe(`claim raw patches, launch types and metrics (${target})`, () => {
    const w = useGateWorld(target, 'observe');

    it(
      'sandboxclaim_rawpatch_test: the first-observed stamp and the launch-type labels leave the manager as hand-built merge patches, byte for byte; an existing launch-type is never overwritten (TestInitializeSandboxLaunchTypeLabel)',
      TIMEOUT,
      async () => {
        const { client, namespace: ns } = w.ct;
        await w.start();
        const claims: Record<string, KubeObject> = {};
        for (const name of ['stamped', 'cold-named', 'kept', 'warm-named']) {
          claims[name] = await client.create(SANDBOX_CLAIMS, claimObject(ns, name, 'absent'));
        }
        const stamped = await claimWhere(client, ns, 'stamped', reasonIs('WarmPoolNotFound'));
        const at = stamped.metadata.annotations?.[Annotations.ControllerFirstObservedAt] ?? '';
        expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        const stamps = w.gate.writes.filter(
          (x) => x.method === 'PATCH' && /\/sandboxclaims\/stamped(\?|$)/.test(x.path),
        );
        expect(stamps.map((x) => [x.contentType, x.raw, x.status])).toEqual([
          [
            'application/merge-patch+json',
            `{"metadata":{"annotations":{"agents.x-k8s.io/controller-first-observed-at":"${at}"}}}`,
            200,
          ],
        ]);
        // Sandboxes the claims control but that carry no launch type (or one already).
        for (const name of ['cold-named', 'kept', 'warm-named']) {
          await claimWhere(client, ns, name, reasonIs('WarmPoolNotFound'));
        }
        await client.create(SANDBOXES, claimedSandbox(ns, 'cold-named', claims['cold-named']!));
        await client.create(
          SANDBOXES,
          claimedSandbox(ns, 'kept', claims['kept']!, { [Labels.LaunchType]: 'warm' }),
        );
        await client.create(SANDBOXES, claimedSandbox(ns, 'warm-x', claims['warm-named']!));
        const labelled = async (name: string): Promise<string | undefined> => {
          const s = await eventually(async () => {
            const c = await client.get<Claim>(SANDBOX_CLAIMS, ns, name);
            if (c.status?.sandbox?.name === undefined) return undefined;
            return client.get<Sandbox>(SANDBOXES, ns, c.status.sandbox.name);
          }, 60_000);
          return s.metadata.labels?.[Labels.LaunchType];
        };
        expect(await labelled('cold-named')).toBe('cold');
        expect(await labelled('warm-named')).toBe('warm');
        expect(await labelled('kept')).toBe('warm');
        const labelPatches = (sandbox: string): string[] =>
          w.gate.writes
            .filter(
              (x) =>
                x.method === 'PATCH' &&
                new RegExp(`/sandboxes/${sandbox}(\\?|$)`).test(x.path) &&
                x.raw.includes(Labels.LaunchType),
            )
            .map((x) => `${x.status} ${x.contentType ?? ''} ${x.raw}`);
        expect(labelPatches('cold-named')).toEqual([
          '200 application/merge-patch+json {"metadata":{"labels":{"agents.x-k8s.io/launch-type":"cold"}}}',
        ]);
        expect(labelPatches('warm-x')).toEqual([
          '200 application/merge-patch+json {"metadata":{"labels":{"agents.x-k8s.io/launch-type":"warm"}}}',
        ]);
        expect(labelPatches('kept')).toEqual([]);
      },
    );

    it(
      'TestSandboxClaimCreationMetric / TestRecordCreationLatencyMetric / TestClientClaimLatencyMetric from /metrics: one warm and one cold claim counted with their labels; each latency equals claim-first-ready-at minus its first-observed or first-requested annotation, to the ms',
      TIMEOUT,
      async () => {
        const { client, namespace: ns } = w.ct;
        const [member] = await w.readyPool(1);
        await createPool(client, ns, 0, 'empty');
        const warm = claimObject(ns, 'warm');
        warm.metadata.annotations = {
          [Annotations.ClientFirstRequestedAt]: new Date().toISOString(),
        };
        await client.create(SANDBOX_CLAIMS, warm);
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'cold', 'empty'));
        await runPods(client, ns, ['cold']);
        const stampedReady = (sandbox: string) => (c: Claim) =>
          readyOn(sandbox)(c) &&
          c.metadata.annotations?.[Annotations.ClaimFirstReadyAt] !== undefined;
        const w1 = await claimWhere(client, ns, 'warm', stampedReady(member ?? ''));
        const c1 = await claimWhere(client, ns, 'cold', stampedReady('cold'));
        const text = await eventually(async () => {
          const t = await w.scrape();
          return sumSamples(t, 'agent_sandbox_claim_creation_total', { namespace: ns }) === 2
            ? t
            : undefined;
        });
        const created = (labels: Record<string, string>): number =>
          sumSamples(text, 'agent_sandbox_claim_creation_total', { namespace: ns, ...labels });
        expect(
          created({
            launch_type: 'warm',
            warmpool_name: 'pool',
            pod_condition: 'ready',
            sandbox_template: 'tpl',
            created_by: 'unknown',
          }),
        ).toBe(1);
        expect(
          created({
            launch_type: 'cold',
            warmpool_name: 'empty',
            pod_condition: 'not_ready',
            sandbox_template: 'tpl',
            created_by: 'unknown',
          }),
        ).toBe(1);
        const hist = (family: string, part: 'count' | 'sum', launch: string): number =>
          sumSamples(text, `${family}_${part}`, { launch_type: launch, sandbox_template: 'tpl' });
        const controllerLatency = 'agent_sandbox_claim_controller_startup_latency_ms';
        const clientLatency = 'agent_sandbox_client_claim_startup_latency_ms';
        expect(hist(controllerLatency, 'count', 'warm')).toBe(1);
        expect(hist(controllerLatency, 'count', 'cold')).toBe(1);
        expect(hist(controllerLatency, 'sum', 'warm')).toBe(
          between(w1, Annotations.ControllerFirstObservedAt, Annotations.ClaimFirstReadyAt),
        );
        expect(hist(controllerLatency, 'sum', 'cold')).toBe(
          between(c1, Annotations.ControllerFirstObservedAt, Annotations.ClaimFirstReadyAt),
        );
        expect(hist(clientLatency, 'count', 'warm')).toBe(1);
        expect(hist(clientLatency, 'sum', 'warm')).toBe(
          between(w1, Annotations.ClientFirstRequestedAt, Annotations.ClaimFirstReadyAt),
        );
        expect(hist(clientLatency, 'count', 'cold')).toBe(0);
        // No webhook stamped these claims: that latency is skipped, not observed as zero.
        expect(hist('agent_sandbox_claim_startup_latency_ms', 'count', 'warm')).toBe(0);
        const gauge = (labels: Record<string, string>): number =>
          sumSamples(text, 'agent_sandboxes', { namespace: ns, ...labels });
        expect(
          gauge({ launch_type: 'warm', owned_by: 'SandboxClaim', ready_condition: 'true' }),
        ).toBe(1);
        expect(
          gauge({ launch_type: 'cold', owned_by: 'SandboxClaim', ready_condition: 'true' }),
        ).toBe(1);
      },
    );
  });
}

// Spec §21.4 internal/metrics/*_test.go end to end: the `agent_sandboxes` collector (spec §19.1)
// counts the Sandboxes of the running controller's cache at scrape time, with the label matrix
// over objects the API server holds — owners of either extensions version (a legacy v1alpha1
// claim reference included) or none of ours, created-by values in and out of the allow-list,
// Ready and expired — and agent_sandbox_build_info is one series of value 1. The claim
// histograms and counter are read from a manager's /metrics in test/controllers/claim-observability.ts.
import { Annotations, Labels } from '@agent-sandbox/api';
import type { KubeObject, OwnerReference } from '@agent-sandbox/kube-types';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import { SANDBOX_CLAIMS, SANDBOX_WARM_POOLS, type SandboxObj } from '../../extensions/resources.ts';
import { newClaim, newPool } from '../../testing/extensions.ts';
import {
  createForeignOwner,
  eventually,
  openScenarioWorld,
  runningPodStatus,
  scriptedSandbox,
  setPodStatus,
  waitForCondition,
  waitForPod,
  type ScenarioWorld,
} from '../../testing/harness.ts';
import { AgentSandboxMetrics } from '../../metrics.ts';
import { SANDBOXES } from '../sandbox-reconciler.ts';

const PAST = '2020-01-01T00:00:00Z';

const ownerRef = (o: KubeObject, apiVersion: string, kind: string): OwnerReference => ({
  apiVersion,
  kind,
  name: o.metadata.name ?? '',
  uid: o.metadata.uid ?? '',
  controller: true,
});

export function defineMetricsScenarios(target: TestTarget): void {
  describe(`agent_sandbox_* collectors over live Sandboxes (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target);
    });
    afterAll(async () => {
      await world?.close();
    });

    it('internal/metrics/*_test: agent_sandboxes label matrix — owned_by from a controller reference of either extensions version (legacy v1alpha1 included) else None, created_by normalised, launch_type, sandbox_template, ready_condition and expired; agent_sandbox_build_info is 1', async () => {
      const { client, ns } = world;
      // Owners that exist (garbage collection keeps their dependents); no extension controller
      // runs here, so nothing else acts on them.
      const claim = await client.create(SANDBOX_CLAIMS, newClaim(ns, 'legacy-owner', 'none'));
      const pool = await client.create(SANDBOX_WARM_POOLS, newPool(ns, 'pool-owner', 'none'));
      const foreign = await createForeignOwner(client, ns, 'not-ours');
      const make = async (
        name: string,
        meta: Pick<SandboxObj['metadata'], 'labels' | 'annotations' | 'ownerReferences'>,
        spec: Parameters<typeof scriptedSandbox>[2] = {},
      ): Promise<void> => {
        const s = scriptedSandbox(ns, name, spec);
        s.metadata = { ...s.metadata, ...meta };
        await client.create(SANDBOXES, s);
      };
      await make('plain', {});
      await make('legacy', {
        labels: { [Labels.CreatedBy]: 'python-client' },
        ownerReferences: [ownerRef(claim, 'extensions.agents.x-k8s.io/v1alpha1', 'SandboxClaim')],
      });
      await make('member', {
        labels: { [Labels.LaunchType]: 'warm', [Labels.CreatedBy]: 'controller' },
        annotations: { [Annotations.SandboxTemplateRef]: 'tpl-m' },
        ownerReferences: [ownerRef(pool, 'extensions.agents.x-k8s.io/v1beta1', 'SandboxWarmPool')],
      });
      await make('foreign', {
        labels: { [Labels.CreatedBy]: 'someone-else' },
        ownerReferences: [foreign],
      });
      await make('ready', { labels: { [Labels.CreatedBy]: 'go-client' } });
      await make('expired', {}, { shutdownTime: PAST, shutdownPolicy: 'Retain' });
      await waitForPod(client, ns, 'ready');
      await setPodStatus(client, ns, 'ready', runningPodStatus('10.244.230.1'));
      await waitForCondition(client, ns, 'ready', 'Ready', { status: 'True' });
      await waitForCondition(client, ns, 'expired', 'Ready', { reason: 'SandboxExpired' });

      const cache = world.controller.manager.getInformer<SandboxObj>(SANDBOXES).cache;
      const metrics = new AgentSandboxMetrics(new Registry(), {
        listSandboxes: () => cache.list(),
      });
      const series = (
        labels: Partial<Record<string, string>>,
      ): Record<string, string | undefined> => ({
        namespace: ns,
        ready_condition: 'false',
        expired: 'false',
        launch_type: 'cold',
        sandbox_template: 'unknown',
        owned_by: 'None',
        created_by: 'unknown',
        ...labels,
      });
      const want = [
        series({}), // plain
        series({ owned_by: 'SandboxClaim', created_by: 'python-client' }),
        series({
          launch_type: 'warm',
          sandbox_template: 'tpl-m',
          owned_by: 'SandboxWarmPool',
          created_by: 'controller',
        }),
        series({}), // foreign: not one of ours, and its creator is not on the allow-list
        series({ ready_condition: 'true', created_by: 'go-client' }),
        series({ expired: 'true' }),
      ];
      const key = (l: Record<string, unknown>): string => JSON.stringify(Object.entries(l).sort());
      const byKey = (all: Record<string, unknown>[]): Map<string, number> => {
        const out = new Map<string, number>();
        for (const l of all) out.set(key(l), (out.get(key(l)) ?? 0) + 1);
        return out;
      };
      const expected = byKey(want);
      // The cache may trail the waits above by an event: scrape until it has caught up.
      await eventually(async () => {
        const values = (await metrics.sandboxes.get()).values.filter(
          (v) => v.labels.namespace === ns,
        );
        const got = new Map(values.map((v) => [key(v.labels), v.value]));
        expect(got).toEqual(expected);
        return true;
      });
      const build = (await metrics.buildInfo.get()).values;
      expect(build).toEqual([
        {
          value: 1,
          labels: {
            git_version: 'unknown',
            git_commit: 'unknown',
            build_date: 'unknown',
            go_version: process.version,
            compiler: 'node',
            platform: `${process.platform}/${process.arch}`,
          },
        },
      ]);
    });
  });
}

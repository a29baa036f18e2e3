// The Sandbox controller's status writes when its Sandbox cache lags its own last write (issue 10,
// bench:claims "patch sandboxes/status" per claim): the manager behind claim-gate.ts with the
// Sandbox watch paused, so every later Sandbox pass reads the copy its Ready write was made over.
// A Pod event then wakes a pass that computes the same status: it must not send it again. Once
// the watch resumes the cache shows the write and nothing more is written.
import { SANDBOXES } from '@agent-sandbox/controllers';
import { eventually } from '@agent-sandbox/controllers/testing';
import { PODS } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import type { TestTarget } from '../support/target.ts';
import {
  SCRIPTED_POD_TEMPLATE,
  runPods,
  useGateWorld,
  type GateWorld,
} from './claim-gate-world.ts';
import type { Sandbox } from './claim-invariants.ts';
import { sumSamples } from './manager-process.ts';

const TIMEOUT = { timeout: 240_000 };
const SANDBOX_WATCH = /\/sandboxes\?/;
const STATUS_OF_S = /\/sandboxes\/s\/status(\?|$)/;

const reconciles = async (w: GateWorld): Promise<number> =>
  sumSamples(await w.scrape(), 'controller_runtime_reconcile_total', { controller: 'sandbox' });

const ready = (s: Sandbox): boolean =>
  (s.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

export function defineSandboxStatusWrites(target: TestTarget): void {
  describe(`Sandbox status writes under cache lag (${target})`, () => {
    const w = useGateWorld(target, 'sbstatus');

    it(
      'a pass from a Sandbox cache older than its own Ready write does not write the same status again; the caught-up cache writes nothing either',
      TIMEOUT,
      async () => {
        const { client, namespace: ns } = w.ct;
        await w.start();
        await client.create(SANDBOXES, {
          apiVersion: 'agents.x-k8s.io/v1beta1',
          kind: 'Sandbox',
          metadata: { name: 's', namespace: ns },
          spec: {
            podTemplate: SCRIPTED_POD_TEMPLATE,
          },
        } as KubeObject);
        await eventually(() => client.get(PODS, ns, 's').catch(() => undefined), 60_000);
        // The Pod-pending status is written before the pause (the only write counted is Ready's).
        await eventually(
          () => (w.writesTo(STATUS_OF_S, 'PATCH', 0).includes(200) ? true : undefined),
          60_000,
        );
        // From here the manager's Sandbox cache sees nothing new, its own writes included.
        const pause = w.gate.pauseWatches(SANDBOX_WATCH);
        const mark = w.gate.writes.length;
        await runPods(client, ns, ['s']);
        const readyAt = await eventually(async () => {
          const live = await client.get<Sandbox>(SANDBOXES, ns, 's');
          const c = live.status?.conditions?.find((x) => x.type === 'Ready');
          return c?.status === 'True' ? Date.parse(c.lastTransitionTime) : undefined;
        }, 60_000);
        const statusWrites = (): number[] => w.writesTo(STATUS_OF_S, 'PATCH', mark);
        await eventually(() => (statusWrites().length >= 1 ? true : undefined), 60_000);
        // A Pod event wakes another pass; it reads the stale Sandbox and computes Ready again,
        // with a later transition time once the clock is past the written one's second.
        await eventually(() => (Date.now() >= readyAt + 1_000 ? true : undefined), 60_000);
        const passes = await reconciles(w);
        await client.patch(PODS, ns, 's', {
          type: 'merge',
          body: { metadata: { labels: { 'test.example.com/touched': 'once' } } },
        });
        await eventually(async () => ((await reconciles(w)) > passes ? true : undefined), 60_000);
        expect(statusWrites()).toEqual([200]);
        // Caught up: the cache shows the Ready write, another pass finds nothing to write.
        pause.resume();
        const resumed = await reconciles(w);
        await client.patch(PODS, ns, 's', {
          type: 'merge',
          body: { metadata: { labels: { 'test.example.com/touched': 'twice' } } },
        });
        await eventually(async () => ((await reconciles(w)) > resumed ? true : undefined), 60_000);
        expect(statusWrites()).toEqual([200]);
        const live = await client.get<Sandbox>(SANDBOXES, ns, 's');
        expect(ready(live)).toBe(true);
      },
    );
  });
}

// Restart safety on the embedded API server (issue 5): the manager child process is SIGKILLed at
// seeded random moments while 200 Sandboxes are created, suspended, resumed and expired; after the
// last restart everything converges with no duplicate or orphaned child. The scenario plays the
// kubelet here. Replay a run with AGENT_SANDBOX_CHAOS_SEED=<seed printed in the log>.
import { Labels, nameHash } from '@agent-sandbox/api';
import { SANDBOX_FIELD_OWNER } from '@agent-sandbox/controllers';
import { KubeClient, NAMESPACES, PODS, kubeConfigFromFile } from '@agent-sandbox/kube';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectTarget, type TargetHandle } from '../support/target.ts';
import { chaosSeed } from './chaos-plan.ts';
import { checkInvariants } from './invariants.ts';
import { managerConnection } from './manager-identity.ts';
import { observe, runRestartChaos } from './restart-chaos.ts';

const SEED_ENV = 'AGENT_SANDBOX_CHAOS_SEED';
const namespace = 'chaos';
const dir = mkdtempSync(join(tmpdir(), 'restart-chaos-'));
let target: TargetHandle;
let client: KubeClient;
/** The manager's own identity (manager-identity.ts), not the admin's. */
let managerKubeconfig: string;

beforeAll(async () => {
  target = await connectTarget('embedded');
  const config = kubeConfigFromFile(target.kubeconfigPath);
  client = new KubeClient({ config });
  await client.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
  ({ kubeconfigPath: managerKubeconfig } = await managerConnection({
    handle: target,
    admin: client,
    adminConfig: config,
    namespace,
    extensions: false,
    dir,
  }));
});
afterAll(async () => {
  await client?.close();
  await target?.close();
  rmSync(dir, { recursive: true, force: true });
});

it(
  'SIGKILLing the manager mid-work leaves no duplicate or orphaned child and converges',
  { timeout: 240_000 },
  async () => {
    const result = await runRestartChaos(
      { client, namespace, managerKubeconfig, playKubelet: true },
      { seed: chaosSeed(process.env[SEED_ENV], SEED_ENV), log: (line) => console.log(line) },
    );
    expect(result.driver.errors).toEqual([]);
    expect(result.kubeletErrors).toEqual([]);
    // At least one kill cut reconciles off in flight (each generation's numbers are in the log).
    expect(result.generations.some((g) => g.killed && g.sample.activeWorkers > 0)).toBe(true);
    expect(result.violations).toEqual([]);

    // The check is not blind: a second Pod carrying a running Sandbox's name hash and controller
    // reference (no manager runs any more to react) is reported on the next listing.
    const running = result.driver.records.find((r) => r.mode === 'Running' && !r.planned.expiry);
    if (running?.uid === undefined) throw new Error('the plan left no Sandbox running');
    const name = running.planned.name;
    // The field-ownership check reads real managedFields: the controller's writes are there.
    const before = await observe(client, namespace);
    const managers = before.sandboxes.flatMap((s) => s.metadata.managedFields ?? []);
    expect(managers.map((m) => m.manager)).toContain(SANDBOX_FIELD_OWNER);
    await client.create(PODS, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${name}-twin`,
        namespace,
        labels: { [Labels.SandboxNameHash]: nameHash(name) },
        ownerReferences: [
          {
            apiVersion: 'agents.x-k8s.io/v1beta1',
            kind: 'Sandbox',
            name,
            uid: running.uid,
            controller: true,
          },
        ],
      },
      spec: { containers: [{ name: 'main', image: 'busybox' }] },
    });
    const after = checkInvariants(result.driver.records, await observe(client, namespace), {
      namespace,
      now: new Date(),
    });
    expect(after).toContainEqual(expect.stringMatching(/^Pod \S+: 2 objects share one name hash/));
    expect(after).toContainEqual(
      expect.stringMatching(`^Sandbox ${name} .*want exactly one Pod, found 2`),
    );
  },
);

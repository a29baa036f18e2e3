// The e2e journeys against the control-plane harness (real kube-apiserver, scheduler and kwok
// nodes) with our controller manager in its own process: through the SDK and through the CLI,
// create from the warm pool (warm) and from the template (cold), list, get, suspend and resume,
// delete. kwok runs no processes, so what needs one — commands, files, getHost/url, exec, cp —
// is not here; test/e2e/up.int.test.ts covers it against `agent-sandbox up`.
import { clusterKubeconfig } from '@agent-sandbox/kube/testing';
import { NotFoundError, Sandbox, type ConnectionOptions } from '@agent-sandbox/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { openClaimTarget, type ClaimTarget } from '../controllers/claim-target.ts';
import { startManager, type ManagerProcess } from '../controllers/manager-process.ts';
import {
  CLI_JOURNEY_TIMEOUT_MS,
  E2E_POOL,
  agentSandbox,
  poolManifest,
  runProcess,
  untilPoolReady,
} from './journeys.ts';

let target: ClaimTarget;
let manager: ManagerProcess | undefined;
let kubeconfig: string;
let ns: string;

beforeAll(async () => {
  target = await openClaimTarget('cluster', 'e2e');
  ns = target.namespace;
  kubeconfig = clusterKubeconfig();
  manager = startManager(target.managerKubeconfig, ['--extensions']);
  await manager.serving;
  const applied = await runProcess(
    'kubectl',
    ['apply', '-f', '-'],
    { KUBECONFIG: kubeconfig },
    poolManifest({ image: 'busybox', replicas: 2, namespace: ns, disk: false }),
  );
  expect(applied.stderr).toBe('');
  await untilPoolReady(kubeconfig, ns, 2);
});

afterAll(async () => {
  await manager?.kill();
  await target?.close();
});

beforeEach(() => {
  onTestFailed(() => console.log(`the manager printed:\n${manager?.output().slice(-6000)}`));
});

describe('e2e against the harness cluster', () => {
  it('SDK: warm and cold create → list → info → suspend/resume → kill', async () => {
    const conn: ConnectionOptions = { kubeconfig, namespace: ns, hostEnv: {} };
    const warm = await Sandbox.create({ ...conn, warmPool: E2E_POOL, labels: { e2e: 'sdk' } });
    const cold = await Sandbox.create({ ...conn, template: E2E_POOL, labels: { e2e: 'sdk' } });
    try {
      expect(warm.sandboxName).not.toBe(warm.id);
      expect(cold.sandboxName).toBe(cold.id);
      const listed = await Sandbox.list({ ...conn, labels: { e2e: 'sdk' } });
      expect(listed.map((i) => [i.id, i.state]).sort()).toEqual(
        [
          [warm.id, 'Running'],
          [cold.id, 'Running'],
        ].sort(),
      );
      expect(await warm.info()).toMatchObject({ warmPool: E2E_POOL, template: E2E_POOL });
      // The Pod runs on a kwok node: the scheduler placed it, kwok reported it Ready.
      expect((await warm.info()).podIPs.length).toBeGreaterThan(0);

      await warm.suspend();
      expect((await warm.info()).state).toBe('Suspended');
      await warm.resume();
      expect((await warm.info()).state).toBe('Running');
    } finally {
      expect(await warm.kill()).toBe(true);
      expect(await cold.kill()).toBe(true);
      await warm.close();
      await cold.close();
    }
    await expect(Sandbox.connect(warm.id, conn)).rejects.toBeInstanceOf(NotFoundError);
  });

  it(
    'CLI: create --warm-pool and --template → ls → get → suspend/resume → rm',
    async () => {
      await untilPoolReady(kubeconfig, ns, 2);
      const cli = (...args: string[]) => agentSandbox(kubeconfig, [...args, '-n', ns]);
      const warm = await cli('create', '--warm-pool', E2E_POOL, '--name', 'warm', '-o', 'json');
      expect(warm.stderr).toBe('');
      expect(JSON.parse(warm.stdout)).toMatchObject({ id: 'warm', state: 'Running' });
      expect(await cli('create', '--template', E2E_POOL, '--name', 'cold', '-o', 'name')).toEqual({
        code: 0,
        stdout: 'sandbox/cold\n',
        stderr: '',
      });

      const ls = await cli('ls');
      expect(ls.code).toBe(0);
      expect(ls.stdout).toMatch(/\ncold\s+Running\s+template\/e2e\s/);
      expect(ls.stdout).toMatch(/\nwarm\s+Running\s+pool\/e2e\s/);

      expect(await cli('suspend', 'warm')).toMatchObject({
        code: 0,
        stdout: 'sandbox warm suspended\n',
      });
      expect((await cli('get', 'warm', '-o', 'json')).stdout).toContain('"state": "Suspended"');
      expect(await cli('resume', 'warm')).toMatchObject({
        code: 0,
        stdout: 'sandbox warm resumed\n',
      });
      expect((await cli('get', 'warm', '-o', 'yaml')).stdout).toContain('state: Running\n');

      expect(await cli('rm', 'warm', 'cold')).toEqual({
        code: 0,
        stdout: 'sandbox warm deleted\nsandbox cold deleted\n',
        stderr: '',
      });
      const gone = await cli('get', 'warm');
      expect(gone.code).toBe(1);
      expect(gone.stderr).toMatch(/^error: sandbox warm not found/);
    },
    CLI_JOURNEY_TIMEOUT_MS,
  );
});

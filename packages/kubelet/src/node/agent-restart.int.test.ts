// An agent that dies with Pods running (SIGKILL: no cleanup) and its successor on the same node
// state: the successor removes everything the dead agent left (containers, processes, mounts,
// netns, cgroups, the roots its pool mounted ahead) and runs each Pod again — Running,
// restartCount + 1, a new container — and nothing is left after it stops (ADR 0038: clean
// restart, not re-adoption; ADR 0044: no pooled root is in use after it).
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded apiserver (our envtest)
import { startTestApiServer, type TestApiServer } from '@agent-sandbox/apiserver/testing';
import { KubeClient, PODS, kubeConfigFromFile } from '@agent-sandbox/kube';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ImageStore } from '../images/image-store.ts';
import { loadOciLayout } from '../images/oci-layout.ts';
import { findLeaks } from '../testing/leak-check.ts';
import { mountsUnder } from './container-rootfs.ts';
import { rootPoolDir } from './root-pool.ts';
import { restartableAgent, type AgentChildOptions } from '../testing/restartable-agent.ts';
import { buildTestImage } from '../testing/test-image.ts';
import type { NodeAgent } from './node-agent.ts';
import { TEST_IMAGE as IMAGE, testPod, type PodObject } from '../testing/test-pod.ts';

const CHILD = fileURLToPath(new URL('../testing/agent-child.ts', import.meta.url));
const MARK = `asb-restart-${process.pid}`;

let api: TestApiServer;
let client: KubeClient;
let dir: string;
let options: AgentChildOptions;
let successor: NodeAgent | undefined;

beforeAll(async () => {
  if (spawnSync('runc', ['--version']).status !== 0)
    throw new Error('runc is missing: apt-get install runc (CI must have it)');
  dir = await mkdtemp(join(tmpdir(), 'asb-restart-'));
  api = await startTestApiServer();
  client = new KubeClient({ config: kubeConfigFromFile(api.kubeconfigPath) });
  const store = new ImageStore(join(dir, 'images'));
  await loadOciLayout(store, (await buildTestImage(join(dir, 'build'))).layoutDir, IMAGE);
  options = {
    kubeconfig: api.kubeconfigPath,
    dir,
    nodeName: 'node-restart',
    // This run's own: the successor cleans its whole cgroup parent and netns prefix at start.
    cgroupParent: `asb-restarttest-${process.pid}`,
    netnsPrefix: `asb-lo-restart-${process.pid}-`,
  };
});

afterAll(async () => {
  await successor?.stop();
  const leaks = dir
    ? findLeaks({
        dataDir: dir,
        runtimeStateDirs: [join(dir, 'runc')],
        netnsPrefix: options.netnsPrefix,
        cgroupParent: options.cgroupParent,
      })
    : [];
  await api?.close();
  await rm(dir, { recursive: true, force: true });
  expect(leaks).toEqual([]);
});

/** Pids whose command line carries `mark` (the containers' sleep names it). */
function processesMarked(mark: string): string[] {
  return readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(mark);
    } catch {
      return false;
    }
  });
}

/** The agent in its own process, until it printed "started". */
async function startChild(): Promise<ReturnType<typeof spawn>> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => d.toString().includes('started') && resolve());
    child.once('exit', (code) => reject(new Error(`agent child exited ${code}: ${err}`)));
  });
  return child;
}

async function running(name: string, restartCount: number): Promise<PodObject> {
  const end = Date.now() + 60_000;
  let last: PodObject | undefined;
  while (Date.now() < end) {
    last = await client.get<PodObject>(PODS, 'default', name);
    const cs = last.status?.containerStatuses?.[0];
    if (cs?.state?.running && cs.restartCount === restartCount) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} never ran again: ${JSON.stringify(last?.status)}`);
}

it('a successor agent removes what a killed agent left and runs its Pods again', async () => {
  const child = await startChild();
  const names = ['r1', 'r2'];
  for (const name of names)
    await client.create(
      PODS,
      testPod(name, {
        imagePullPolicy: 'Never',
        // The mark in argv lets the test find the container's process on the host.
        command: ['sh', '-c', `while :; do sleep 1; done # ${MARK}`],
      }),
    );
  const before = await Promise.all(names.map((n) => running(n, 0)));
  // The dead agent's pool holds roots mounted ahead for the image its Pods started from.
  const pool = rootPoolDir(join(dir, 'node'));
  const end = Date.now() + 30_000;
  while ((await mountsUnder(pool)).length < 2 && Date.now() < end)
    await new Promise((r) => setTimeout(r, 50));
  const ahead = await mountsUnder(pool);
  expect(ahead).toHaveLength(2);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  // The dead agent's containers run on without it: the case a restart must handle.
  const orphans = processesMarked(MARK);
  expect(orphans).toHaveLength(2);
  successor = restartableAgent(options);
  await successor.start();
  expect((await mountsUnder(pool)).filter((m) => ahead.includes(m))).toEqual([]);
  const after = await Promise.all(names.map((n) => running(n, 1)));
  for (const [i, p] of after.entries()) {
    const old = before[i]?.status?.containerStatuses?.[0]?.containerID;
    expect(p.status?.containerStatuses?.[0]?.containerID).not.toBe(old);
    expect(p.status?.phase).toBe('Running');
  }
  const now = processesMarked(MARK);
  expect(now).toHaveLength(2);
  expect(now.filter((pid) => orphans.includes(pid))).toEqual([]);
});

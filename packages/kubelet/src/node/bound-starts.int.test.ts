// A Pod the agent binds starts from the Binding's answer (bound-starts.ts), whatever the node
// watch does: the watch of the node's Pods is held back by the client's transport (a real one,
// its requests sent late), against our embedded API server and real runc containers.
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded apiserver (our envtest)
import { startTestApiServer, type TestApiServer } from '@agent-sandbox/apiserver/testing';
import { KubeClient, PODS, kubeConfigFromFile } from '@agent-sandbox/kube';
import { holdWatches, type HeldWatches } from '@agent-sandbox/kube/testing';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ImageService } from '../images/image-service.ts';
import { ImageStore } from '../images/image-store.ts';
import { loadOciLayout } from '../images/oci-layout.ts';
import { RegistryClient } from '../images/registry-client.ts';
import { LoopbackPodNetwork } from '../network/loopback-network.ts';
import { runcRuntime } from '../runtime/runc-runtime.ts';
import { findLeaks } from '../testing/leak-check.ts';
import { buildTestImage } from '../testing/test-image.ts';
import { hostNodeFacts } from './host-facts.ts';
import { NodeAgent } from './node-agent.ts';
import type { PodPhase } from './pod-phases.ts';
import { TEST_IMAGE as IMAGE, testPod, type PodObject } from '../testing/test-pod.ts';

// This run's own: an agent cleans its whole cgroup parent and netns prefix at start and stop.
const NETNS_PREFIX = `asb-lo-boundtest-${process.pid}-`;
const CGROUPS = `asb-boundtest-${process.pid}`;

let api: TestApiServer;
let client: KubeClient;
let dir: string;
let store: ImageStore;
const runc = () => runcRuntime(join(dir, 'runc'));

beforeAll(async () => {
  if (spawnSync('runc', ['--version']).status !== 0)
    throw new Error('runc is missing: apt-get install runc (CI must have it)');
  dir = await mkdtemp(join(tmpdir(), 'asb-bound-'));
  api = await startTestApiServer();
  client = new KubeClient({ config: kubeConfigFromFile(api.kubeconfigPath) });
  store = new ImageStore(join(dir, 'images'));
  await loadOciLayout(store, (await buildTestImage(join(dir, 'build'))).layoutDir, IMAGE);
});

afterAll(async () => {
  const leaks = dir
    ? findLeaks({
        dataDir: dir,
        runtimeStateDirs: [join(dir, 'runc')],
        netnsPrefix: NETNS_PREFIX,
        cgroupParent: CGROUPS,
      })
    : [];
  await api?.close();
  await rm(dir, { recursive: true, force: true });
  expect(leaks).toEqual([]);
});

/** An agent whose client holds back the watch of the node's Pods until `watch.release()`. */
async function startAgent(node: string, boundPodReadMs: number) {
  const config = kubeConfigFromFile(api.kubeconfigPath);
  const watch: HeldWatches = holdWatches(
    config,
    (u) => u.searchParams.get('fieldSelector') === `spec.nodeName=${node}`,
  );
  const observed: PodPhase[] = [];
  const agent = new NodeAgent({
    client: new KubeClient({ config, fetch: watch.fetch }),
    facts: hostNodeFacts(node),
    runtimes: [runc()],
    cgroupParent: CGROUPS,
    network: new LoopbackPodNetwork({ prefix: NETNS_PREFIX }),
    images: new ImageService(store, new RegistryClient()),
    dataDir: join(dir, node),
    boundPodReadMs,
    onPhase: (p) => {
      if (p.phase === 'observed') observed.push(p);
    },
  });
  await agent.start();
  const stop = async () => {
    watch.release();
    await agent.stop();
    await watch.close();
  };
  /** How many workers took Pod `uid` (each marks `observed` once). */
  const workers = (uid: string) => observed.filter((p) => p.uid === uid).length;
  return { watch, stop, workers };
}

async function createPod(name: string): Promise<void> {
  await client.create(PODS, testPod(name, { name: 'app' }));
}

async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const running = (name: string) =>
  until(`${name} Running`, async () => {
    const p = await client.get<PodObject>(PODS, 'default', name);
    return p.status?.containerStatuses?.[0]?.state?.running ? p : undefined;
  });

it('runs a Pod it bound while the node watch is held, and its late delivery starts nothing more', async () => {
  const a = await startAgent('bound-a', 60_000);
  try {
    await createPod('early');
    const p = await running('early');
    const uid = p.metadata.uid ?? '';
    expect(a.watch.held).toBeGreaterThan(0); // the node watch has not been sent yet
    expect(a.workers(uid)).toBe(1);
    a.watch.release();
    // Only the watch can bring the graceful delete (the read is a minute away): the Pod goes
    // once the one worker terminated it, after the watch delivered its binding and status too.
    await client.delete(PODS, 'default', 'early');
    await until('early removed', () =>
      client.get(PODS, 'default', 'early').then(
        () => undefined,
        () => true,
      ),
    );
    expect(a.workers(uid)).toBe(1);
    await until('no container left', async () =>
      (await runc().list()).length === 0 ? true : undefined,
    );
  } finally {
    await a.stop();
  }
});

it('stops a Pod it bound whose deletion the held watch never delivers, once it reads it', async () => {
  const a = await startAgent('bound-b', 300);
  try {
    await createPod('missed');
    const uid = (await running('missed')).metadata.uid ?? '';
    await client.delete(PODS, 'default', 'missed', { gracePeriodSeconds: 0 });
    // The watch is still held: only the agent's own read finds the Pod gone.
    await until('the container stopped', async () =>
      (await runc().list()).length === 0 ? true : undefined,
    );
    expect(a.watch.held).toBeGreaterThan(0);
    a.watch.release();
    await new Promise((r) => setTimeout(r, 500)); // the watch's late ADDED/DELETED, if any
    expect(a.workers(uid)).toBe(1);
    expect(await runc().list()).toEqual([]);
  } finally {
    await a.stop();
  }
});

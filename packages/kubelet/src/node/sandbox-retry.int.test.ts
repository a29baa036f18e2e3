// A Pod whose sandbox cannot be made is retried with back-off, as the kubelet retries
// RunPodSandbox: it stays Pending with the reason and one counted FailedCreatePodSandBox Event,
// runs (the same Pod) once the cause is gone, and a deletion during the back-off ends the
// retries with nothing left. Real runc on a real bridge network of this process's own.
import { CONFIG_MAPS, EVENTS, PODS, type KubeClient } from '@agent-sandbox/kube';
import type { Event, KubeObject } from '@agent-sandbox/kube-types';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BridgePodNetwork } from '../network/bridge-network.ts';
import { startNodeWorld, type NodeWorld } from '../testing/node-world.ts';
import { testPod, type PodObject } from '../testing/test-pod.ts';

const NAME = `asbr${process.pid % 100_000}`;
const RETRY_BASE_MS = 300;

let world: NodeWorld | undefined;
let client: KubeClient;
let network: BridgePodNetwork | undefined;
/** Every step the agent timed (NodeAgentOptions.onPhase), in the order they ended. */
const phases: { uid: string; phase: string; at: number }[] = [];

beforeAll(async () => {
  if (spawnSync('runc', ['--version']).status !== 0)
    throw new Error('runc is missing: apt-get install runc (CI must have it)');
  world = await startNodeWorld({
    tag: 'retrytest',
    agent: {
      sandboxRetryBaseMs: RETRY_BASE_MS,
      earlyCreate: true,
      onPhase: (p) => phases.push({ uid: p.uid, phase: p.phase, at: p.endMs }),
    },
    network: {
      make: (dir) =>
        (network = new BridgePodNetwork({
          stateDir: join(dir, 'net'),
          podCidr: `10.234.${process.pid % 250}.0/24`,
          bridge: NAME,
          prefix: NAME,
          poolSize: 1, // as up keeps some: a made-ahead network is on the bridge that goes
        })),
      netnsPrefix: `${NAME}-`,
      linkPrefix: NAME,
      nftPrefix: `${NAME}_nat`,
      close: async () => network?.destroy(),
    },
  });
  ({ client } = world);
});

afterAll(async () => {
  expect(await world?.close()).toEqual([]);
});

async function createPod(name: string, configMap: string, command?: string[]): Promise<string> {
  const created = await client.create<PodObject>(
    PODS,
    testPod(
      name,
      { volumeMounts: [{ name: 'cfg', mountPath: '/cfg' }], ...(command ? { command } : {}) },
      { volumes: [{ name: 'cfg', configMap: { name: configMap } }] },
    ),
  );
  return created.metadata?.uid ?? '';
}

async function until<T>(what: string, read: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = await read();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: never happened within ${ms} ms`);
}

/** The FailedCreatePodSandBox Events about Pod `uid`. */
async function sandboxEvents(uid: string): Promise<Event[]> {
  const list = await client.list<Event & KubeObject>(EVENTS, 'default');
  return list.items.filter(
    (e) => e.involvedObject.uid === uid && e.reason === 'FailedCreatePodSandBox',
  );
}

/** ConfigMap `name` in `default` with key `a`. */
async function createConfigMap(name: string, a: string): Promise<void> {
  await client.create(CONFIG_MAPS, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default' },
    data: { a },
  } as KubeObject);
}

const pod = (name: string) => client.get<PodObject>(PODS, 'default', name);

it('keeps a Pod whose sandbox fails Pending with one counted event, and runs it once the cause is gone', async () => {
  const uid = await createPod('retry-cm', 'retry-cm');
  const events = await until('a repeated FailedCreatePodSandBox event', async () => {
    const e = await sandboxEvents(uid);
    return (e[0]?.count ?? 0) >= 2 ? e : undefined;
  });
  expect(events).toHaveLength(1); // repeats are counted, not written again
  expect(events[0]).toMatchObject({
    type: 'Warning',
    source: { component: 'kubelet', host: 'node-retrytest' },
    involvedObject: { kind: 'Pod', name: 'retry-cm', namespace: 'default' },
  });
  expect(events[0]?.message).toMatch(/^Failed to create pod sandbox: .*configmap.*retry-cm/i);
  const pending = await pod('retry-cm');
  expect(pending.status?.phase).toBe('Pending');
  // As the kubelet reports a sandbox being retried: still ContainerCreating (not a config
  // error of the container), the cause as the event words it.
  expect(pending.status?.containerStatuses?.[0]?.state?.waiting).toEqual({
    reason: 'ContainerCreating',
    message: events[0]?.message,
  });

  await createConfigMap('retry-cm', 'b');
  const running = await until('Running after the ConfigMap exists', async () => {
    const p = await pod('retry-cm');
    return p.status?.phase === 'Running' ? p : undefined;
  });
  expect(running.metadata?.uid).toBe(uid); // the same Pod, not a new one
  await removePod('retry-cm');
});

it('a container created ahead of a volume that fails never runs; the retry runs it once, with the volume', async () => {
  const script = 'echo ran; cat /cfg/a; echo; exec sleep 60';
  const uid = await createPod('retry-early', 'early-cm', ['sh', '-c', script]);
  await until('a FailedCreatePodSandBox event', async () =>
    (await sandboxEvents(uid)).length ? true : undefined,
  );
  // The failed attempt made the container ahead (runc spawned, held at its gate), then removed it.
  const before = phases.filter((p) => p.uid === uid).map((p) => p.phase);
  expect(before).toContain('runtime-start');
  expect(before).not.toContain('until-running');
  const madeAt = performance.now();
  await createConfigMap('early-cm', 'from-the-volume');
  await until('Running after the ConfigMap exists', async () =>
    (await pod('retry-early')).status?.phase === 'Running' ? true : undefined,
  );
  const running = phases.filter((p) => p.uid === uid && p.phase === 'until-running');
  expect(running).toHaveLength(1);
  expect(running[0]?.at).toBeGreaterThan(madeAt);
  const log = join(world?.dir ?? '', 'node', 'logs', `default_retry-early_${uid}`, 'c', '0.log');
  const out = await until('the container output', async () => {
    const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
    return text.includes('from-the-volume') ? text : undefined;
  });
  expect(out.match(/ ran$/gm)).toHaveLength(1); // once: the held container's process never ran
  await removePod('retry-early');
});

it('re-creates a bridge another process removed on the retry, and the Pod runs', async () => {
  await createConfigMap('bridge-cm', 'b');
  // Made (and remembered as made), with a network made ahead on it, before it is taken away.
  await until('a network made ahead', async () => ((network?.pooled ?? 0) > 0 ? true : undefined));
  expect(spawnSync('ip', ['link', 'delete', NAME]).status).toBe(0);
  const uid = await createPod('retry-bridge', 'bridge-cm');
  const running = await until('Running after the bridge is made again', async () => {
    const p = await pod('retry-bridge');
    return p.status?.phase === 'Running' ? p : undefined;
  });
  expect(running.metadata?.uid).toBe(uid);
  const [event] = await sandboxEvents(uid);
  expect(event?.message).toContain(`"${NAME}"`); // the attempt that found it gone said so
  // The Pod's network is on the new bridge: its address answers from the host (a refused
  // connection; a network left off the bridge does not answer at all).
  expect(await answer(running.status?.podIP ?? '')).toBe('ECONNREFUSED');
  await removePod('retry-bridge');
});

it('stops retrying when the Pod is deleted during the back-off, leaving nothing', async () => {
  const uid = await createPod('retry-gone', 'never-made');
  await until('a FailedCreatePodSandBox event', async () =>
    (await sandboxEvents(uid)).length ? true : undefined,
  );
  await removePod('retry-gone');
  const count = (await sandboxEvents(uid))[0]?.count;
  // Longer than the next few back-offs: a retry still running would bump the count.
  await new Promise((r) => setTimeout(r, 8 * RETRY_BASE_MS));
  expect((await sandboxEvents(uid))[0]?.count).toBe(count);
  expect(readdirSync('/run/netns').filter((n) => n.includes(uid))).toEqual([]);
  expect(existsSync(join(world?.dir ?? '', 'node', 'pods', uid))).toBe(false);
  expect(
    readdirSync('/sys/fs/cgroup').filter((c) =>
      existsSync(join('/sys/fs/cgroup', c, world?.cgroupParent ?? '', `pod${uid}`)),
    ),
  ).toEqual([]);
});

/** How a TCP connection to port 1 of `ip` ends: its error code, or 'timeout'. */
function answer(ip: string): Promise<string> {
  return new Promise<string>((resolve) => {
    const socket = connect({ host: ip, port: 1, timeout: 5000 });
    socket.once('connect', () => resolve('connected'));
    socket.once('timeout', () => resolve('timeout'));
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    socket.once('close', () => socket.destroy());
  });
}

async function removePod(name: string): Promise<void> {
  await client.delete(PODS, 'default', name);
  await until(`${name} gone`, async () =>
    (await pod(name).then(
      () => false,
      () => true,
    ))
      ? true
      : undefined,
  );
}

// The node's daemon holds Pod Ready until it listens (PodDaemon.readyPorts): a daemon that takes
// a second to listen leaves the Pod Running and not Ready for that second, and once the Pod is
// Ready its port answers at once — without the hold the Pod was Ready a second before anything
// listened (a warm pool member handed out then failed its first call). A daemon that never
// listens keeps the Pod not Ready. Real runc containers from the busybox test image against our
// embedded API server.
import { PODS, type KubeClient } from '@agent-sandbox/kube';
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_IMAGE as IMAGE, startNodeWorld, type NodeWorld } from '../testing/node-world.ts';
import type { NodeAgent } from './node-agent.ts';

type PodObject = Pod & KubeObject;
const PORT = 8888;
/** The Pod's annotation picks the test daemon: `late` listens after a second, `never` never. */
const MODE = 'test.agent-sandbox.dev/daemon';
const DAEMONS: Record<string, string[]> = {
  late: [
    '/bin/sh',
    '-c',
    `mkdir -p /tmp/w && echo up > /tmp/w/index.html && sleep 1 && exec httpd -f -p ${PORT} -h /tmp/w`,
  ],
  never: ['/bin/sleep', '3600'],
};

let world: NodeWorld;
let client: KubeClient;
let agent: NodeAgent;

beforeAll(async () => {
  world = await startNodeWorld({
    tag: 'gate',
    agent: {
      podDaemon: {
        argv: (pod) => DAEMONS[pod.metadata?.annotations?.[MODE] ?? ''],
        readyPorts: () => [PORT],
      },
    },
  });
  ({ client, agent } = world);
}, 60_000);

afterAll(async () => {
  expect(await world?.close()).toEqual([]);
});

async function createPod(name: string, mode: string): Promise<void> {
  await client.create(PODS, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', annotations: { [MODE]: mode } },
    spec: {
      terminationGracePeriodSeconds: 0,
      containers: [{ name: 'main', image: IMAGE, command: ['sleep', '3600'] }],
    },
  } as PodObject);
}

const readyOf = (p: PodObject): string | undefined =>
  p.status?.conditions?.find((c) => c.type === 'Ready')?.status;

/** Polls the Pod every 10 ms until `ok`; returns the Pod that satisfied it. */
async function until(name: string, ok: (p: PodObject) => boolean): Promise<PodObject> {
  const end = Date.now() + 30_000;
  for (;;) {
    const pod = await client.get<PodObject>(PODS, 'default', name);
    if (ok(pod)) return pod;
    if (Date.now() > end) throw new Error(`pod ${name}: condition not met in 30 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A GET of the daemon's port from inside the Pod (one try, busybox nc): the answer, or the error. */
function fetchInPod(name: string): Promise<string> {
  const cmd = agent.execCommand(
    { namespace: 'default', name },
    'main',
    ['sh', '-c', `printf 'GET /index.html HTTP/1.0\\r\\n\\r\\n' | nc 127.0.0.1 ${PORT}`],
    { tty: false },
  );
  return new Promise((resolve) =>
    execFile(cmd.file, cmd.args, { env: cmd.env, timeout: 20_000 }, (err, stdout, stderr) =>
      resolve(err ? `failed: ${err.message} ${stderr.trim()}` : stdout),
    ),
  );
}

describe('the node holds Pod Ready until its daemon listens', () => {
  it('Running first, Ready only once the daemon answers, which it then does', async () => {
    await createPod('late', 'late');
    const running = await until('late', (p) => p.status?.phase === 'Running');
    // The daemon sleeps a second before it listens: Running is published well before.
    expect(readyOf(running)).toBe('False');
    await until('late', (p) => readyOf(p) === 'True');
    expect(await fetchInPod('late')).toContain('up\n');
    await client.delete(PODS, 'default', 'late');
  }, 60_000);

  it('a daemon that never listens keeps the Pod not Ready', async () => {
    await createPod('never', 'never');
    await until('never', (p) => p.status?.phase === 'Running');
    await new Promise((r) => setTimeout(r, 2000));
    const pod = await client.get<PodObject>(PODS, 'default', 'never');
    expect(readyOf(pod)).toBe('False');
    expect(pod.status?.containerStatuses?.[0]?.ready).toBe(false);
    await client.delete(PODS, 'default', 'never');
  }, 60_000);
});

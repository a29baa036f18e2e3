// The node agent with the in-sandbox daemon injected (as `up` runs it): a busybox Pod that knows
// nothing of the daemon serves the legacy runtime on 8888 inside its network namespace — under
// runc, gVisor and bubblewrap — running busybox's own sh; a workload's own port 8080 stays the workload's;
// the opt-out annotation leaves a Pod without it;
// the daemon dies with its container (the leak check finds nothing).
import { type KubeClient, PODS } from '@agent-sandbox/kube';
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import { type NodeAgent } from '@agent-sandbox/kubelet';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOXD_ANNOTATION } from './sandboxd-injection.ts';
import {
  INJECTED_AGENT_IMAGE,
  startInjectedAgent,
  type InjectedAgentWorld,
} from './testing/injected-agent.ts';

type PodObject = Pod & KubeObject;
const IMAGE = INJECTED_AGENT_IMAGE;

let world: InjectedAgentWorld;
let client: KubeClient;
let agent: NodeAgent;

beforeAll(async () => {
  world = await startInjectedAgent('sbxd');
  ({ client, agent } = world);
}, 60_000);

afterAll(async () => {
  const leaks = world ? await world.stop() : [];
  expect(leaks).toEqual([]);
});

async function runningPod(
  name: string,
  extra: {
    runtimeClassName?: string;
    annotations?: Record<string, string>;
    command?: string[];
  } = {},
): Promise<string> {
  const created = await client.create(PODS, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', annotations: extra.annotations ?? {} },
    spec: {
      terminationGracePeriodSeconds: 1,
      ...(extra.runtimeClassName ? { runtimeClassName: extra.runtimeClassName } : {}),
      containers: [{ name: 'main', image: IMAGE, command: extra.command ?? ['sleep', '3600'] }],
    },
  } as PodObject);
  await expect
    .poll(async () => (await client.get<PodObject>(PODS, 'default', name)).status?.phase, {
      timeout: 30_000,
      interval: 100,
    })
    .toBe('Running');
  return created.metadata.uid ?? '';
}

/** A command inside the Pod's container (busybox): ok and its stdout. */
function inPod(name: string, argv: string[]): Promise<{ ok: boolean; out: string }> {
  const cmd = agent.execCommand({ namespace: 'default', name }, 'main', argv, { tty: false });
  return new Promise((resolve) =>
    execFile(cmd.file, cmd.args, { env: cmd.env, timeout: 20_000 }, (err, stdout) =>
      resolve({ ok: !err, out: stdout }),
    ),
  );
}

async function untilServing(name: string): Promise<string> {
  let last = { ok: false, out: '' };
  for (let i = 0; i < 150 && !last.ok; i++) {
    last = await inPod(name, ['wget', '-qO-', 'http://127.0.0.1:8888/']);
    if (!last.ok) await new Promise((r) => setTimeout(r, 200));
  }
  return last.out;
}

async function execute(name: string, command: string): Promise<unknown> {
  const r = await inPod(name, [
    'wget',
    '-qO-',
    '--header',
    'Content-Type: application/json',
    '--post-data',
    JSON.stringify({ command }),
    'http://127.0.0.1:8888/execute',
  ]);
  return JSON.parse(r.out);
}

describe('sandboxd injected by the node agent', () => {
  for (const runtime of ['runc', 'gvisor', 'bubblewrap'])
    it(`serves the legacy runtime in a busybox Pod under ${runtime}`, async () => {
      const name = `daemon-${runtime}`;
      const uid = await runningPod(name, runtime === 'runc' ? {} : { runtimeClassName: runtime });
      // The agent's own cgroup parent: another suite's agent neither sees nor cleans this Pod.
      if (runtime === 'runc')
        expect(existsSync(`/sys/fs/cgroup/pids/${world.cgroupParent}/pod${uid}`)).toBe(true);
      expect(JSON.parse(await untilServing(name))).toEqual({
        status: 'ok',
        message: 'Sandbox Runtime is active.',
      });
      // The code-cached launch (ADR 0045): node runs the boot script beside the bundle and cache.
      const cmdlines = await inPod(name, ['sh', '-c', 'cat /proc/[0-9]*/cmdline | tr "\\0" " "']);
      expect(cmdlines.out).toContain('/.sbx/node /.sbx/sandboxd-boot.cjs');
      expect(await execute(name, "sh -c 'echo $(pwd) from busybox; exit 4'")).toMatchObject({
        stdout: '/workspace from busybox\n',
        exit_code: 4,
      });
      await client.delete(PODS, 'default', name);
    }, 90_000);

  it("leaves the workload's own port 8080 to the workload and serves 8888", async () => {
    await runningPod('own-8080', {
      command: [
        'sh',
        '-c',
        'mkdir -p /tmp/www && echo pong > /tmp/www/index.html && httpd -p 8080 -h /tmp/www && exec sleep 3600',
      ],
    });
    await untilServing('own-8080');
    expect(
      (await inPod('own-8080', ['wget', '-qO-', 'http://127.0.0.1:8080/index.html'])).out,
    ).toBe('pong\n');
    expect(await execute('own-8080', 'echo still-here')).toMatchObject({ stdout: 'still-here\n' });
    await client.delete(PODS, 'default', 'own-8080');
  }, 60_000);

  it('leaves a Pod that opts out without a daemon', async () => {
    await runningPod('no-daemon', { annotations: { [SANDBOXD_ANNOTATION]: 'disabled' } });
    await new Promise((r) => setTimeout(r, 2000));
    // Nothing listens, and no daemon process runs in the container.
    const probe =
      'wget -qO- -T 2 http://127.0.0.1:8888/ || echo nothing-on-8888; cat /proc/[0-9]*/cmdline';
    const r = await inPod('no-daemon', ['sh', '-c', probe]);
    expect(r.out).toContain('nothing-on-8888');
    expect(r.out).not.toMatch(/sandboxd[.-]/);
    await client.delete(PODS, 'default', 'no-daemon');
  }, 60_000);
});

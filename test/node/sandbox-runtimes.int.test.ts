// Sandboxes on a real node under each runtime (issue 11 "Must show"): a SandboxWarmPool of a
// SandboxTemplate whose Pods ask for the runtime's RuntimeClass; the controllers make Sandboxes,
// the template's default NetworkPolicy, and the node agent runs the Pods from the busybox test
// image on the bridge network. Each suite proves Ready with a pod IP and every isolation denial,
// and the node is checked for leaks at the end. Root, runc, runsc, bwrap and nftables required.
import { Labels, nameHash } from '@agent-sandbox/api';
import { SANDBOXES, SANDBOX_TEMPLATES, SANDBOX_WARM_POOLS } from '@agent-sandbox/controllers';
import { eventually } from '@agent-sandbox/controllers/testing';
import { NAMESPACES, PODS } from '@agent-sandbox/kube';
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GATEWAY,
  IMAGE,
  INTERNET,
  METADATA,
  SUBNET,
  startNodeWorld,
  type NodeWorld,
} from './node-world.ts';

const NS = 'rt';
const execFileAsync = promisify(execFile);
let world: NodeWorld;

type PodObject = Pod & KubeObject;
type SandboxObject = KubeObject & {
  status?: { conditions?: { type: string; status: string }[]; podIPs?: string[] };
};

beforeAll(async () => {
  world = await startNodeWorld(NS);
  await world.client.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NS },
  });
});

afterAll(async () => {
  const leaks = world ? await world.close() : [];
  expect(leaks).toEqual([]);
});

const SERVE = 'while true; do echo pong | nc -l -p 8080; done';

/** A template with the runtime's class and a warm pool of two; resolves with the Sandboxes' names. */
async function warmPool(label: string, runtimeClassName: string | undefined): Promise<string[]> {
  const { client } = world;
  await client.create(SANDBOX_TEMPLATES, {
    apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
    kind: 'SandboxTemplate',
    metadata: { name: `tmpl-${label}`, namespace: NS },
    spec: {
      podTemplate: {
        spec: {
          ...(runtimeClassName ? { runtimeClassName } : {}),
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'main',
              image: IMAGE,
              imagePullPolicy: 'IfNotPresent',
              command: ['sh', '-c', SERVE],
            },
          ],
        },
      },
    },
  } as KubeObject);
  await client.create(SANDBOX_WARM_POOLS, {
    apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
    kind: 'SandboxWarmPool',
    metadata: { name: `pool-${label}`, namespace: NS },
    spec: { sandboxTemplateRef: { name: `tmpl-${label}` }, replicas: 2 },
  } as KubeObject);
  return eventually(async () => {
    const list = await client.list<SandboxObject>(SANDBOXES, NS);
    const ready = list.items.filter(
      (s) =>
        s.metadata.ownerReferences?.some((o) => o.name === `pool-${label}`) &&
        s.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    );
    return ready.length === 2 ? ready.map((s) => s.metadata.name ?? '') : undefined;
  }, 60_000);
}

/** Runs `script` in the Pod's main container (asynchronously: the API server shares this process). */
async function exec(pod: string, script: string, timeoutMs = 20_000): Promise<string> {
  const cmd = world.agent.execCommand({ namespace: NS, name: pod }, 'main', ['sh', '-c', script], {
    tty: false,
  });
  const r = await execFileAsync(cmd.file, cmd.args, { env: cmd.env, timeout: timeoutMs }).catch(
    (e: { stdout?: string; stderr?: string }) => e,
  );
  return `${r.stdout ?? ''}${r.stderr ?? ''}`;
}

/** 'ok' when a connection from inside `pod` to ip:port gets the server's first bytes. */
async function reach(pod: string, ip: string, port: number): Promise<'ok' | 'fail'> {
  const out = await exec(
    pod,
    `(printf 'GET /version HTTP/1.1\\r\\nHost: api\\r\\nConnection: close\\r\\n\\r\\n'; sleep 1) | timeout 5 nc -w 2 ${ip} ${port} 2>&1 | head -c 200`,
  );
  return /pong|HTTP\/1\.[01]/.test(out) ? 'ok' : 'fail';
}

/** The container's CRI log content, lines joined. */
async function readLog(pod: string): Promise<string> {
  const log = world.agent.logPath({ namespace: NS, name: pod }, 'main', { previous: false });
  const text = await readFile(log?.path ?? '', 'utf8').catch(() => '');
  return text
    .split('\n')
    .map((l) => l.split(' ').slice(3).join(' '))
    .join('\n');
}

async function podOf(name: string): Promise<PodObject> {
  return world.client.get<PodObject>(PODS, NS, name);
}

async function deleteAndWait(name: string): Promise<void> {
  await world.client.delete(PODS, NS, name).catch(() => undefined);
  await eventually(
    () =>
      world.client.get(PODS, NS, name).then(
        () => undefined,
        () => true,
      ),
    30_000,
  );
}

/** A bare Pod under the runtime (no template label, so no NetworkPolicy selects it). */
async function plainPod(
  name: string,
  runtimeClassName: string | undefined,
  container: Partial<NonNullable<Pod['spec']>['containers'][number]>,
  restartPolicy = 'Never',
): Promise<void> {
  await world.client.create(PODS, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS },
    spec: {
      ...(runtimeClassName ? { runtimeClassName } : {}),
      restartPolicy,
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'main', image: IMAGE, imagePullPolicy: 'IfNotPresent', ...container }],
    },
  } as PodObject);
}

/**
 * Per runtime: what the denial tests expect, and each denial the runtime cannot give, as an
 * explicit skip with the reason (ADR 0034 for bubblewrap).
 */
const RUNTIMES: {
  label: string;
  runtimeClassName: string | undefined;
  scheme: string;
  kernel: RegExp;
  /** fork fails with EAGAIN at pids.max (runc, bubblewrap) or the sandbox ends (gVisor). */
  pids: 'eagain' | 'sandbox-ends';
  skip: { seccomp?: string };
}[] = [
  {
    label: 'runc',
    runtimeClassName: undefined,
    scheme: 'runc',
    kernel: /^\d+\.\d+\.\d+/,
    pids: 'eagain',
    skip: {},
  },
  {
    label: 'gvisor',
    runtimeClassName: 'gvisor',
    scheme: 'gvisor',
    kernel: /^4\.4\.0$/,
    pids: 'sandbox-ends',
    skip: {
      seccomp:
        "runsc applies the OCI profile only with --oci-seccomp; gVisor's sentry is the syscall boundary",
    },
  },
  {
    label: 'bubblewrap',
    runtimeClassName: 'bubblewrap',
    scheme: 'bubblewrap',
    kernel: /^\d+\.\d+\.\d+/,
    pids: 'eagain',
    skip: {},
  },
];

describe.each(RUNTIMES)(
  'Sandboxes under $label',
  ({ label, runtimeClassName, scheme, kernel, pids, skip }) => {
    let a = '';
    let b = '';

    afterAll(async () => {
      await world.client.delete(SANDBOX_WARM_POOLS, NS, `pool-${label}`).catch(() => undefined);
      await world.client.delete(SANDBOX_TEMPLATES, NS, `tmpl-${label}`).catch(() => undefined);
      await eventually(async () => {
        const pods = await world.client.list<PodObject>(PODS, NS);
        return pods.items.some((p) => p.metadata.name?.startsWith(`pool-${label}`))
          ? undefined
          : true;
      }, 60_000);
    });

    it('become Ready with a pod IP on the bridge, from the template, under the RuntimeClass', async () => {
      [a = '', b = ''] = await warmPool(label, runtimeClassName);
      for (const name of [a, b]) {
        const sandbox = await world.client.get<SandboxObject>(SANDBOXES, NS, name);
        const pod = await podOf(name);
        expect(pod.status?.phase).toBe('Running');
        expect(pod.status?.podIP).toMatch(new RegExp(`^${SUBNET.replaceAll('.', '\\.')}\\.\\d+$`));
        expect(sandbox.status?.podIPs).toEqual([pod.status?.podIP]);
        expect(pod.status?.containerStatuses?.[0]?.containerID).toMatch(
          new RegExp(`^${scheme}://[0-9a-f]{64}$`),
        );
        expect(pod.metadata.labels?.[Labels.SandboxTemplateRefHash]).toBe(
          nameHash(`tmpl-${label}`),
        );
      }
      expect((await exec(a, 'uname -r')).trim()).toMatch(kernel);
      // The node reaches its Pods even under the template's policy (kubelet probes, the router).
      const ip = (await podOf(b)).status?.podIP ?? '';
      const fromHost = await execFileAsync('sh', ['-c', `echo x | busybox nc -w 3 ${ip} 8080`], {
        timeout: 10_000,
      });
      expect(fromHost.stdout).toContain('pong');
    });

    it('cannot read host files or see host or other sandboxes processes', async () => {
      const files = await exec(a, `cat ${world.secretFile} 2>&1; ls ${world.dir} 2>&1`);
      expect(files).not.toContain('host-secret-content');
      expect(files).toMatch(/No such file or directory/);
      await exec(b, 'sleep 3600 >/dev/null 2>&1 &');
      const ps = await exec(
        a,
        'for p in /proc/[0-9]*; do cat $p/cmdline | tr "\\0" " "; echo; done',
      );
      expect(ps).toContain('nc -l -p 8080');
      expect(ps).not.toMatch(/sleep 3600|node|vitest|runc|runsc|containerd/);
      expect(ps.trim().split('\n').length).toBeLessThan(8);
    });

    it('cannot exceed its pids limit (64 per container)', async () => {
      const name = `pids-${label}`;
      await plainPod(name, runtimeClassName, {
        command: [
          'sh',
          '-c',
          '(for i in $(seq 200); do sleep 30 & done) 2>/dev/null; set -- /proc/[0-9]*; echo "running $#"',
        ],
      });
      const pod = await eventually(async () => {
        const p = await podOf(name);
        return p.status?.phase === 'Failed' || p.status?.phase === 'Succeeded' ? p : undefined;
      }, 60_000);
      const log = await readLog(name);
      const running = /running (\d+)/.exec(log);
      if (pids === 'eagain') {
        // fork fails with EAGAIN at pids.max (ash leaves the subshell); the shell counts what runs
        // with builtins, which need no fork
        expect(Number(running?.[1])).toBeLessThanOrEqual(64);
        expect(pod.status?.phase).toBe('Succeeded');
      } else {
        // gVisor (ptrace): at the host limit the sentry cannot fork its stubs and the sandbox ends
        expect(running).toBeNull();
        expect(pod.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).not.toBe(0);
      }
      await deleteAndWait(name);
    });

    it.skipIf(skip.seccomp !== undefined)(
      `refuses the default seccomp profile's syscalls${skip.seccomp ? ` (skipped: ${skip.seccomp})` : ''}`,
      async () => {
        // unshare(CLONE_NEWUSER) needs no capability: only the profile refuses it
        const out = await exec(a, 'unshare -U true 2>&1; echo rc=$?');
        expect(out).toMatch(/Operation not permitted/);
        expect(out).toContain('rc=1');
      },
    );

    it('is OOMKilled at its memory limit, reported in the container status', async () => {
      const name = `oom-${label}`;
      await plainPod(name, runtimeClassName, {
        command: ['sh', '-c', 'x=$(head -c 200000000 /dev/zero | tr "\\0" a); echo survived ${#x}'],
        resources: { limits: { memory: '48Mi' } },
      });
      const pod = await eventually(async () => {
        const p = await podOf(name);
        return p.status?.phase === 'Failed' ? p : undefined;
      }, 60_000);
      expect(pod.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
        reason: 'OOMKilled',
        exitCode: 137,
      });
      await deleteAndWait(name);
    });

    it('cannot reach the API server, the host, metadata or another sandbox under the template default policy; reaches the internet', async () => {
      const control = `control-${label}`;
      await plainPod(control, runtimeClassName, { command: ['sh', '-c', SERVE] }, 'Always');
      await eventually(async () =>
        (await podOf(control)).status?.containerStatuses?.[0]?.ready ? true : undefined,
      );
      await world.enforcer.sync();
      const bIp = (await podOf(b)).status?.podIP ?? '';
      const controlIp = (await podOf(control)).status?.podIP ?? '';
      const targets = {
        apiServer: [GATEWAY, world.apiPort],
        hostPort: [GATEWAY, world.hostPort],
        metadata: [METADATA, 8080],
        internet: [INTERNET, 8080],
      } as const;
      const from = async (pod: string) =>
        Object.fromEntries(
          await Promise.all(
            Object.entries(targets).map(async ([k, [ip, port]]) => [k, await reach(pod, ip, port)]),
          ),
        );
      // Without a policy (the control Pod) every target answers: the denials below are the policy's.
      expect(await from(control)).toEqual({
        apiServer: 'ok',
        hostPort: 'ok',
        metadata: 'ok',
        internet: 'ok',
      });
      expect(await from(a)).toEqual({
        apiServer: 'fail',
        hostPort: 'fail',
        metadata: 'fail',
        internet: 'ok',
      });
      expect({
        otherSandbox: await reach(a, bIp, 8080),
        controlPod: await reach(a, controlIp, 8080),
      }).toEqual({
        otherSandbox: 'fail',
        controlPod: 'fail',
      });
      expect(await reach(control, bIp, 8080)).toBe('fail'); // ingress: only the router may connect
      await deleteAndWait(control);
    });
  },
);

// The node agent against our embedded API server with real runc containers from the busybox
// test image. Few pods, short lives: this file stays within a few seconds of container time.
import { CONFIG_MAPS, PODS, type KubeClient } from '@agent-sandbox/kube';
import type { Container, KubeObject, Pod } from '@agent-sandbox/kube-types';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntimeClass } from '../testing/runtime-class.ts';
import { TEST_IMAGE as IMAGE, startNodeWorld, type NodeWorld } from '../testing/node-world.ts';
import { NODES, type NodeAgent } from './node-agent.ts';

type PodObject = Pod & KubeObject;

let world: NodeWorld | undefined;
let client: KubeClient;
let dir: string;
let agent: NodeAgent;

function requireRuntimes(): void {
  for (const [bin, pkg] of [
    ['runc', 'runc'],
    ['runsc', 'runsc'],
    ['bwrap', 'bubblewrap'],
  ] as const)
    if (spawnSync(bin, ['--version']).status !== 0)
      throw new Error(`${bin} is missing: apt-get install ${pkg} (CI must have it)`);
}

beforeAll(async () => {
  requireRuntimes();
  world = await startNodeWorld({
    tag: 'nodetest',
    runtimes: ['runc', 'runsc', 'bubblewrap'],
    agent: {
      pidsLimit: 64,
      backoffBaseMs: 200,
      allowHostPath: true, // refusal without it: host-path.test.ts
    },
  });
  ({ client, dir, agent } = world);
  await createRuntimeClass(client, 'gvisor', 'runsc');
  await createRuntimeClass(client, 'bubblewrap', 'bubblewrap');
});

afterAll(async () => {
  console.time('stop');
  const leaks = await world?.close();
  console.timeEnd('stop');
  expect(leaks).toEqual([]);
});

function pod(
  name: string,
  spec: Partial<Pod['spec']> & { containers: NonNullable<Pod['spec']>['containers'] },
): PodObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { terminationGracePeriodSeconds: 1, ...spec },
  } as PodObject;
}

/** A container of the test image (already loaded, so never pulled) with `extra` on top. */
function testContainer(name: string, extra: Partial<Container>): Container {
  return { name, image: IMAGE, imagePullPolicy: 'IfNotPresent', ...extra };
}

/** Creates pod `name` with one container and the rest of `spec`. */
async function createPod(
  name: string,
  container: Container,
  spec: Partial<Pod['spec']> = {},
): Promise<void> {
  await client.create(PODS, pod(name, { ...spec, containers: [container] }));
}

/** Runs argv in the pod's container through the agent's exec command, as streaming does. */
/**
 * Runs argv in the pod's container through the agent's exec command, as streaming does. Not
 * spawnSync: the agent shares this event loop, and blocking it for a runtime's exec made its
 * probes' timers fire late, counted as probe timeouts under load.
 */
function exec(
  name: string,
  container: string,
  argv: string[],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const cmd = agent.execCommand({ namespace: 'default', name }, container, argv, { tty: false });
  return new Promise((resolve, reject) => {
    const child = spawn(cmd.file, cmd.args, { env: cmd.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

async function waitFor(
  name: string,
  ok: (p: PodObject) => boolean,
  ms = 20_000,
): Promise<PodObject> {
  const end = Date.now() + ms;
  let last: PodObject | undefined;
  while (Date.now() < end) {
    last = await client.get<PodObject>(PODS, 'default', name);
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`pod ${name} never matched; last status ${JSON.stringify(last?.status)}`);
}

async function gone(name: string): Promise<void> {
  const end = Date.now() + 20_000;
  while (Date.now() < end) {
    if (
      !(await client.get(PODS, 'default', name).then(
        () => true,
        () => false,
      ))
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`pod ${name} was never removed`);
}

/** The container's CRI log once it holds `text` (the agent writes it as output arrives). */
async function logHolding(name: string, container: string, text: string): Promise<string> {
  const log = agent.logPath({ namespace: 'default', name }, container, { previous: false });
  const end = Date.now() + 10_000;
  let content = '';
  while (Date.now() < end && !content.includes(text)) {
    const path = log?.path ?? '';
    content = existsSync(path) ? readFileSync(path, 'utf8') : ''; // written from the first output on
    await new Promise((r) => setTimeout(r, 100));
  }
  return content;
}

/** Deletes the pods (grace 1 s) and waits until the agent's final DELETE removed each. */
async function remove(...names: string[]): Promise<void> {
  await Promise.all(
    names.map(async (n) => {
      await client.delete(PODS, 'default', n);
      await gone(n);
    }),
  );
}

describe('NodeAgent with runc', () => {
  it('registers a Ready Node with a Lease', async () => {
    const node = (await client.get(NODES, undefined, agent.name)) as KubeObject & {
      status: {
        conditions: { type: string; status: string; reason: string }[];
        nodeInfo: { containerRuntimeVersion: string };
      };
    };
    expect(node.metadata.labels?.['kubernetes.io/os']).toBe('linux');
    expect(node.status.conditions.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      reason: 'KubeletReady',
    });
    expect(node.status.nodeInfo.containerRuntimeVersion).toMatch(/^runc:\/\/\d/);
  });

  it('binds, runs, reports Running/Ready, execs, logs, and deletes gracefully', async () => {
    await createPod(
      'web',
      testContainer('app', {
        command: ['sh', '-c', 'echo hello $(GREETING); echo oops >&2; exec sleep 60'],
        env: [{ name: 'GREETING', value: 'world' }],
      }),
    );
    const p = await waitFor(
      'web',
      (x) => x.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
    );
    expect(p.spec?.nodeName).toBe(agent.name);
    expect(p.status?.phase).toBe('Running');
    expect(p.status?.conditions?.map((c) => `${c.type}=${c.status}`)).toEqual([
      'PodReadyToStartContainers=True',
      'Initialized=True',
      'Ready=True',
      'ContainersReady=True',
      'PodScheduled=True',
    ]);
    const cs = p.status?.containerStatuses?.[0];
    expect(cs).toMatchObject({
      name: 'app',
      ready: true,
      started: true,
      restartCount: 0,
      image: IMAGE,
    });
    expect(cs?.imageID).toMatch(/^localhost\/test\/busybox@sha256:[0-9a-f]{64}$/);
    expect(cs?.containerID).toMatch(/^runc:\/\/[0-9a-f]{64}$/);
    expect(cs?.state?.running?.startedAt).toBeTruthy();

    const out = await exec('web', 'app', [
      'sh',
      '-c',
      'echo $GREETING from $(hostname); cat /etc/image-release; ls /opaque',
    ]);
    expect(out.stdout).toBe('world from web\nagent-sandbox test image\nupper\n');
    const log = agent.logPath({ namespace: 'default', name: 'web' }, 'app', { previous: false });
    expect(log?.running).toBe(true);
    const lines = readFileSync(log?.path ?? '', 'utf8')
      .trim()
      .split('\n');
    expect(lines.map((l) => l.replace(/^\S+ /, ''))).toEqual(
      expect.arrayContaining(['stdout F hello world', 'stderr F oops']),
    );

    await remove('web');
  });

  it('a DELETE waits for the agent: SIGTERM, SIGKILL after the grace, then its own final DELETE', async () => {
    const loop = 'while :; do sleep 0.1; done';
    await createPod(
      'term',
      testContainer('c', { command: ['sh', '-c', `trap "echo got-term; exit 3" TERM; ${loop}`] }),
      {
        terminationGracePeriodSeconds: 30,
      },
    );
    await createPod(
      'stubborn',
      testContainer('c', { command: ['sh', '-c', `trap "" TERM; ${loop}`] }),
      {
        terminationGracePeriodSeconds: 2,
      },
    );
    await waitFor('term', (x) => x.status?.containerStatuses?.[0]?.state?.running !== undefined);
    const created = await waitFor(
      'stubborn',
      (x) => x.status?.containerStatuses?.[0]?.state?.running !== undefined,
    );
    // The last status each Pod had before it went: the agent's terminal write.
    const abort = new AbortController();
    const last = new Map<string, PodObject>();
    const deleted = new Set<string>();
    const watching = (async () => {
      const events = client.watch<PodObject>(PODS, 'default', {
        signal: abort.signal,
        resourceVersion: created.metadata?.resourceVersion ?? '',
      });
      for await (const ev of events) {
        const obj = ev.object as PodObject;
        const name = obj.metadata?.name ?? '';
        if (ev.type === 'DELETED') deleted.add(name);
        else last.set(name, obj);
        if (deleted.has('term') && deleted.has('stubborn')) return;
      }
    })();
    const sent = Date.now();
    const marked = await client.delete<PodObject>(PODS, 'default', 'term');
    const stubborn = await client.delete<PodObject>(PODS, 'default', 'stubborn');
    expect(marked?.metadata?.deletionGracePeriodSeconds).toBe(30);
    expect(stubborn?.metadata?.deletionGracePeriodSeconds).toBe(2);
    await gone('term');
    await gone('stubborn');
    // The stubborn one outlived its grace: only the KILL at its end ended it.
    expect(Date.now() - sent).toBeGreaterThanOrEqual(1900);
    await watching;
    abort.abort();
    const exit = (n: string) =>
      last.get(n)?.status?.containerStatuses?.[0]?.state?.terminated?.exitCode;
    expect(exit('term')).toBe(3); // its TERM trap ran
    expect(exit('stubborn')).toBe(137);
    expect(last.get('term')?.status?.phase).toBe('Failed');
    const log = readFileSync(
      join(dir, 'node', 'logs', `default_term_${marked?.metadata?.uid}`, 'c', '0.log'),
      'utf8',
    );
    expect(log).toContain('stdout F got-term');
  });

  it('kubectl delete pod returns once the agent has stopped the Pod and removed it', async () => {
    await createPod(
      'kd',
      testContainer('c', {
        command: ['sh', '-c', 'trap "exit 0" TERM; while :; do sleep 0.1; done'],
      }),
      { terminationGracePeriodSeconds: 30 },
    );
    await waitFor('kd', (x) => x.status?.containerStatuses?.[0]?.state?.running !== undefined);
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve) => {
        const child = spawn('kubectl', ['delete', 'pod', 'kd', '-n', 'default'], {
          env: { ...process.env, KUBECONFIG: world?.api.kubeconfigPath },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.once('exit', (code) => resolve({ code, stdout, stderr }));
      },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^pod "kd" deleted/);
    expect(r.code).toBe(0);
    // kubectl waited for the removal, not just the mark.
    await expect(client.get(PODS, 'default', 'kd')).rejects.toThrow(/not found/);
  });

  it('a later DELETE shortens a pending grace: the agent kills sooner', async () => {
    await createPod(
      'shorten',
      testContainer('c', { command: ['sh', '-c', 'trap "" TERM; while :; do sleep 0.1; done'] }),
      {
        terminationGracePeriodSeconds: 600,
      },
    );
    await waitFor('shorten', (x) => x.status?.containerStatuses?.[0]?.state?.running !== undefined);
    await client.delete(PODS, 'default', 'shorten');
    const again = await client.delete<PodObject>(PODS, 'default', 'shorten', {
      gracePeriodSeconds: 1,
    });
    expect(again?.metadata?.deletionGracePeriodSeconds).toBe(1);
    await gone('shorten'); // 20 s: without the shortening it would take 600
  });

  it('reports exit codes, Failed under restartPolicy Never, and OOMKilled', async () => {
    const never = { restartPolicy: 'Never' } as const;
    await createPod(
      'exit3',
      testContainer('c', { command: ['sh', '-c', 'echo bye > /dev/termination-log; exit 3'] }),
      never,
    );
    await createPod(
      'oom',
      testContainer('c', {
        command: [
          'sh',
          '-c',
          'dd if=/dev/zero bs=64M count=1 | cat > /dev/null; x=$(head -c 100000000 /dev/zero | tr "\\0" a); echo survived',
        ],
        resources: { limits: { memory: '32Mi' } },
      }),
      never,
    );
    const failed = await waitFor('exit3', (x) => x.status?.phase === 'Failed');
    expect(failed.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      exitCode: 3,
      reason: 'Error',
      message: 'bye\n',
    });
    expect(failed.status?.conditions?.find((c) => c.type === 'ContainersReady')?.reason).toBe(
      'PodFailed',
    );
    const oom = await waitFor('oom', (x) => x.status?.phase === 'Failed');
    expect(oom.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      reason: 'OOMKilled',
      exitCode: 137,
    });
    await remove('exit3', 'oom');
  });

  it('runs init containers first and restarts crashing containers with back-off', async () => {
    await createPod('crash', testContainer('c', { command: ['sh', '-c', 'exit 1'] }), {
      initContainers: [testContainer('setup', { command: ['true'] })],
    });
    const p = await waitFor(
      'crash',
      (x) =>
        (x.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1 &&
        x.status?.containerStatuses?.[0]?.lastState?.terminated !== undefined,
    );
    expect(p.status?.phase).toBe('Running');
    expect(p.status?.initContainerStatuses?.[0]?.state?.terminated).toMatchObject({
      exitCode: 0,
      reason: 'Completed',
    });
    expect(p.status?.containerStatuses?.[0]?.lastState?.terminated).toMatchObject({
      exitCode: 1,
      reason: 'Error',
    });
    await remove('crash');
  });

  it('exec probes: readiness gates Ready, liveness failures restart the container', async () => {
    const every = { periodSeconds: 1, timeoutSeconds: 2 };
    await createPod(
      'probed',
      testContainer('app', {
        command: ['sleep', '60'],
        readinessProbe: { exec: { command: ['test', '-f', '/tmp/ready'] }, ...every },
        livenessProbe: {
          exec: { command: ['test', '!', '-f', '/tmp/die'] },
          failureThreshold: 2,
          ...every,
        },
      }),
    );
    const ready = (x: PodObject) =>
      x.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    const running = await waitFor(
      'probed',
      (x) => !!x.status?.containerStatuses?.[0]?.state?.running,
    );
    expect(running.status?.containerStatuses?.[0]).toMatchObject({ ready: false, started: true });
    expect(running.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ContainersNotReady',
    });
    expect((await exec('probed', 'app', ['touch', '/tmp/ready'])).status).toBe(0);
    const p = await waitFor('probed', ready);
    expect(p.status?.containerStatuses?.[0]).toMatchObject({ ready: true, restartCount: 0 });
    expect((await exec('probed', 'app', ['touch', '/tmp/die'])).status).toBe(0);
    // Killed and restarted on a fresh root: /tmp/ready is gone, so the new instance is unready.
    const restarted = await waitFor(
      'probed',
      (x) =>
        x.status?.containerStatuses?.[0]?.restartCount === 1 &&
        !!x.status.containerStatuses[0].state?.running,
    );
    expect(restarted.status?.containerStatuses?.[0]?.ready).toBe(false);
    expect(
      restarted.status?.containerStatuses?.[0]?.lastState?.terminated?.exitCode,
    ).toBeGreaterThan(128);
    await remove('probed');
  });

  it('httpGet, tcpSocket and startup probes in the pod network namespace', async () => {
    const every = { periodSeconds: 1, timeoutSeconds: 2 };
    await createPod(
      'web-probed',
      testContainer('app', {
        command: ['sh', '-c', 'mkdir -p /www && sleep 2 && exec httpd -f -p 8080 -h /www'],
        ports: [{ name: 'http', containerPort: 8080 }],
        startupProbe: { tcpSocket: { port: 8080 }, failureThreshold: 30, ...every },
        livenessProbe: { tcpSocket: { port: 'http' }, ...every },
        readinessProbe: { httpGet: { path: '/ok.html', port: 'http' }, ...every },
      }),
    );
    const started = await waitFor(
      'web-probed',
      (x) => x.status?.containerStatuses?.[0]?.started === true,
    );
    expect(started.status?.containerStatuses?.[0]?.ready).toBe(false); // /ok.html is a 404
    expect((await exec('web-probed', 'app', ['sh', '-c', 'echo ok > /www/ok.html'])).status).toBe(
      0,
    );
    const p = await waitFor('web-probed', (x) => x.status?.containerStatuses?.[0]?.ready === true);
    expect(p.status?.containerStatuses?.[0]?.restartCount).toBe(0);
    await remove('web-probed');
  });

  it('refuses a probe without a handler, naming the field', async () => {
    await createPod(
      'badprobe',
      testContainer('c', { command: ['sleep', '60'], livenessProbe: { periodSeconds: 1 } }),
    );
    const p = await waitFor(
      'badprobe',
      (x) =>
        x.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerConfigError',
    );
    expect(p.status?.containerStatuses?.[0]?.state?.waiting?.message).toBe(
      'containers[c].livenessProbe: exactly one of exec, httpGet, tcpSocket or grpc must be set (found none)',
    );
    await remove('badprobe');
  });

  it('binds an allowed hostPath volume, read-only when the mount says so', async () => {
    const host = join(dir, 'host-share');
    await mkdir(host);
    await writeFile(join(host, 'greeting'), 'from the host\n');
    await createPod(
      'hostpath',
      testContainer('c', {
        command: [
          'sh',
          '-c',
          'cat /h/greeting; touch /h/new 2>/dev/null || echo read-only; exec sleep 60',
        ],
        volumeMounts: [{ name: 'h', mountPath: '/h', readOnly: true }],
      }),
      { volumes: [{ name: 'h', hostPath: { path: host, type: 'Directory' } }] },
    );
    await waitFor('hostpath', (x) => x.status?.containerStatuses?.[0]?.ready === true);
    const text = await logHolding('hostpath', 'c', 'read-only');
    expect(text).toContain('stdout F from the host');
    expect(text).toContain('stdout F read-only');
    await remove('hostpath');
  });

  it('writes configMap and projected volumes: items, nested paths, modes, a shared path to the later source', async () => {
    await client.create(CONFIG_MAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'vol-cm', namespace: 'default' },
      data: { a: 'alpha', b: 'beta', c: 'gamma' },
    } as KubeObject);
    await createPod(
      'volumes',
      testContainer('c', {
        command: ['sleep', '60'],
        volumeMounts: [
          { name: 'cm', mountPath: '/cm' },
          { name: 'p', mountPath: '/p' },
        ],
      }),
      {
        volumes: [
          {
            name: 'cm',
            configMap: {
              name: 'vol-cm',
              items: [
                { key: 'a', path: 'a' },
                { key: 'b', path: 'deep/er/b', mode: 0o600 },
              ],
            },
          },
          {
            name: 'p',
            projected: {
              sources: [
                { configMap: { name: 'vol-cm', items: [{ key: 'a', path: 'same' }] } },
                {
                  downwardAPI: {
                    items: [{ path: 'same', fieldRef: { fieldPath: 'metadata.name' } }],
                  },
                },
                { configMap: { name: 'vol-cm', items: [{ key: 'c', path: 'x/c' }] } },
              ],
            },
          },
        ],
      },
    );
    await waitFor('volumes', (x) => x.status?.phase === 'Running');
    const out = await exec('volumes', 'c', [
      'sh',
      '-c',
      'cat /cm/a /cm/deep/er/b; echo; stat -c %a /cm/deep/er/b /cm/a; ls /cm; cat /p/same /p/x/c',
    ]);
    expect(out.stderr).toBe('');
    expect(out.stdout.split('\n')).toEqual([
      'alphabeta',
      '600',
      '644',
      'a',
      'deep',
      'volumesgamma',
    ]);
    await remove('volumes');
    await client.delete(CONFIG_MAPS, 'default', 'vol-cm');
  });

  it('leaves a pod with a missing RuntimeClass waiting with a clear reason', async () => {
    await createPod('norc', { name: 'c', image: IMAGE }, { runtimeClassName: 'nope' });
    // The sandbox is retried (the class may come): ContainerCreating, with the cause.
    const p = await waitFor(
      'norc',
      (x) => x.status?.containerStatuses?.[0]?.state?.waiting?.message !== undefined,
    );
    expect(p.status?.phase).toBe('Pending');
    expect(p.status?.containerStatuses?.[0]?.state?.waiting).toEqual({
      reason: 'ContainerCreating',
      message:
        'Failed to create pod sandbox: RuntimeClass "nope" not found: create it or remove spec.runtimeClassName',
    });
    await remove('norc');
  });

  it.each([
    ['runc', undefined, /^\d+\.\d+/],
    ['gvisor', 'gvisor', /^4\.4\.0$/],
    ['bubblewrap', 'bubblewrap', /^\d+\.\d+/],
  ])(
    'isolates a %s sandbox: no host files, no host processes',
    async (label, runtimeClassName, kernel) => {
      const name = `iso-${label}`;
      const marker = join(dir, 'host-secret');
      await writeFile(marker, 'secret');
      await createPod(
        name,
        testContainer('c', { command: ['sleep', '60'] }),
        runtimeClassName ? { runtimeClassName } : {},
      );
      const p = await waitFor(
        name,
        (x) => x.status?.containerStatuses?.[0]?.state?.running !== undefined,
      );
      expect(p.status?.containerStatuses?.[0]?.containerID).toMatch(
        new RegExp(
          `^${label === 'gvisor' ? 'gvisor' : label === 'bubblewrap' ? 'bubblewrap' : 'runc'}://`,
        ),
      );
      const run = (script: string) => exec(name, 'c', ['sh', '-c', script]);
      expect((await run('uname -r')).stdout.trim()).toMatch(kernel);
      expect((await run(`cat ${marker} || ls /work /home/* 2>&1; echo done`)).stdout).not.toContain(
        'secret',
      );
      const psr = await run('for p in /proc/[0-9]*; do cat $p/comm; done');
      const ps = psr.stdout;
      expect(ps).toContain('sleep');
      expect(ps).not.toMatch(/node|vitest|runc|containerd|sshd/);
      expect(ps.trim().split('\n').length).toBeLessThan(6);
      if (label !== 'gvisor') {
        // pids.max = 64 for the container: a fork storm hits the limit (gVisor: test/node).
        const storm = await run('for i in $(seq 100); do sleep 1 & done 2>&1; wait; echo end');
        expect(storm.stdout + storm.stderr).toMatch(/can't fork|Resource temporarily unavailable/);
      }
      await remove(name);
    },
  );
});

describe('NodeAgent with bubblewrap', () => {
  const bwrap = { runtimeClassName: 'bubblewrap' } as const;

  it('runs the container with its env, workingDir and user; exec sees the same', async () => {
    await createPod(
      'bw-user',
      testContainer('c', {
        command: ['sh', '-c', 'echo "$(id -u):$(id -g) $(pwd) $GREETING"; exec sleep 60'],
        env: [{ name: 'GREETING', value: 'hi' }],
        workingDir: '/tmp',
        securityContext: { runAsUser: 1234, runAsGroup: 2345 },
      }),
      bwrap,
    );
    const p = await waitFor('bw-user', (x) => x.status?.containerStatuses?.[0]?.ready === true);
    expect(p.status?.containerStatuses?.[0]?.containerID).toMatch(/^bubblewrap:\/\/[0-9a-f]{64}$/);
    const out = await exec('bw-user', 'c', [
      'sh',
      '-c',
      'echo "$(id -u):$(id -g) $(pwd) $GREETING"',
    ]);
    expect(out.stdout).toBe('1234:2345 /tmp hi\n');
    const caps = await exec('bw-user', 'c', [
      'sh',
      '-c',
      'grep -E "^Cap(Eff|Prm)" /proc/self/status',
    ]);
    expect(caps.stdout).toBe('CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n');
    expect(await logHolding('bw-user', 'c', '/tmp')).toContain('stdout F 1234:2345 /tmp hi');
    await remove('bw-user');
  });

  it('gives root the default capabilities only, a read-only /proc/sys and masked /proc files', async () => {
    await createPod('bw-root', testContainer('c', { command: ['sleep', '60'] }), bwrap);
    await waitFor('bw-root', (x) => x.status?.containerStatuses?.[0]?.ready === true);
    const out = await exec('bw-root', 'c', [
      'sh',
      '-c',
      'id -u; grep -E "^(CapEff|Seccomp):" /proc/self/status; echo 1 > /proc/sys/kernel/ns_last_pid; wc -c < /proc/keys; mount -t tmpfs x /mnt || echo no-mount',
    ]);
    // runc's set (oci-spec.ts DEFAULT_CAPABILITIES): no CAP_SYS_ADMIN, no CAP_NET_ADMIN; and the
    // RuntimeDefault seccomp filter (mode 2)
    expect(out.stdout).toBe('0\nCapEff:\t00000000a80425fb\nSeccomp:\t2\n0\nno-mount\n');
    expect(out.stderr).toMatch(/Read-only file system/);
    await remove('bw-root');
  });

  it('reports exit codes, termination messages and OOMKilled', async () => {
    const never = { ...bwrap, restartPolicy: 'Never' } as const;
    await createPod(
      'bw-exit',
      testContainer('c', { command: ['sh', '-c', 'echo bye > /dev/termination-log; exit 3'] }),
      never,
    );
    await createPod(
      'bw-oom',
      testContainer('c', {
        command: ['sh', '-c', 'x=$(head -c 100000000 /dev/zero | tr "\\0" a); echo survived'],
        resources: { limits: { memory: '32Mi' } },
      }),
      never,
    );
    const failed = await waitFor('bw-exit', (x) => x.status?.phase === 'Failed');
    expect(failed.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      exitCode: 3,
      reason: 'Error',
      message: 'bye\n',
    });
    const oom = await waitFor('bw-oom', (x) => x.status?.phase === 'Failed');
    expect(oom.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      reason: 'OOMKilled',
      exitCode: 137,
    });
    await remove('bw-exit', 'bw-oom');
  });

  it('stops gracefully: a failed liveness probe sends SIGTERM to PID 1, which traps it', async () => {
    await createPod(
      'bw-term',
      testContainer('c', {
        command: ['sh', '-c', 'trap "echo got-term; exit 0" TERM; while :; do sleep 0.1; done'],
        livenessProbe: { exec: { command: ['false'] }, periodSeconds: 1, failureThreshold: 1 },
      }),
      { ...bwrap, terminationGracePeriodSeconds: 30 },
    );
    // Without TERM the container would end by SIGKILL after 30 s: exit code 137, no output.
    const p = await waitFor(
      'bw-term',
      (x) => x.status?.containerStatuses?.[0]?.lastState?.terminated !== undefined,
    );
    expect(p.status?.containerStatuses?.[0]?.lastState?.terminated?.exitCode).toBe(0);
    const log = agent.logPath({ namespace: 'default', name: 'bw-term' }, 'c', { previous: true });
    expect(readFileSync(log?.path ?? '', 'utf8')).toContain('stdout F got-term');
    await remove('bw-term');
  });

  it('refuses supplementalGroups with the field and the fix', async () => {
    await createPod('bw-groups', testContainer('c', { command: ['sleep', '60'] }), {
      ...bwrap,
      securityContext: { supplementalGroups: [5] },
    });
    const p = await waitFor(
      'bw-groups',
      (x) =>
        x.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerConfigError',
    );
    expect(p.status?.containerStatuses?.[0]?.state?.waiting?.message).toBe(
      'spec.securityContext.supplementalGroups: not supported under bubblewrap; remove it or use the runc RuntimeClass',
    );
    await remove('bw-groups');
  });
});

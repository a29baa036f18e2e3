// `agent-sandbox up` as a user runs it: the real CLI in its own process on a temp data dir, a
// Sandbox from the busybox test image, and the machine's kubectl against DIR/kubeconfig for
// exec (plain and -it on a pty), logs -f and port-forward; SIGINT stops everything and nothing
// of the node is left (processes, mounts, netns, cgroups, the bridge, nft tables).
import { buildTestImage } from '@agent-sandbox/kubelet/testing';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn as spawnPty } from 'node-pty';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { CLI_BIN as CLI, startUp as spawnUp, stopUp, upLeaks, upNetwork } from './testing/index.ts';
import type { UpProcess } from './testing/index.ts';

const IMAGE = 'localhost/test/busybox:v1';
const NETWORK = upNetwork('asbu', 213);
const { bridge: BRIDGE, subnet: SUBNET, cidr: CIDR } = NETWORK;

const SANDBOX = `apiVersion: agents.x-k8s.io/v1beta1
kind: Sandbox
metadata: { name: box, namespace: default }
spec:
  service: true
  podTemplate:
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: main
          image: ${IMAGE}
          ports: [{ containerPort: 8080 }]
          command: [sh, -c]
          args:
            - mkdir -p /tmp/www && echo pong > /tmp/www/index.html && httpd -p 8080 -h /tmp/www;
              i=0; while true; do echo tick $i; i=$((i+1)); sleep 0.2; done
`;

const CLIENT = `apiVersion: agents.x-k8s.io/v1beta1
kind: Sandbox
metadata: { name: client, namespace: default }
spec:
  podTemplate:
    metadata: { labels: { role: client } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: main
          image: ${IMAGE}
          command: [sleep, '3600']
`;

const VOL = `apiVersion: agents.x-k8s.io/v1beta1
kind: Sandbox
metadata: { name: vol, namespace: default }
spec:
  volumeClaimTemplates:
    - metadata: { name: data }
      spec:
        accessModes: [ReadWriteOnce]
        resources: { requests: { storage: 1Gi } }
  podTemplate:
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: main
          image: ${IMAGE}
          command: [sleep, '3600']
          volumeMounts: [{ name: data, mountPath: /data }]
`;

interface Result {
  stdout: string;
  stderr: string;
  code: number | null;
}

let dir: string;
let up: UpProcess | undefined;
const upOut = (): string => up?.output() ?? '';

function kubectl(args: string[], input?: string): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn('kubectl', args, {
      env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.end(input ?? '');
    child.once('exit', (code) => resolve({ stdout, stderr, code }));
  });
}

/** A long-running kubectl (logs -f, port-forward) and the output it printed so far. */
function kubectlBackground(args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn('kubectl', args, {
    env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') },
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  return { child, output: () => out };
}

beforeAll(async () => {
  dir = join(mkdtempSync(join(tmpdir(), 'asb-up-')), 'data');
  // Into the image store of the node agent, as a user does it.
  const image = await buildTestImage(join(dir, '..', 'build'));
  const load = cli(['image', 'load', image.layoutDir, '--name', IMAGE]);
  expect(load.stdout).toMatch(new RegExp(`^loaded ${IMAGE} \\(sha256:[0-9a-f]{64}, .+\\)\n$`));
  expect(
    cli(['image', 'load', image.dockerArchive, '--name', 'localhost/test/archive:v2']).status,
  ).toBe(0);
  await startUp();
});

/** A short CLI command on the data dir. */
function cli(args: string[]): { stdout: string; stderr: string; status: number | null } {
  const r = spawnSync(process.execPath, [CLI, ...args, '--data-dir', dir], { encoding: 'utf8' });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

/** Spawns `up` on the data dir and waits until it serves. */
async function startUp(): Promise<void> {
  up = await spawnUp({ dataDir: dir, network: NETWORK });
}

/** SIGINT, exit 0, and nothing of the node left: processes, mounts, netns, cgroups, bridge, nft. */
async function stopUpCleanly(): Promise<void> {
  if (!up) throw new Error('up is not running');
  expect(await stopUp(up)).toBe(0);
  expect(upOut()).toMatch(/stopped\n/);
  expect(upLeaks(dir, NETWORK)).toEqual([]);
}

async function waitReady(pod: string): Promise<void> {
  await expect
    .poll(async () => (await kubectl(['get', 'pod', pod, '-o', 'name'])).stdout, {
      timeout: 30_000,
    })
    .toMatch(new RegExp(`pod/${pod}`));
  const ready = await kubectl(['wait', '--for=condition=Ready', `pod/${pod}`, '--timeout=60s']);
  expect(ready.stderr).toBe('');
}

afterAll(async () => {
  if (up) await stopUp(up, 0);
  rmSync(join(dir, '..'), { recursive: true, force: true });
});

describe('agent-sandbox up', () => {
  beforeEach(() => {
    onTestFailed(() => console.log(`agent-sandbox up printed:\n${upOut()}`));
  });

  it('writes endpoints.json and prints what runs where', () => {
    const endpoints = JSON.parse(readFileSync(join(dir, 'endpoints.json'), 'utf8')) as {
      apiServer: string;
      kubeconfig: string;
    };
    expect(endpoints.apiServer).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(endpoints.kubeconfig).toBe(join(dir, 'kubeconfig'));
    expect(upOut()).toContain(
      `pod network: bridge (${BRIDGE} ${CIDR}), NetworkPolicy enforced, cluster DNS on ${SUBNET}.1:53`,
    );
    expect(upOut()).toMatch(/runtimes: runc/);
    expect(upOut()).toMatch(
      /node streaming \(exec, attach, port-forward, logs\): https:\/\/127\.0\.0\.1:\d+/,
    );
  });

  it('keeps its structured log in DIR/up.log and prints only warnings and errors of it', async () => {
    expect(upOut()).toContain(`logs: ${join(dir, 'up.log')}`);
    const logged = (): Array<{ level: number; logger: string; msg: string }> =>
      readFileSync(join(dir, 'up.log'), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { level: number; logger: string; msg: string });
    await expect
      .poll(
        () => logged().some((l) => l.logger === 'controller-manager' && l.msg === 'caches synced'),
        {
          timeout: 30_000,
        },
      )
      .toBe(true);
    expect(statSync(join(dir, 'up.log')).mode & 0o777).toBe(0o600);
    // Each line names its part once (a child's `logger` beside the base's was written twice).
    const lines = readFileSync(join(dir, 'up.log'), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    expect(lines.filter((l) => l.match(/"logger":/g)?.length !== 1)).toEqual([]);
    // pino's info level is 30: none of those lines reach the terminal.
    expect(upOut()).not.toMatch(/"level":30/);
  });

  it('runs a Sandbox with a bridge IP; kubectl exec, exec -it, logs -f and port-forward work', async () => {
    expect((await kubectl(['apply', '-f', '-'], SANDBOX)).code).toBe(0);
    await waitReady('box');
    // The node keeps its daemon's stderr, each Start's timeline too (the warm-up's first), for a
    // failing test to print (UpProcess.daemonLog).
    await expect
      .poll(() => up?.daemonLog() ?? '', { timeout: 15_000 })
      .toMatch(/default\/box\/main:\n[\s\S]*"msg":"Start init sent","level":"debug","call":1,/);
    const ip = (await kubectl(['get', 'pod', 'box', '-o', 'jsonpath={.status.podIP}'])).stdout;
    expect(ip.startsWith(`${SUBNET}.`)).toBe(true);

    // NetworkPolicy events reach the node's nft table: a policy selecting the Pod names its IP.
    const policy = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: { name: only-box, namespace: default }
spec:
  podSelector: {}
  policyTypes: [Ingress]
  ingress: [{ from: [{ podSelector: { matchLabels: { role: client } } }] }]
`;
    expect((await kubectl(['apply', '-f', '-'], policy)).code).toBe(0);
    await expect
      .poll(
        () =>
          spawnSync('nft', ['list', 'table', 'inet', `${BRIDGE}_policy_${BRIDGE}`], {
            encoding: 'utf8',
          }).stdout,
        { timeout: 30_000 },
      )
      .toContain(ip);

    const exec = await kubectl(['exec', 'box', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
    expect(exec).toMatchObject({ stdout: 'out\n', code: 3 });
    expect(exec.stderr).toContain('err\n');

    // -it needs a terminal on kubectl's side too: a real pty.
    const pty = spawnPty('kubectl', ['exec', '-it', 'box', '--', 'sh'], {
      env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') } as Record<string, string>,
      cols: 80,
      rows: 24,
    });
    let screen = '';
    pty.onData((d) => (screen += d));
    const ptyExit = new Promise<number>((resolve) =>
      pty.onExit(({ exitCode }) => resolve(exitCode)),
    );
    // busybox ash prints its prompt, then asks the terminal for the cursor position (ESC[6n).
    await expect.poll(() => screen, { timeout: 15_000 }).toMatch(/\/ # /);
    pty.write('echo $((6*7)); stty size\r');
    await expect.poll(() => screen, { timeout: 15_000 }).toMatch(/42\r?\n[\s\S]*24 80/);
    pty.write('exit 0\r');
    expect(await ptyExit).toBe(0);

    const logs = kubectlBackground(['logs', '-f', 'box']);
    await expect.poll(logs.output, { timeout: 15_000 }).toMatch(/tick \d+\n[\s\S]*tick \d+\n/);
    const seen = (logs.output().match(/tick/g) ?? []).length;
    // Still following: more lines arrive after the first read.
    await expect
      .poll(() => (logs.output().match(/tick/g) ?? []).length, { timeout: 15_000 })
      .toBeGreaterThan(seen + 2);
    logs.child.kill('SIGINT');

    const pf = kubectlBackground(['port-forward', 'pod/box', ':8080']);
    await expect.poll(pf.output, { timeout: 15_000 }).toMatch(/Forwarding from 127\.0\.0\.1:\d+/);
    const port = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(pf.output())?.[1];
    const res = await fetch(`http://127.0.0.1:${port}/index.html`);
    expect(await res.text()).toBe('pong\n');
    pf.child.kill('SIGINT');
  });

  it('resolves Service and Pod names inside a sandbox through cluster DNS', async () => {
    expect((await kubectl(['apply', '-f', '-'], CLIENT)).code).toBe(0);
    await waitReady('client');
    const inClient = (script: string) => kubectl(['exec', 'client', '--', 'sh', '-c', script]);
    const resolv = await inClient('cat /etc/resolv.conf');
    expect(resolv.stdout).toBe(
      `search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver ${SUBNET}.1\noptions ndots:5\n`,
    );
    const boxIp = (await kubectl(['get', 'pod', 'box', '-o', 'jsonpath={.status.podIP}'])).stdout;
    const lookup = await inClient('nslookup box.default.svc.cluster.local');
    expect(lookup.stdout).toContain(`Address: ${boxIp}`);
    // The search path finds the Sandbox's Service by its short name, and the policy lets
    // role=client in. (busybox-static's wget crashes in glibc's static NSS; nc needs none.)
    const page = await inClient(
      "ip=$(nslookup box | sed -n 's/^Address: //p' | tail -1); echo ip=$ip; printf 'GET /index.html HTTP/1.0\\r\\n\\r\\n' | nc -w 5 $ip 8080",
    );
    expect(page.stdout).toMatch(
      new RegExp(`^ip=${boxIp.replaceAll('.', '\\.')}\\n[\\s\\S]*\\r\\n\\r\\npong\\n$`),
    );
    const dashed = await inClient(
      `nslookup ${boxIp.replaceAll('.', '-')}.default.pod.cluster.local`,
    );
    expect(dashed.stdout).toContain(`Address: ${boxIp}`);
    const missing = await inClient('nslookup nothing.default.svc.cluster.local');
    expect(missing.code).not.toBe(0);
    expect(missing.stdout + missing.stderr).toMatch(/NXDOMAIN|can't find/);
  });

  it('lists images and refuses to remove one a running container uses', () => {
    const ls = cli(['image', 'ls']);
    expect(ls.status).toBe(0);
    expect(ls.stdout.split('\n')[0]).toMatch(/^NAME\s+DIGEST\s+SIZE\s+STORED$/);
    expect(ls.stdout).toMatch(/\nlocalhost\/test\/archive:v2\s+[0-9a-f]{12}\s+\S+ [kM]?B\s+\S+\n/);
    expect(ls.stdout).toMatch(/\nlocalhost\/test\/busybox:v1\s+[0-9a-f]{12}\s/);
    // The archive is the same image under another name: dropping that name cannot hurt anyone.
    const rm = cli(['image', 'rm', 'localhost/test/archive:v2']);
    expect(rm).toMatchObject({ status: 0, stdout: 'removed localhost/test/archive:v2\n' });
    const inUse = cli(['image', 'rm', IMAGE]);
    expect(inUse.status).toBe(1);
    expect(inUse.stderr).toMatch(
      new RegExp(
        `^error: image ${IMAGE} is in use by \\d+ running containers?; delete the Pods or Sandboxes that use it first\n$`,
      ),
    );
    expect(cli(['image', 'ls']).stdout).not.toContain('archive');
  });

  it('keeps PVC data across suspend and resume', async () => {
    expect((await kubectl(['apply', '-f', '-'], VOL)).code).toBe(0);
    await waitReady('vol');
    const pvc = await kubectl([
      'get',
      'pvc',
      'data-vol',
      '-o',
      'jsonpath={.status.phase} {.spec.volumeName} {.metadata.uid}',
    ]);
    const [phase, volumeName, claimUid] = pvc.stdout.split(' ');
    expect(phase).toBe('Bound');
    expect(volumeName).toBe(`pvc-${claimUid}`);
    const pv = await kubectl([
      'get',
      'pv',
      volumeName ?? '',
      '-o',
      'jsonpath={.status.phase} {.spec.claimRef.name} {.spec.local.path}',
    ]);
    expect(pv.stdout).toBe(`Bound data-vol ${join(dir, 'node', 'claims', claimUid ?? '')}`);
    expect((await kubectl(['exec', 'vol', '--', 'sh', '-c', 'echo kept > /data/file'])).code).toBe(
      0,
    );

    const mode = (m: 'Suspended' | 'Running') =>
      kubectl([
        'patch',
        'sandbox',
        'vol',
        '--type',
        'merge',
        '-p',
        `{"spec":{"operatingMode":"${m}"}}`,
      ]);
    expect((await mode('Suspended')).code).toBe(0);
    await expect
      .poll(async () => (await kubectl(['get', 'pods', '-o', 'name'])).stdout, { timeout: 30_000 })
      .not.toMatch(/pod\/vol\b/);
    expect((await mode('Running')).code).toBe(0);
    await waitReady('vol');
    expect((await kubectl(['exec', 'vol', '--', 'cat', '/data/file'])).stdout).toBe('kept\n');
  });

  it('stops on SIGINT and leaves nothing of the node behind', async () => {
    await stopUpCleanly();
  });

  it('starts again on the same data dir with the PVC data; deleting the claim reclaims it', async () => {
    await startUp();
    await expect
      .poll(async () => (await kubectl(['exec', 'vol', '--', 'cat', '/data/file'])).stdout, {
        timeout: 60_000,
      })
      .toBe('kept\n');
    const claimUid = (await kubectl(['get', 'pvc', 'data-vol', '-o', 'jsonpath={.metadata.uid}']))
      .stdout;
    const claimDir = join(dir, 'node', 'claims', claimUid);
    expect(readFileSync(join(claimDir, 'file'), 'utf8')).toBe('kept\n');
    expect((await kubectl(['delete', 'sandbox', 'vol', '--wait=true'])).code).toBe(0);
    expect((await kubectl(['delete', 'pvc', 'data-vol', '--ignore-not-found'])).code).toBe(0);
    await expect.poll(() => existsSync(claimDir), { timeout: 30_000 }).toBe(false);
    await expect
      .poll(async () => (await kubectl(['get', 'pv', '-o', 'name'])).stdout, { timeout: 30_000 })
      .toBe('');
    await stopUpCleanly();
  });
});

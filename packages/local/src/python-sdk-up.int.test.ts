// Upstream's Python SDK (k8s-agent-sandbox 1.0.8 from PyPI, unchanged) against a real
// `agent-sandbox up` (the CLI in its own process on a temp data dir): a warm pool of busybox
// Sandboxes that know nothing of the daemon (the node agent injects sandboxd), and the SDK's
// create → commands.run → files write/read/list/exists → terminate in each connection mode it
// offers for the legacy runtime: Direct (the router's URL from endpoints.json), its default
// LocalTunnel (`kubectl port-forward svc/sandbox-router-svc -n agent-sandbox-system`, ADR 0028)
// and InCluster (the Pod IP on the bridge, no router). Through the router, a command after the
// Sandbox was suspended wakes it (wake-on-request) and is served.
import { ImageStore, loadOciLayout } from '@agent-sandbox/kubelet';
import { buildTestImage } from '@agent-sandbox/kubelet/testing';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upLeaks, upNetwork } from './testing/index.ts';

const VENV = join(
  process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'),
  'agent-sandbox/pysdk-1.0.8',
);
const PYTHON = join(VENV, 'bin/python');
const ready = existsSync(PYTHON);
if (!ready && process.env['CI'])
  throw new Error(`CI needs ${VENV} with k8s-agent-sandbox==1.0.8 (.ci/run installs it)`);

const CLI = join(import.meta.dirname, '../../cli/bin/agent-sandbox.js');
const SCRIPT = join(import.meta.dirname, 'testdata/python_sdk_modes.py');
const IMAGE = 'localhost/test/busybox:v1';
// This run's own bridge and pod CIDR (the netns, cgroup parent and nft tables follow the bridge).
const NETWORK = upNetwork('asbpy', 214);
const { bridge: BRIDGE, cidr: CIDR } = NETWORK;
const POOL = `apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxTemplate
metadata: { name: busybox, namespace: default }
spec:
  podTemplate:
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - { name: main, image: ${IMAGE}, command: [sleep, '3600'] }
---
apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxWarmPool
metadata: { name: busybox-pool, namespace: default }
spec: { replicas: 1, sandboxTemplateRef: { name: busybox } }
`;

let dir: string;
let up: ChildProcess;
let upOut = '';
let upExit: Promise<number | null>;
let endpoints: { router: string; kubeconfig: string };

function run(file: string, args: string[], env: Record<string, string>, input = '') {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      file,
      args,
      {
        // HOME: kubectl keeps its discovery cache under it (else in the working directory).
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: join(dir, '..'), ...env },
        timeout: 240_000,
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}

beforeAll(async () => {
  if (!ready) return;
  dir = join(mkdtempSync(join(tmpdir(), 'asb-pysdk-')), 'data');
  const image = await buildTestImage(join(dir, '..', 'build'));
  await loadOciLayout(new ImageStore(join(dir, 'node', 'images')), image.layoutDir, IMAGE);
  up = spawn(
    process.execPath,
    [CLI, 'up', '--data-dir', dir, '--port', '0', '--pod-cidr', CIDR, '--bridge', BRIDGE],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  up.stdout?.on('data', (d: Buffer) => (upOut += d.toString()));
  up.stderr?.on('data', (d: Buffer) => (upOut += d.toString()));
  upExit = new Promise((resolve) => up.once('exit', resolve));
  const end = Date.now() + 90_000;
  while (!(existsSync(join(dir, 'endpoints.json')) && /router: http/.test(upOut))) {
    if (Date.now() > end || up.exitCode !== null) throw new Error(`up did not come up:\n${upOut}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  endpoints = JSON.parse(readFileSync(join(dir, 'endpoints.json'), 'utf8')) as typeof endpoints;
  const applied = await run(
    'kubectl',
    ['apply', '-f', '-'],
    { KUBECONFIG: endpoints.kubeconfig },
    POOL,
  );
  if (applied.code !== 0) throw new Error(`kubectl apply: ${applied.stderr}`);
}, 120_000);

afterAll(async () => {
  if (!ready) return;
  if (up.exitCode === null) {
    up.kill('SIGINT');
    const stopped = await Promise.race([
      upExit,
      new Promise((r) => setTimeout(() => r('timeout'), 20_000)),
    ]);
    if (stopped === 'timeout') up.kill('SIGKILL');
    await upExit;
  }
  const leaks = upLeaks(dir, NETWORK);
  rmSync(join(dir, '..'), { recursive: true, force: true });
  expect(leaks).toEqual([]);
}, 60_000);

describe.skipIf(!ready)('k8s-agent-sandbox 1.0.8 (PyPI) against agent-sandbox up', () => {
  it('publishes the router in endpoints.json', () => {
    expect(endpoints.router).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  for (const mode of ['direct', 'tunnel', 'in-cluster'])
    it(`create, commands.run, files, terminate in ${mode} mode`, async () => {
      const r = await run(PYTHON, [SCRIPT], {
        KUBECONFIG: endpoints.kubeconfig,
        ROUTER_URL: endpoints.router,
        WARMPOOL: 'busybox-pool',
        MODE: mode,
        // Through the router, a command after suspending wakes the Sandbox.
        SUSPEND: mode === 'in-cluster' ? '0' : '1',
      });
      if (r.code !== 0)
        throw new Error(`python exited ${r.code}:\n${r.stderr}\n--- up:\n${upOut.slice(-4000)}`);
      const out = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
      expect(out).toMatchObject({
        stdout: `hello-from-${mode}\n`,
        stderr: 'oops\n',
        exit_code: 3,
        read: 'sdk-bytes',
        list: [['file.txt', 'file', 9]],
        exists: true,
        missing: false,
        // The daemon's root is the busybox container's own /workspace.
        seen: 'sdk-bytes',
        woke: mode === 'in-cluster' ? null : 'woke-up\n',
      });
      // terminate() deleted the claim.
      const claim = await run(
        'kubectl',
        ['get', 'sandboxclaim', String(out['claim']), '-o', 'name', '--ignore-not-found'],
        { KUBECONFIG: endpoints.kubeconfig },
      );
      expect(claim.stdout).toBe('');
    }, 240_000);
});

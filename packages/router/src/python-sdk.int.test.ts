// Upstream's Python SDK (k8s-agent-sandbox 1.0.8 from PyPI, unchanged) through our router to a
// real sandboxd on loopback, with the claim and Sandbox in the embedded API server (the full
// `agent-sandbox up` path needs the node agent). The SDK sends X-Sandbox-Pod-IP from the
// Sandbox's status, so the router runs with --allow-loopback-pod-ip.
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeClient, kubeConfigFromFile, type ResourceRef } from '@agent-sandbox/kube';
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded API server (our envtest)
import {
  readOurCrds,
  startTestApiServer,
  type TestApiServer,
} from '@agent-sandbox/apiserver/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type RunningRouter } from './router.ts';
import { startSandboxdProcess } from './testing/sandboxd-process.ts';

const VENV = join(
  process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
  'agent-sandbox/pysdk-1.0.8',
);
const PYTHON = join(VENV, 'bin/python');
const ready = existsSync(PYTHON);
if (!ready && process.env.CI)
  throw new Error(`CI needs ${VENV} with k8s-agent-sandbox==1.0.8 (.ci/run installs it)`);

const SCRIPT = fileURLToPath(new URL('./testdata/python_sdk_journey.py', import.meta.url));
const SANDBOXES: ResourceRef = {
  group: 'agents.x-k8s.io',
  version: 'v1beta1',
  plural: 'sandboxes',
  namespaced: true,
  kind: 'Sandbox',
};
const CLAIMS: ResourceRef = {
  group: 'extensions.agents.x-k8s.io',
  version: 'v1beta1',
  plural: 'sandboxclaims',
  namespaced: true,
  kind: 'SandboxClaim',
};

let api: TestApiServer;
let client: KubeClient;
let daemon: ChildProcess;
let legacyPort: number;
let base: string;
let router: RunningRouter;

beforeAll(async () => {
  if (!ready) return;
  api = await startTestApiServer({ crds: readOurCrds() });
  client = new KubeClient({ config: kubeConfigFromFile(api.kubeconfigPath) });
  base = await mkdtemp(join(tmpdir(), 'pysdk-'));
  let legacyUrl: string;
  ({ child: daemon, legacyUrl } = await startSandboxdProcess(join(base, 'root')));
  legacyPort = Number(new URL(legacyUrl).port);
  router = await startRouter({ proxy: { host: '127.0.0.1', port: 0 }, allowLoopbackPodIp: true });
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const readyCond = {
    type: 'Ready',
    status: 'True',
    reason: 'Ready',
    message: '',
    lastTransitionTime: now,
    observedGeneration: 1,
  };
  const sb = await client.create(SANDBOXES, {
    apiVersion: 'agents.x-k8s.io/v1beta1',
    kind: 'Sandbox',
    metadata: { name: 'sdk-sandbox', namespace: 'default' },
    spec: { podTemplate: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
  } as never);
  await client.updateStatus(SANDBOXES, {
    ...(sb as object),
    status: {
      podIPs: ['127.0.0.1'],
      conditions: [readyCond],
      selector: 'agents.x-k8s.io/sandbox-name-hash=abc',
      replicas: 1,
    },
  } as never);
  const claim = await client.create(CLAIMS, {
    apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
    kind: 'SandboxClaim',
    metadata: { name: 'sdk-claim', namespace: 'default' },
    spec: { warmPoolRef: { name: 'pool' } },
  } as never);
  await client.updateStatus(CLAIMS, {
    ...(claim as object),
    status: { sandbox: { name: 'sdk-sandbox', podIPs: ['127.0.0.1'] }, conditions: [readyCond] },
  } as never);
}, 120_000);

afterAll(async () => {
  daemon?.kill('SIGTERM');
  await router?.close();
  await client?.close();
  await api?.close();
  if (base) await rm(base, { recursive: true, force: true });
});

describe.skipIf(!ready)('k8s-agent-sandbox 1.0.8 (PyPI) → router → sandboxd', () => {
  it('attaches, runs a command, writes, reads, lists and checks files, terminates', async () => {
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        PYTHON,
        [SCRIPT],
        {
          env: {
            KUBECONFIG: api.kubeconfigPath,
            ROUTER_URL: router.proxyUrl,
            SANDBOX_PORT: String(legacyPort),
            CLAIM: 'sdk-claim',
            PATH: process.env.PATH ?? '',
          },
          timeout: 90_000,
        },
        (err, stdout, stderr) =>
          err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({
      stdout: 'hello-from-sdk\n',
      stderr: 'oops\n',
      exit_code: 3,
      read: 'sdk-bytes',
      list: [['file.txt', 'file', 9]],
      exists: true,
      missing: false,
      pod_ip: '127.0.0.1',
    });
    // terminate() deleted the claim
    await expect(client.get(CLAIMS, 'default', 'sdk-claim')).rejects.toMatchObject({
      statusCode: 404,
    });
  });
});

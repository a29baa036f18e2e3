// The conversion webhook on the real kube-apiserver (spec §17): `agent-sandbox controller` as a
// child process with --webhook-port=0 and --webhook-url-host=127.0.0.1 patches our CRDs to its
// URL, and kube-apiserver then calls it to store a v1alpha1 Sandbox as v1beta1 and serve it back.
// The cluster is shared: the manager stays a follower (another holder owns its Lease, so it
// reconciles nothing — the webhook runs on every replica, leader or not), and the CRDs'
// conversion settings are put back as found afterwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { V1ALPHA1_SANDBOX_STATE_ANNOTATION } from '@agent-sandbox/api';
import { readOurCrds } from '@agent-sandbox/apiserver/testing';
import {
  KubeClient,
  LEASES,
  NAMESPACES,
  SECRETS,
  formatMicroTime,
  isAlreadyExists,
  kubeConfigFromFile,
  CUSTOM_RESOURCE_DEFINITIONS,
  type ResourceRef,
} from '@agent-sandbox/kube';
import type { CustomResourceDefinition, KubeObject } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterKubeconfig } from '@agent-sandbox/kube/testing';
import { LEADER_ELECTION_ID } from './controller.ts';
import { WEBHOOK_CERTS_SECRET } from './controller-webhook-certs.ts';
import { WEBHOOK_CRD_NAMES } from './controller-webhook.ts';

const BIN = fileURLToPath(new URL('../../bin/agent-sandbox.js', import.meta.url));
const sandboxes = (version: string): ResourceRef => ({
  group: 'agents.x-k8s.io',
  version,
  plural: 'sandboxes',
  kind: 'Sandbox',
  namespaced: true,
});

type Crd = KubeObject & {
  spec: {
    versions: { name: string; served: boolean }[];
    conversion?: { strategy?: string; webhook?: { clientConfig?: Record<string, unknown> } };
  };
};
type SandboxObject = KubeObject & { spec: Record<string, unknown> };

let client: KubeClient;
let kubeconfig: string;
const ns = `webhook-${randomBytes(4).toString('hex')}`;
const certDir = mkdtempSync(join(tmpdir(), 'webhook-cluster-'));
/** Each CRD's clientConfig as found, to put back. */
const found = new Map<string, Record<string, unknown>>();
let manager:
  { child: ChildProcess; logs: () => string; exited: Promise<number | null> } | undefined;

beforeAll(async () => {
  kubeconfig = clusterKubeconfig();
  client = new KubeClient({ config: kubeConfigFromFile(kubeconfig) });
  for (const crd of readOurCrds())
    await client
      .create(CUSTOM_RESOURCE_DEFINITIONS, crd as CustomResourceDefinition & KubeObject)
      .catch((err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
      });
  for (const name of WEBHOOK_CRD_NAMES) {
    const crd = await client.get<Crd>(CUSTOM_RESOURCE_DEFINITIONS, undefined, name);
    const clientConfig = crd.spec.conversion?.webhook?.clientConfig;
    if (clientConfig) found.set(name, clientConfig);
  }
  const sandboxCrd = await client.get<Crd>(
    CUSTOM_RESOURCE_DEFINITIONS,
    undefined,
    WEBHOOK_CRD_NAMES[0] as string,
  );
  if (!sandboxCrd.spec.versions.find((v) => v.name === 'v1alpha1')?.served)
    throw new Error(
      'the shared cluster serves no v1alpha1 Sandbox (a benchmark left its CRDs in place); reinstall the CRDs from `agent-sandbox manifests crds`',
    );
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  // Another replica holds the manager's Lease for an hour, so ours never reconciles.
  const now = formatMicroTime(new Date());
  await client.create(LEASES, {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: LEADER_ELECTION_ID, namespace: ns },
    spec: {
      holderIdentity: 'another-replica',
      leaseDurationSeconds: 3600,
      acquireTime: now,
      renewTime: now,
    },
  } as KubeObject);
});

afterAll(async () => {
  if (manager) {
    manager.child.kill('SIGTERM');
    await manager.exited;
  }
  for (const [name, clientConfig] of found)
    await client
      .patch(CUSTOM_RESOURCE_DEFINITIONS, undefined, name, {
        type: 'merge',
        body: {
          spec: {
            conversion: {
              webhook: {
                clientConfig: { url: null, service: null, caBundle: null, ...clientConfig },
              },
            },
          },
        },
      })
      .catch(() => undefined);
  await client?.delete(NAMESPACES, undefined, ns).catch(() => undefined);
  await client?.close();
  rmSync(certDir, { recursive: true, force: true });
});

function startManager(): NonNullable<typeof manager> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'controller',
      `--kubeconfig=${kubeconfig}`,
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
      `--leader-election-namespace=${ns}`,
      '--webhook-port=0',
      '--webhook-url-host=127.0.0.1',
      `--webhook-namespace=${ns}`,
      `--webhook-cert-dir=${certDir}`,
    ],
    { env: { ...process.env, KUBECONFIG: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, logs: () => out, exited };
}

/** The first JSON log line whose msg is `msg`. */
async function logLine(msg: string, timeoutMs = 60_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const line of manager?.logs().split('\n') ?? []) {
      if (!line.startsWith('{')) continue;
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry['msg'] === msg) return entry;
    }
    if (manager?.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`no "${msg}" log from the manager; its output:\n${manager?.logs()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('conversion webhook (real kube-apiserver)', () => {
  let port: number;

  it('patches every CRD to https://127.0.0.1:<port>/convert with the CA of its Secret', async () => {
    manager = startManager();
    port = (await logLine('conversion webhook serving'))['port'] as number;
    expect(port).toBeGreaterThan(0);
    const configured = await logLine('CRD conversion webhook configured');
    expect(configured['crds']).toEqual(WEBHOOK_CRD_NAMES);
    const secret = await client.get<KubeObject & { data: Record<string, string> }>(
      SECRETS,
      ns,
      WEBHOOK_CERTS_SECRET,
    );
    for (const name of WEBHOOK_CRD_NAMES) {
      const crd = await client.get<Crd>(CUSTOM_RESOURCE_DEFINITIONS, undefined, name);
      expect(crd.spec.conversion?.webhook?.clientConfig).toEqual({
        url: `https://127.0.0.1:${port}/convert`,
        caBundle: secret.data['ca.crt'],
      });
    }
  });

  it('kube-apiserver stores a v1alpha1 Sandbox as v1beta1 and serves it back through the webhook', async () => {
    const podTemplate = { spec: { containers: [{ name: 'agent', image: 'python:3.12-slim' }] } };
    // kube-apiserver may take a moment to pick up the patched CRD's clientConfig.
    let created: SandboxObject | undefined;
    const deadline = Date.now() + 30_000;
    while (!created) {
      try {
        created = await client.create<SandboxObject>(sandboxes('v1alpha1'), {
          apiVersion: 'agents.x-k8s.io/v1alpha1',
          kind: 'Sandbox',
          metadata: { name: 'legacy', namespace: ns },
          spec: { podTemplate, replicas: 0 },
        } as SandboxObject);
      } catch (err: unknown) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    expect(created.apiVersion).toBe('agents.x-k8s.io/v1alpha1');
    expect(created.spec['replicas']).toBe(0);

    const hub = await client.get<SandboxObject>(sandboxes('v1beta1'), ns, 'legacy');
    expect(hub.apiVersion).toBe('agents.x-k8s.io/v1beta1');
    expect(hub.spec['operatingMode']).toBe('Suspended');
    expect(hub.spec).not.toHaveProperty('replicas');
    expect(hub.metadata.annotations).toHaveProperty([V1ALPHA1_SANDBOX_STATE_ANNOTATION]);

    // Resumed through v1beta1: a v1alpha1 reader sees replicas 1 (spec §3.4).
    await client.patch(sandboxes('v1beta1'), ns, 'legacy', {
      type: 'merge',
      body: { spec: { operatingMode: 'Running' } },
    });
    const back = await client.get<SandboxObject>(sandboxes('v1alpha1'), ns, 'legacy');
    expect(back.apiVersion).toBe('agents.x-k8s.io/v1alpha1');
    expect(back.spec['replicas']).toBe(1);
    expect(back.spec).not.toHaveProperty('operatingMode');
    expect(back.metadata.annotations ?? {}).not.toHaveProperty([V1ALPHA1_SANDBOX_STATE_ANNOTATION]);

    const list = await client.list<SandboxObject>(sandboxes('v1alpha1'), ns);
    expect(list.items.map((s) => [s.apiVersion, s.metadata.name, s.spec['replicas']])).toEqual([
      ['agents.x-k8s.io/v1alpha1', 'legacy', 1],
    ]);
  });

  it('kube-apiserver reports the webhook Failure message for an object that cannot convert', async () => {
    await client.create(sandboxes('v1beta1'), {
      apiVersion: 'agents.x-k8s.io/v1beta1',
      kind: 'Sandbox',
      metadata: {
        name: 'corrupt',
        namespace: ns,
        annotations: { [V1ALPHA1_SANDBOX_STATE_ANNOTATION]: '{oops' },
      },
      spec: { podTemplate: { spec: { containers: [{ name: 'a', image: 'busybox' }] } } },
    } as SandboxObject);
    try {
      const err = await client.get(sandboxes('v1alpha1'), ns, 'corrupt').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toContain(
        `Sandbox ${ns}/corrupt: metadata.annotations["${V1ALPHA1_SANDBOX_STATE_ANNOTATION}"]`,
      );
    } finally {
      await client.delete(sandboxes('v1beta1'), ns, 'corrupt');
    }
  });

  it('exits 0 on SIGTERM, still a follower (the webhook served without the Lease)', async () => {
    const running = manager as NonNullable<typeof manager>;
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    manager = undefined;
    const lease = await client.get<KubeObject & { spec: { holderIdentity?: string } }>(
      LEASES,
      ns,
      LEADER_ELECTION_ID,
    );
    expect(lease.spec.holderIdentity).toBe('another-replica');
  });
});

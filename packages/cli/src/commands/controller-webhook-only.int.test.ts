// `agent-sandbox controller --controllers=none` (our webhook-only mode) against the embedded API
// server: it serves /convert and points the CRDs at it, but reconciles nothing — no Pod for a
// Sandbox, no leader Lease. The same Sandbox then gets its Pod from `--controllers=sandbox`, so
// the absence is the mode's doing and not a Sandbox the controller would skip anyway.
import { request } from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  readOurCrds,
  startTestApiServer,
  type TestApiServer,
} from '@agent-sandbox/apiserver/testing';
import { SANDBOXES } from '@agent-sandbox/controllers';
import {
  KubeClient,
  LEASES,
  NAMESPACES,
  PODS,
  kubeConfigFromFile,
  CUSTOM_RESOURCE_DEFINITIONS,
} from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runController } from './controller.ts';

const webhookNamespace = 'agent-sandbox-system';
const ns = 'webhook-only';
let server: TestApiServer;
let client: KubeClient;
let certDir: string;

beforeAll(async () => {
  server = await startTestApiServer({ crds: readOurCrds() });
  client = new KubeClient({ config: kubeConfigFromFile(server.kubeconfigPath) });
  for (const name of [webhookNamespace, ns])
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  certDir = mkdtempSync(join(tmpdir(), 'webhook-only-'));
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
});

/** runController in-process until stop() aborts it; `logs` holds its JSON log lines. */
function start(args: string[]): { logs: () => string; stop: () => Promise<number> } {
  let out = '';
  const io = {
    stdout: (s: string) => void (out += s),
    stderr: (s: string) => void (out += s),
    stdin: () => '',
  };
  const abort = new AbortController();
  const code = runController(
    [
      '--kubeconfig',
      server.kubeconfigPath,
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
      ...args,
    ],
    io,
    { signal: abort.signal, env: {} },
  );
  return {
    logs: () => out,
    stop: async () => {
      abort.abort();
      return code;
    },
  };
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function logEntry(logs: string, msg: string): Record<string, unknown> | undefined {
  for (const line of logs.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (entry['msg'] === msg) return entry;
  }
  return undefined;
}

function postReview(
  port: number,
  ca: string,
  body: unknown,
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/convert', method: 'POST', ca },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const sandbox = {
  apiVersion: 'agents.x-k8s.io/v1beta1',
  kind: 'Sandbox',
  metadata: { name: 'sb', namespace: ns },
  spec: { podTemplate: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
};

describe('agent-sandbox controller --controllers=none (webhook-only)', () => {
  it('serves /convert, patches the CRDs, and creates no Pod and no Lease for a Sandbox', async () => {
    const manager = start([
      '--controllers=none',
      '--webhook-port=0',
      '--webhook-url-host=127.0.0.1',
      `--webhook-namespace=${webhookNamespace}`,
      `--webhook-cert-dir=${certDir}`,
    ]);
    let code: number | undefined;
    try {
      const serving = await until('the webhook to serve', async () =>
        logEntry(manager.logs(), 'conversion webhook serving'),
      );
      const port = serving['port'] as number;
      await until('the CRDs to be patched', async () =>
        logEntry(manager.logs(), 'CRD conversion webhook configured'),
      );
      const crd = await client.get<
        KubeObject & {
          spec: { conversion: { webhook: { clientConfig: { url: string; caBundle: string } } } };
        }
      >(CUSTOM_RESOURCE_DEFINITIONS, undefined, 'sandboxes.agents.x-k8s.io');
      const { url, caBundle } = crd.spec.conversion.webhook.clientConfig;
      expect(url).toBe(`https://127.0.0.1:${port}/convert`);
      const ca = Buffer.from(caBundle, 'base64').toString('utf8');
      const answer = await postReview(port, ca, {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: {
          uid: 'only-1',
          desiredAPIVersion: 'agents.x-k8s.io/v1alpha1',
          objects: [{ ...sandbox, spec: { ...sandbox.spec, replicas: 1 } }],
        },
      });
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({
        response: {
          uid: 'only-1',
          result: { status: 'Success' },
          convertedObjects: [{ apiVersion: 'agents.x-k8s.io/v1alpha1', kind: 'Sandbox' }],
        },
      });

      await client.create(SANDBOXES, sandbox as KubeObject);
      // Long enough for a running Sandbox controller to have created the Pod (it does so within
      // a few hundred milliseconds here; the second half of this test shows it).
      await new Promise((r) => setTimeout(r, 1500));
      expect((await client.list(PODS, ns)).items).toEqual([]);
      expect((await client.list(LEASES)).items.map((l) => l.metadata?.name)).toEqual([]);
      expect(logEntry(manager.logs(), 'caches synced')).toMatchObject({ informers: 0 });
      expect(logEntry(manager.logs(), 'controller registered')).toBeUndefined();
    } finally {
      code = await manager.stop();
    }
    expect(code, manager.logs()).toBe(0);

    const reconciling = start([
      '--controllers=sandbox',
      '--leader-elect=false',
      '--enable-webhook=false',
    ]);
    try {
      const pod = await until('the Sandbox Pod from --controllers=sandbox', async () => {
        const pods = (await client.list(PODS, ns)).items;
        return pods.length ? pods : undefined;
      });
      expect(pod.map((p) => p.metadata?.name)).toEqual(['sb']);
    } finally {
      expect(await reconciling.stop(), reconciling.logs()).toBe(0);
    }
  });
});

// The conversion webhook against the embedded API server (spec §17): the certificate Secret is
// created once and reused, the serving files are 0600, our CRDs are patched to the URL, and the
// HTTPS server answers real ConversionReviews. The embedded server itself converts in-process
// (its Converter is a function, not a URL), so kube-apiserver calling the webhook is
// controller-webhook.cluster.test.ts.
import { once } from 'node:events';
import { request } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  readOurCrds,
  startTestApiServer,
  type TestApiServer,
} from '@agent-sandbox/apiserver/testing';
import {
  KubeClient,
  NAMESPACES,
  SECRETS,
  kubeConfigFromFile,
  CUSTOM_RESOURCE_DEFINITIONS,
} from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_CERTS_SECRET, WebhookError } from './controller-webhook-certs.ts';
import { WEBHOOK_CRD_NAMES, startWebhook, type WebhookHandle } from './controller-webhook.ts';
import { runController } from './controller.ts';

const logger = pino({ level: 'silent' });
let server: TestApiServer;
let client: KubeClient;
let certDir: string;
const namespace = 'webhook-system';

beforeAll(async () => {
  server = await startTestApiServer({ crds: readOurCrds() });
  client = new KubeClient({ config: kubeConfigFromFile(server.kubeconfigPath) });
  await client.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
  certDir = mkdtempSync(join(tmpdir(), 'webhook-int-'));
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  rmSync(certDir, { recursive: true, force: true });
});

function options(dir: string) {
  return {
    client,
    logger,
    port: 0,
    certDir: dir,
    certName: 'tls.crt',
    keyName: 'tls.key',
    serviceName: 'agent-sandbox-webhook-service',
    namespace,
    clusterDomain: 'cluster.local',
    manageCerts: true,
    extensions: false,
    urlHost: '127.0.0.1',
  };
}

/** POSTs to the webhook over TLS, trusting only `ca`. */
function post(
  port: number,
  path: string,
  body: string,
  ca: string,
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        ca,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as unknown }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const sandbox = {
  apiVersion: 'agents.x-k8s.io/v1alpha1',
  kind: 'Sandbox',
  metadata: { name: 'sb', namespace: 'default' },
  spec: { podTemplate: { spec: { containers: [{ name: 'c', image: 'busybox' }] } }, replicas: 0 },
};

describe('startWebhook (embedded API server)', () => {
  let first: WebhookHandle;
  let ca: string;

  it('creates the certificate Secret, writes 0600 files and patches all four CRDs to the URL', async () => {
    first = await startWebhook(options(certDir));
    expect(first.port).toBeGreaterThan(0);
    const secret = await client.get<KubeObject & { data: Record<string, string> }>(
      SECRETS,
      namespace,
      WEBHOOK_CERTS_SECRET,
    );
    expect(Object.keys(secret.data).sort()).toEqual(['ca.crt', 'tls.crt', 'tls.key']);
    ca = Buffer.from(secret.data['ca.crt'] as string, 'base64').toString();
    for (const f of ['tls.crt', 'tls.key'])
      expect(statSync(join(certDir, f)).mode & 0o777).toBe(0o600);
    for (const name of WEBHOOK_CRD_NAMES) {
      const crd = await client.get<
        KubeObject & {
          spec: { conversion: { strategy: string; webhook: Record<string, unknown> } };
        }
      >(CUSTOM_RESOURCE_DEFINITIONS, undefined, name);
      expect(crd.spec.conversion.strategy).toBe('Webhook');
      expect(crd.spec.conversion.webhook['clientConfig']).toEqual({
        url: `https://127.0.0.1:${first.port}/convert`,
        caBundle: secret.data['ca.crt'],
      });
      expect(crd.spec.conversion.webhook['conversionReviewVersions']).toEqual(
        expect.arrayContaining(['v1']),
      );
    }
  });

  it('answers a ConversionReview over TLS with the CA from the Secret', async () => {
    const review = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: { uid: 'u1', desiredAPIVersion: 'agents.x-k8s.io/v1beta1', objects: [sandbox] },
    };
    const { status, json } = await post(first.port, '/convert', JSON.stringify(review), ca);
    expect(status).toBe(200);
    const response = (
      json as {
        response: {
          uid: string;
          result: unknown;
          convertedObjects: { spec: Record<string, unknown> }[];
        };
      }
    ).response;
    expect(response.uid).toBe('u1');
    expect(response.result).toEqual({ status: 'Success' });
    expect(response.convertedObjects[0]?.spec['operatingMode']).toBe('Suspended');
  });

  it('answers 400 for a body that is not a ConversionReview and 404 for other paths', async () => {
    expect(await post(first.port, '/convert', '{', ca)).toEqual({
      status: 400,
      json: { message: 'the request body is not JSON: send a ConversionReview' },
    });
    const notReview = await post(first.port, '/convert', '{"kind":"AdmissionReview"}', ca);
    expect(notReview.status).toBe(400);
    expect((await post(first.port, '/mutate', '{}', ca)).status).toBe(404);
  });

  it('a second replica reuses the Secret and serves the same CA', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-int-2-'));
    const second = await startWebhook(options(dir));
    try {
      expect(second.clientConfig?.caBundle).toBe(first.clientConfig?.caBundle);
      const { status } = await post(
        second.port,
        '/convert',
        JSON.stringify({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'ConversionReview',
          request: { uid: 'u2', desiredAPIVersion: 'agents.x-k8s.io/v1beta1', objects: [] },
        }),
        ca,
      );
      expect(status).toBe(200);
    } finally {
      await second.close();
      rmSync(dir, { recursive: true, force: true });
    }
    await first.close();
  });

  it('fails with a message naming the port when it is taken', async () => {
    const taken = createNetServer().listen(0);
    await once(taken, 'listening');
    const port = (taken.address() as AddressInfo).port;
    try {
      const err = await startWebhook({ ...options(certDir), port }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WebhookError);
      expect((err as WebhookError).code).toBe('ListenFailed');
      expect((err as Error).message).toMatch(
        new RegExp(
          `^cannot serve the conversion webhook on port ${port} \\(EADDRINUSE\\); pass a free --webhook-port \\(0 picks one\\)$`,
        ),
      );
    } finally {
      taken.close();
    }
  });

  it('fails with a message naming the namespace when it does not exist', async () => {
    const err = await startWebhook({ ...options(certDir), namespace: 'no-such-ns' }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WebhookError);
    expect((err as Error).message).toBe(
      `cannot create Secret no-such-ns/${WEBHOOK_CERTS_SECRET}: namespace no-such-ns does not exist; create it, pass --webhook-namespace, or run without the webhook (--enable-webhook=false)`,
    );
  });
});

describe('agent-sandbox controller webhook flags (in-process, embedded API server)', () => {
  async function run(args: string[]): Promise<{ code: number; stderr: string }> {
    let stderr = '';
    const io = {
      stdout: () => undefined,
      stderr: (s: string) => void (stderr += s),
      stdin: () => '',
    };
    const stop = new AbortController();
    const code = await runController(
      [
        '--kubeconfig',
        server.kubeconfigPath,
        '--leader-elect=false',
        '--metrics-bind-address=0',
        '--health-probe-bind-address=0',
        ...args,
      ],
      io,
      { signal: stop.signal, env: {} },
    );
    return { code, stderr };
  }

  it('exits 1 naming the missing file for unmanaged certificates', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-unmanaged-'));
    try {
      const { code, stderr } = await run([
        '--manage-webhook-certs=false',
        `--webhook-cert-dir=${dir}`,
        '--webhook-port=0',
      ]);
      expect(code).toBe(1);
      expect(stderr).toContain(
        `error: ${join(dir, 'tls.crt')} does not exist: put the webhook's serving certificate there`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 1 naming the namespace when the webhook namespace is missing (the default agent-sandbox-system)', async () => {
    const { code, stderr } = await run([`--webhook-cert-dir=${certDir}`, '--webhook-port=0']);
    expect(code).toBe(1);
    expect(stderr).toContain('namespace agent-sandbox-system does not exist');
    expect(stderr).toContain('--enable-webhook=false');
  });
});

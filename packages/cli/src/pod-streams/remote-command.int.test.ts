// The CLI's exec and port-forward clients against the embedded API server, which proxies to a node streaming server
// running real host processes: the first frames and early stdin must survive the way through.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { ensureCertificates, NodeStreamProxy } from '@agent-sandbox/apiserver';
import { startTestApiServer, type TestApiServer } from '@agent-sandbox/apiserver/testing';
import type { KubeConfig } from '@agent-sandbox/kube';
import {
  podContainersBackend,
  startStreamingServer,
  type StreamingServerHandle,
} from '@agent-sandbox/kubelet';
import { HostPodContainers } from '@agent-sandbox/kubelet/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwardConnection } from './port-forward-client.ts';
import { execInPod } from './remote-command.ts';

const NODE = 'node-cli-exec';
const TOKEN = 'cli-exec-node-token';
let api: TestApiServer;
let node: StreamingServerHandle;
let backend: HostPodContainers;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cli-exec-'));
  const certs = await ensureCertificates({ dir: join(dir, 'pki') });
  backend = new HostPodContainers({ logDir: join(dir, 'logs'), netnsPath: '/proc/self/ns/net' });
  node = await startStreamingServer({
    backend: podContainersBackend(backend),
    tls: { cert: certs.cert, key: certs.key },
    token: TOKEN,
  });
  const proxy = new NodeStreamProxy({
    locate: (name) =>
      name === NODE ? { url: node.url, ca: certs.caCert, token: TOKEN } : undefined,
  });
  api = await startTestApiServer({ podStreams: proxy });
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'box' },
    spec: { nodeName: NODE, containers: [{ name: 'app', image: 'busybox' }] },
  };
  const created = await fetch(`${api.url}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    body: JSON.stringify(pod),
    headers: { 'content-type': 'application/json' },
  });
  expect(created.status).toBe(201);
  backend.register({ namespace: 'default', name: 'box' }, 'app', ['sleep', '600']);
});

afterAll(async () => {
  backend.stopAll();
  await node.close();
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

const c = (): KubeConfig => ({
  server: api.url,
  namespace: 'default',
  insecureSkipTlsVerify: true,
});

async function exec(command: string[], input?: string) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await execInPod(c(), {
    pod: { namespace: 'default', name: 'box' },
    command,
    tty: false,
    stdout,
    stderr,
    ...(input === undefined ? {} : { stdin: Readable.from([Buffer.from(input)]) }),
  });
  return { code, out };
}

describe('agent-sandbox exec and port-forward through the API server', () => {
  it('keeps the first output and stdin the client has ready at once, every time', async () => {
    for (let round = 0; round < 10; round++) {
      expect(await exec(['sh', '-c', `echo first ${round}`])).toEqual({
        code: 0,
        out: `first ${round}\n`,
      });
      expect(await exec(['cat'], `early ${round}\n`)).toEqual({ code: 0, out: `early ${round}\n` });
    }
  });

  it('port-forward: the port frames are not taken for data, every connection', async () => {
    const echo = createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
    const port = (echo.address() as AddressInfo).port;
    const front = createServer(
      (local) =>
        void forwardConnection(c(), { namespace: 'default', name: 'box' }, port, local, () => {}),
    );
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', () => r()));
    try {
      for (let round = 0; round < 5; round++) {
        const got = await new Promise<string>((resolve, reject) => {
          const sock = connect((front.address() as AddressInfo).port, '127.0.0.1');
          let text = '';
          sock.on('data', (d: Buffer) => {
            text += d.toString();
            if (text.length >= 7) sock.end();
          });
          sock.on('close', () => resolve(text));
          sock.on('error', reject);
          sock.write(`round ${round}`);
        });
        expect(got).toBe(`round ${round}`);
      }
    } finally {
      front.close();
      echo.close();
    }
  });
});

// nodes/{name}/proxy/metrics as kube-apiserver serves a kubelet's metrics: real kubectl
// (`get --raw`) through the API server's NodeStreamProxy to a node's HTTP API on a real socket,
// which sees the node's own token and never the client's. RBAC decides who may (nodes/proxy,
// verb get); only /metrics and /healthz are forwarded, never the node's exec or attach.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeconfigFor, startTestApiServer, type TestApiServer } from '../testing/test-server.ts';
import { NodeStreamProxy } from './pod-stream-proxy.ts';

const run = promisify(execFile);
const NODE_TOKEN = 'node-streaming-token';
const METRICS_USER = { token: 'metrics-token', user: { username: 'metrics', groups: [] } };
const PLAIN_USER = { token: 'plain-token', user: { username: 'plain', groups: [] } };
// kubectl sends credentials over TLS only, and asks for a password without them.
const ADMIN = { token: 'admin-token', user: { username: 'admin', groups: ['system:masters'] } };

let s: TestApiServer;
let node: Server;
/** What the node was asked: path and the Authorization it got. */
const seen: { path: string; auth: string }[] = [];

function startNode(): Promise<string> {
  node = createServer((req, res) => {
    seen.push({ path: req.url ?? '', auth: req.headers.authorization ?? '' });
    if (req.headers.authorization !== `Bearer ${NODE_TOKEN}`) return res.writeHead(401).end();
    if (req.url?.startsWith('/metrics')) {
      res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' });
      return res.end('agent_sandbox_node_execs_total{path="daemon",runtime="runc"} 3\n');
    }
    res.writeHead(req.url === '/healthz' ? 200 : 404).end(req.url === '/healthz' ? 'ok' : '');
  });
  return new Promise((resolve) =>
    node.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(node.address() as AddressInfo).port}`),
    ),
  );
}

/** Creates `body` with the admin's kubectl. */
async function create(body: unknown): Promise<void> {
  const child = execFile('kubectl', ['create', '-f', '-'], {
    env: { ...process.env, KUBECONFIG: kubeconfigOf(ADMIN) },
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin?.end(JSON.stringify(body));
  const code = await new Promise((r) => child.once('close', r));
  expect({ code, err }).toEqual({ code: 0, err: '' });
}

/** A kubeconfig of token user `who`. */
function kubeconfigOf(who: { token: string }): string {
  const path = join(s.kubeconfigPath, `../kubeconfig-${who.token}`);
  writeFileSync(path, kubeconfigFor(s.url, who.token));
  return path;
}

/** kubectl as `who` (a token user), by default the admin. */
async function kubectl(
  args: string[],
  who: { token: string } = ADMIN,
): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const r = await run('kubectl', args, {
      env: { ...process.env, KUBECONFIG: kubeconfigOf(who) },
    });
    return { ...r, code: 0 };
  } catch (err: unknown) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

beforeAll(async () => {
  const url = await startNode();
  s = await startTestApiServer({
    tls: true,
    users: [ADMIN, METRICS_USER, PLAIN_USER],
    podStreams: new NodeStreamProxy({
      locate: (name) => (name === 'node-a' ? { url, token: NODE_TOKEN } : undefined),
    }),
  });
  for (const name of ['node-a', 'node-b'])
    await create({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
  await create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'node-metrics' },
    rules: [{ apiGroups: [''], resources: ['nodes/proxy'], verbs: ['get'] }],
  });
  await create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'node-metrics' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'node-metrics' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'metrics' }],
  });
});

afterAll(async () => {
  await s?.close();
  await new Promise((r) => node?.close(r));
});

describe('nodes/{name}/proxy', () => {
  it("serves the node's /metrics to kubectl get --raw, with the node's token", async () => {
    const r = await kubectl(['get', '--raw', '/api/v1/nodes/node-a/proxy/metrics']);
    expect(r.stdout).toContain('agent_sandbox_node_execs_total{path="daemon",runtime="runc"} 3');
    const asMetrics = await kubectl(
      ['get', '--raw', '/api/v1/nodes/node-a/proxy/metrics'],
      METRICS_USER,
    );
    expect(asMetrics.stdout).toBe(r.stdout);
    expect(seen.at(-1)).toEqual({ path: '/metrics', auth: `Bearer ${NODE_TOKEN}` });
    expect(seen.every((x) => x.auth === `Bearer ${NODE_TOKEN}`)).toBe(true);
    expect((await kubectl(['get', '--raw', '/api/v1/nodes/node-a/proxy/healthz'])).stdout).toBe(
      'ok',
    );
  });

  it('is forbidden without nodes/proxy get', async () => {
    const r = await kubectl(['get', '--raw', '/api/v1/nodes/node-a/proxy/metrics'], PLAIN_USER);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/forbidden: User "plain" cannot get resource "nodes\/proxy"/);
  });

  it("never forwards the node's streaming endpoints, and names unknown and unserved nodes", async () => {
    const before = seen.length;
    const exec = await kubectl([
      'get',
      '--raw',
      '/api/v1/nodes/node-a/proxy/exec/default/pod/uid/main?command=id',
    ]);
    expect(exec.stderr).toMatch(
      /the node proxy serves only \/metrics and \/healthz of node node-a/,
    );
    expect(seen.length).toBe(before);
    const unserved = await kubectl(['get', '--raw', '/api/v1/nodes/node-b/proxy/metrics']);
    expect(unserved.stderr).toMatch(/node node-b does not serve its API/);
    const missing = await kubectl(['get', '--raw', '/api/v1/nodes/nope/proxy/metrics']);
    expect(missing.stderr).toMatch(/nodes "nope" not found/);
  });
});

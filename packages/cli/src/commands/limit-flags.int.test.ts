// kube-apiserver's limit flags on `apiserver`, `start` and `up`: --request-timeout,
// --max-requests-inflight and --max-mutating-requests-inflight. Bad values fail before anything
// serves, naming the flag; on the real bin, tiny limits answer 429 with Retry-After to the second
// of two slow requests of a class, and a request over the timeout gets 504.
import { openSocket, parseRawResponse, type RawResponse } from '@agent-sandbox/apiserver/testing';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../testing.ts';

const BIN = join(import.meta.dirname, '../../bin/agent-sandbox.js');
const COMMANDS = ['apiserver', 'start', 'up'];
const CM = '/api/v1/namespaces/default/configmaps';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-sandbox-limits-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'state');
}

describe('limit flags', () => {
  it('are listed on apiserver, start and up; bad values exit naming the flag', async () => {
    const bad: [string, string, string][] = [
      ['--request-timeout', 'abc', '--request-timeout must be a duration such as 60s'],
      ['--request-timeout', '60', '--request-timeout must be a duration such as 60s'],
      ['--request-timeout', '-5s', '--request-timeout must not be negative (0 turns it off)'],
      ['--max-requests-inflight', 'many', '--max-requests-inflight must be a whole number ≥ 0'],
      ['--max-requests-inflight', '-1', '--max-requests-inflight must not be negative'],
      ['--max-mutating-requests-inflight', '1.5', '--max-mutating-requests-inflight must be'],
    ];
    for (const command of COMMANDS) {
      const help = await runCli([command, '--help']);
      for (const flag of [
        '--request-timeout <duration>',
        '--max-requests-inflight <n>',
        '--max-mutating-requests-inflight <n>',
      ])
        expect(help.stdout).toContain(flag);
      for (const [flag, value, message] of bad) {
        const run = await runCli([command, '--data-dir', dataDir(), flag, value]);
        expect(run.code, `${command} ${flag} ${value}`).not.toBe(0);
        expect(run.stderr).toContain(message);
        expect(run.stderr).toContain(`got "${value}"`);
      }
    }
  }, 60_000);
});

interface Serving {
  url: string;
  token: string;
}

/** The real bin's `apiserver` with `flags`, until the test ends; resolves once it serves. */
async function apiserver(flags: string[]): Promise<Serving> {
  const dir = dataDir();
  const child = spawn(process.execPath, [
    BIN,
    'apiserver',
    '--data-dir',
    dir,
    '--port',
    '0',
    ...flags,
  ]);
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr.resume();
  cleanups.unshift(() => child.kill('SIGTERM'));
  await expect.poll(() => stdout, { timeout: 60_000 }).toMatch(/kubeconfig: /);
  const doc = parse(readFileSync(join(dir, 'kubeconfig'), 'utf8')) as {
    clusters: { cluster: { server: string } }[];
    users: { user: { token: string } }[];
  };
  return { url: doc.clusters[0]?.cluster.server ?? '', token: doc.users[0]?.user.token ?? '' };
}

/**
 * The limits count everyone but system:masters (kube's maxinflight filter), and the data dir's
 * kubeconfig is the admin's: the limited client is a ServiceAccount bound to cluster-admin.
 */
async function asServiceAccount(admin: Serving): Promise<Serving> {
  const post = async (path: string, body: unknown): Promise<RawResponse> => {
    const res = await fetchInsecure(admin, 'POST', path, body);
    expect(res.status, `${path}: ${res.body}`).toBe(201);
    return res;
  };
  await post('/api/v1/namespaces/default/serviceaccounts', {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'greedy' },
  });
  await post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'greedy-admin' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name: 'greedy', namespace: 'default' }],
  });
  const token = await post('/api/v1/namespaces/default/serviceaccounts/greedy/token', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: {},
  });
  return {
    url: admin.url,
    token: (JSON.parse(token.body) as { status: { token: string } }).status.token,
  };
}

/** A request on its own socket whose answer is collected; `paused` holds the reading back. */
function slowRequest(
  s: Serving,
  head: string,
  body = '',
): { socket: Socket; answer: () => RawResponse } {
  const socket = openSocket(s.url);
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => undefined);
  socket.write(
    `${head}\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${s.token}\r\nConnection: close\r\n${body}`,
  );
  cleanups.push(() => socket.destroy());
  return { socket, answer: () => parseRawResponse(Buffer.concat(chunks)) };
}

async function createConfigMap(s: Serving, name: string, bytes: number): Promise<number> {
  const res = await fetchInsecure(s, 'POST', CM, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name },
    data: { a: 'x'.repeat(bytes) },
  });
  return res.status;
}

/** One request over TLS without verifying the server (its CA is the data dir's). */
async function fetchInsecure(
  s: Serving,
  method: string,
  path: string,
  body?: unknown,
): Promise<RawResponse> {
  const text = body === undefined ? '' : JSON.stringify(body);
  const r = slowRequest(
    s,
    `${method} ${path} HTTP/1.1`,
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
  await new Promise((resolve) => r.socket.once('close', resolve));
  return r.answer();
}

describe('limits on the real bin', () => {
  it('--max-requests-inflight 1: a second read while a slow reader holds the slot gets 429', async () => {
    const admin = await apiserver(['--max-requests-inflight', '1']);
    const s = await asServiceAccount(admin);
    // A list larger than the socket buffers between the two ends: a client that does not read it
    // holds its read slot while the server waits to write the rest.
    for (let i = 0; i < 16; i++)
      expect(await createConfigMap(s, `big-${i}`, 1000 * 1024)).toBe(201);
    const held = slowRequest(s, `GET ${CM} HTTP/1.1`, '\r\n');
    held.socket.pause();
    await expect
      .poll(async () => (await fetchInsecure(s, 'GET', `${CM}?limit=1`)).status, {
        timeout: 20_000,
      })
      .toBe(429);
    const refused = await fetchInsecure(s, 'GET', `${CM}?limit=1`);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body).toBe('Too many requests, please try again later.\n');
    expect((await fetchInsecure(admin, 'GET', `${CM}?limit=1`)).status).toBe(200); // uncounted
    // Writes have their own limit, still free.
    expect(await createConfigMap(s, 'small', 1)).toBe(201);
    held.socket.resume();
    await new Promise((resolve) => held.socket.once('close', resolve));
    expect(held.answer().status).toBe(200);
    expect((await fetchInsecure(s, 'GET', `${CM}?limit=1`)).status).toBe(200);
  }, 120_000);

  it('--max-mutating-requests-inflight 1 and --request-timeout 3s: 429 beside a trickling write, 504 for it', async () => {
    const s = await asServiceAccount(
      await apiserver(['--max-mutating-requests-inflight', '1', '--request-timeout', '3s']),
    );
    const started = Date.now();
    const trickle = slowRequest(
      s,
      `POST ${CM} HTTP/1.1`,
      'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{',
    );
    const timer = setInterval(() => trickle.socket.writable && trickle.socket.write(' '), 100);
    cleanups.push(() => clearInterval(timer));
    const dryRun = (): Promise<RawResponse> =>
      fetchInsecure(s, 'POST', `${CM}?dryRun=All`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'second' },
      });
    // Once the trickling write's head is in, it holds the one write slot.
    await expect.poll(async () => (await dryRun()).status, { timeout: 10_000 }).toBe(429);
    const second = await dryRun();
    expect(second.status).toBe(429);
    expect(second.headers['retry-after']).toBe('1');
    // Reads have their own limit.
    expect((await fetchInsecure(s, 'GET', CM)).status).toBe(200);
    await expect.poll(() => trickle.answer().status, { timeout: 30_000 }).toBe(504);
    expect(trickle.answer().body).toContain('request did not complete within the allotted timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
  }, 120_000);
});

// The machine's kubectl (and client-node) against the embedded API server, which proxies pods/log,
// exec, attach and portforward to this node streaming server over TLS with the node's token; the
// backend runs real host processes. A protocol test: every byte crosses real sockets.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded apiserver (our envtest)
import { ensureCertificates, NodeStreamProxy } from '@agent-sandbox/apiserver';
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded apiserver (our envtest)
import { startTestApiServer, type TestApiServer } from '@agent-sandbox/apiserver/testing';
import { spawn as spawnPty } from 'node-pty';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostPodContainers } from '../testing/host-pod-containers.ts';
import { ExecMetrics } from './exec-metrics.ts';
import { podContainersBackend } from './pod-containers-backend.ts';
import { startStreamingServer, type StreamingServerHandle } from './streaming-server.ts';

const run = promisify(execFile);
const NODE = 'node-io';
const TOKEN = 'node-streaming-token';

interface KubectlResult {
  stdout: string;
  stderr: string;
  code: number;
}

describe('node streaming through the embedded API server', () => {
  let api: TestApiServer;
  let node: StreamingServerHandle;
  let backend: HostPodContainers;
  let dir: string;
  let netns: string;
  let certs: { caCert: string; cert: string; key: string };
  let echo: ChildProcess;
  const metrics = new ExecMetrics();
  /** An echo server listening on 127.0.0.1 inside the Pod's network namespace only. */
  const echoPort = 20000 + (process.pid % 10000);

  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    ...process.env,
    KUBECONFIG: api.kubeconfigPath,
    ...extra,
  });

  async function kubectl(
    args: string[],
    options: { input?: string; env?: Record<string, string> } = {},
  ): Promise<KubectlResult> {
    return new Promise((resolve) => {
      const child = spawn('kubectl', args, { env: env(options.env) });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      if (options.input !== undefined) child.stdin.end(options.input);
      else child.stdin.end();
      child.once('exit', (code) => resolve({ stdout, stderr, code: code ?? -1 }));
    });
  }

  async function createPod(name: string, containers: string[], phase = 'Running'): Promise<void> {
    const body = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { nodeName: NODE, containers: containers.map((c) => ({ name: c, image: 'busybox' })) },
    };
    const headers = { 'Content-Type': 'application/json' };
    const res = await fetch(`${api.url}/api/v1/namespaces/default/pods`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers,
    });
    expect(res.status).toBe(201);
    const status = await fetch(`${api.url}/api/v1/namespaces/default/pods/${name}/status`, {
      method: 'PATCH',
      body: JSON.stringify({ status: { phase } }),
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(status.status).toBe(200);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kubelet-streaming-'));
    certs = await ensureCertificates({ dir: join(dir, 'pki') });
    netns = `kio-stream-${process.pid}`;
    await run('ip', ['netns', 'add', netns]);
    await run('ip', ['-n', netns, 'link', 'set', 'lo', 'up']);
    backend = new HostPodContainers({
      logDir: join(dir, 'logs'),
      netnsPath: `/run/netns/${netns}`,
    });
    node = await startStreamingServer({
      backend: podContainersBackend(backend, { onExec: metrics.observe }),
      tls: { cert: certs.cert, key: certs.key },
      token: TOKEN,
      metrics: metrics.registry,
    });
    const proxy = new NodeStreamProxy({
      locate: (name) =>
        name === NODE ? { url: node.url, ca: certs.caCert, token: TOKEN } : undefined,
    });
    api = await startTestApiServer({ podStreams: proxy });
    echo = spawn('nsenter', [
      `--net=/run/netns/${netns}`,
      process.execPath,
      '-e',
      `require('net').createServer((s) => s.pipe(s)).listen(${echoPort}, '127.0.0.1', () => console.log('ready'))`,
    ]);
    await new Promise((resolve) => echo.stdout?.once('data', resolve));

    await createPod('web', ['app']);
    backend.register({ namespace: 'default', name: 'web' }, 'app', [
      'sh',
      '-c',
      'echo first line; echo to stderr >&2; cat',
    ]);
    await createPod('duo', ['a', 'b']);
    backend.register({ namespace: 'default', name: 'duo' }, 'a', [
      'sh',
      '-c',
      'echo from a; sleep 600',
    ]);
    backend.register({ namespace: 'default', name: 'duo' }, 'b', [
      'sh',
      '-c',
      'echo from b; sleep 600',
    ]);
  });

  afterAll(async () => {
    backend.stopAll();
    echo.kill('SIGKILL');
    await node.close();
    await api.close();
    await run('ip', ['netns', 'delete', netns]);
    rmSync(dir, { recursive: true, force: true });
  });

  describe('kubectl exec (WebSocket v5.channel.k8s.io)', () => {
    it('relays stdout and stderr and reports a non-zero exit code', async () => {
      const r = await kubectl(['exec', 'web', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
      expect(r.stdout).toBe('out\n');
      expect(r.stderr).toContain('err\n');
      expect(r.stderr).toContain('command terminated with exit code 3');
      expect(r.code).toBe(3);
    });

    it('exits 0 on success', async () => {
      const r = await kubectl(['exec', 'web', '--', 'true']);
      expect(r).toMatchObject({ code: 0, stdout: '' });
    });

    it('streams stdin to the process and half-closes it at EOF', async () => {
      const r = await kubectl(['exec', '-i', 'web', '--', 'sh', '-c', 'tr a-z A-Z; echo done'], {
        input: 'hello stdin\n',
      });
      expect(r.stdout).toBe('HELLO STDIN\ndone\n');
      expect(r.code).toBe(0);
    });

    it('keeps stdin a client sends right after the upgrade, before the first frame', async () => {
      // kubectl writes stdin as soon as the WebSocket opens; nothing may be lost on the way.
      for (let round = 0; round < 5; round++) {
        const query = 'command=cat&stdin=true&stdout=true&stderr=true';
        const ws = new WebSocket(
          `${api.url.replace('http', 'ws')}/api/v1/namespaces/default/pods/web/exec?${query}`,
          ['v5.channel.k8s.io'],
        );
        let out = '';
        const closed = new Promise<void>((resolve, reject) => {
          ws.on('message', (d: Buffer) => {
            if (d[0] === 1) out += d.subarray(1).toString();
          });
          ws.on('close', () => resolve());
          ws.on('error', reject);
        });
        ws.once('open', () => {
          ws.send(Buffer.concat([Buffer.from([0]), Buffer.from(`early ${round}\n`)]));
          ws.send(Buffer.from([255, 0]));
        });
        await closed;
        expect(out).toBe(`early ${round}\n`);
      }
    });

    it('carries a large output intact', async () => {
      const r = await kubectl([
        'exec',
        'web',
        '--',
        'sh',
        '-c',
        'head -c 3000000 /dev/zero | tr "\\0" x',
      ]);
      expect(r.stdout.length).toBe(3_000_000);
    });

    it('gives -it a real terminal of the client size', async () => {
      // The size is read after the typed line: kubectl sends its size as the session opens, before
      // any input, but the process may start before it arrives (the server waits 300 ms for it;
      // kubectl through the API server's proxy took longer under load, and `stty size` said 24 80).
      const pty = spawnPty(
        'kubectl',
        ['exec', '-it', 'web', '--', 'sh', '-c', 'tty; read line; stty size; echo "got $line"'],
        {
          cols: 91,
          rows: 33,
          env: env() as Record<string, string>,
        },
      );
      let out = '';
      pty.onData((d) => {
        out += d;
        if (out.includes('/dev/pts/') && !out.includes('typed')) {
          out += '[typed]';
          pty.write('typed\r');
        }
      });
      const code = await new Promise<number>((resolve) =>
        pty.onExit(({ exitCode }) => resolve(exitCode)),
      );
      expect(out).toContain('33 91');
      expect(out).toMatch(/\/dev\/pts\/\d+/);
      expect(out).toContain('got typed');
      expect(code).toBe(0);
    });

    it('names the fix when the container is ambiguous or unknown', async () => {
      const unknown = await kubectl(['exec', 'web', '-c', 'nope', '--', 'true']);
      expect(unknown.stderr).toContain('container nope is not valid for pod web');
      expect(unknown.code).not.toBe(0);
    });

    it('refuses a Pod without a node as kube-apiserver does', async () => {
      const res = await fetch(`${api.url}/api/v1/namespaces/default/pods`, {
        method: 'POST',
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'unbound' },
          spec: { containers: [{ name: 'c', image: 'busybox' }] },
        }),
        headers: { 'Content-Type': 'application/json' },
      });
      expect(res.status).toBe(201);
      const r = await kubectl(['exec', 'unbound', '--', 'true']);
      expect(r.stderr).toContain('pod unbound does not have a host assigned');
    });
  });

  describe('kubectl attach', () => {
    it('joins the primary process: stdin in, live output out', async () => {
      await createPod('chat', ['c']);
      backend.register({ namespace: 'default', name: 'chat' }, 'c', ['cat']);
      const child = spawn('kubectl', ['attach', '-i', 'chat'], { env: env() });
      let out = '';
      const seen = new Promise<void>((resolve) =>
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('via attach')) resolve();
        }),
      );
      child.stdin.write('via attach\n');
      await seen;
      child.kill('SIGINT');
      expect(out).toContain('via attach\n');
      // Output of the session reached the container's log as well: it is the primary process.
      await expect.poll(async () => (await kubectl(['logs', 'chat'])).stdout).toBe('via attach\n');
    });
  });

  describe('kubectl logs', () => {
    it('returns what the container wrote, both streams', async () => {
      const r = await kubectl(['logs', 'web']);
      expect(r.stdout).toBe('first line\nto stderr\n');
    });

    it('honours --tail, --timestamps and --limit-bytes', async () => {
      expect((await kubectl(['logs', 'web', '--tail=1'])).stdout).toBe('to stderr\n');
      expect((await kubectl(['logs', 'web', '--timestamps'])).stdout).toMatch(
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z first line\n/,
      );
      expect((await kubectl(['logs', 'web', '--limit-bytes=5'])).stdout).toBe('first');
      expect((await kubectl(['logs', 'web', '--since=1h'])).stdout).toBe('first line\nto stderr\n');
    });

    it('asks for a container when the Pod has several, and serves the chosen one', async () => {
      const direct = await fetch(`${api.url}/api/v1/namespaces/default/pods/duo/log`);
      expect(direct.status).toBe(400);
      expect(((await direct.json()) as { message: string }).message).toBe(
        'a container name must be specified for pod duo, choose one of: [a b]',
      );
      expect((await kubectl(['logs', 'duo', '-c', 'b'])).stdout).toBe('from b\n');
    });

    it('follows new output until the container exits (-f)', async () => {
      await createPod('ticker', ['t']);
      backend.register({ namespace: 'default', name: 'ticker' }, 't', [
        'sh',
        '-c',
        'for i in 1 2 3; do echo tick $i; sleep 0.3; done',
      ]);
      const r = await kubectl(['logs', '-f', 'ticker']);
      expect(r.stdout).toBe('tick 1\ntick 2\ntick 3\n');
      expect(r.code).toBe(0);
    });

    it('serves --previous after a restart and a clear error without one', async () => {
      await createPod('restarts', ['r']);
      const target = { namespace: 'default', name: 'restarts' };
      const first = backend.register(target, 'r', ['sh', '-c', 'echo run one']);
      await new Promise((resolve) => first.once('exit', resolve));
      const none = await kubectl(['logs', 'restarts', '--previous']);
      expect(none.stderr).toContain(
        'previous terminated container "r" in pod "restarts" not found',
      );
      backend.register(target, 'r', ['sh', '-c', 'echo run two; sleep 600']);
      expect((await kubectl(['logs', 'restarts', '--previous'])).stdout).toBe('run one\n');
    });

    it('rejects invalid parameters with the field named', async () => {
      const res = await fetch(`${api.url}/api/v1/namespaces/default/pods/web/log?tailLines=-1`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain('tailLines');
    });
  });

  describe('kubectl port-forward', () => {
    async function forwardOnce(envExtra: Record<string, string>): Promise<string> {
      const child = spawn('kubectl', ['port-forward', 'pod/web', `:${echoPort}`], {
        env: env(envExtra),
      });
      let out = '';
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const local = await new Promise<number>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        child.once('exit', () => reject(new Error(`kubectl port-forward exited: ${out}`)));
      });
      try {
        const replies: string[] = [];
        for (const msg of ['ping one', 'ping two']) {
          replies.push(
            await new Promise<string>((resolve, reject) => {
              const s = connect(local, '127.0.0.1', () => s.write(msg));
              s.once('data', (d) => {
                resolve(d.toString());
                s.end();
              });
              s.once('error', reject);
            }),
          );
        }
        return replies.join('|');
      } finally {
        child.kill('SIGINT');
      }
    }

    it('reaches a port only the Pod network namespace has', async () => {
      const direct = await new Promise<string>((resolve) => {
        const s = connect(echoPort, '127.0.0.1', () => resolve('connected'));
        s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
      });
      expect(direct).toBe('ECONNREFUSED');
    });

    it('reports a port nothing listens on in the error stream', async () => {
      const child = spawn('kubectl', ['port-forward', 'pod/web', ':1'], { env: env() });
      let out = '';
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const local = await new Promise<number>((resolve) => {
        child.stdout.on('data', (d: Buffer) => {
          const m = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(d.toString());
          if (m) resolve(Number(m[1]));
        });
      });
      const s = connect(local, '127.0.0.1');
      s.on('error', () => undefined);
      await expect
        .poll(() => out, { timeout: 10_000 })
        .toMatch(
          /error forwarding port 1 to pod default\/web, uid [\w-]+: dial tcp4 127\.0\.0\.1:1: connect ECONNREFUSED/,
        );
      s.destroy();
      child.kill('SIGINT');
    });

    it('forwards connections through the SPDY tunnel in a WebSocket (kubectl default)', async () => {
      expect(await forwardOnce({})).toBe('ping one|ping two');
    });

    it('forwards connections over plain SPDY/3.1 (KUBECTL_PORT_FORWARD_WEBSOCKETS=false)', async () => {
      expect(await forwardOnce({ KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' })).toBe(
        'ping one|ping two',
      );
    });
  });

  describe('@kubernetes/client-node', () => {
    function kubeConfig(): k8s.KubeConfig {
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(api.kubeconfigPath);
      return kc;
    }

    it('execs with a status callback carrying the exit code', async () => {
      const stdout = new PassThrough();
      let out = '';
      stdout.on('data', (d: Buffer) => (out += d.toString()));
      const status = await new Promise<k8s.V1Status>((resolve, reject) => {
        new k8s.Exec(kubeConfig())
          .exec(
            'default',
            'web',
            'app',
            ['sh', '-c', 'echo node-client; exit 4'],
            stdout,
            null,
            null,
            false,
            (s) => resolve(s),
          )
          .catch(reject);
      });
      expect(out).toBe('node-client\n');
      expect(status.status).toBe('Failure');
      expect(status.details?.causes?.[0]).toEqual({ reason: 'ExitCode', message: '4' });
    });

    it('port-forwards over v4.channel.k8s.io', async () => {
      const input = new PassThrough();
      const output = new PassThrough();
      let got = '';
      const done = new Promise<void>((resolve) =>
        output.on('data', (d: Buffer) => {
          got += d.toString();
          if (got.includes('over websocket')) resolve();
        }),
      );
      const ws = await new k8s.PortForward(kubeConfig()).portForward(
        'default',
        'web',
        [echoPort],
        output,
        null,
        input,
      );
      input.write('over websocket');
      await done;
      (ws as { close(): void }).close();
      expect(got).toBe('over websocket');
    });
  });

  it('serves the exec metric on /metrics to the token holder only', async () => {
    const scrape = (headers: Record<string, string>) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = httpsGet(`${node.url}/metrics`, { ca: certs.caCert, headers }, (r) => {
          let text = '';
          r.on('data', (d: Buffer) => (text += d.toString()));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, text }));
        });
        req.on('error', reject);
      });
    const before = (await metrics.execs.get()).values[0]?.value ?? 0;
    expect((await kubectl(['exec', 'web', '--', 'true'])).code).toBe(0);
    const ok = await scrape({ Authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    // The host backend names no runtime handler: the label says so rather than guessing.
    expect(ok.text).toContain(
      `agent_sandbox_node_execs_total{path="runtime",runtime="unknown"} ${before + 1}`,
    );
    expect(ok.text).toContain('agent_sandbox_node_exec_start_seconds_bucket');
    const refused = await scrape({ Authorization: 'Bearer wrong' });
    expect(refused.status).toBe(401);
    expect(refused.text).not.toContain('agent_sandbox');
  });

  it('refuses callers without the node token', async () => {
    const res = await fetch(node.url.replace('https', 'http'), { method: 'GET' }).catch(
      () => undefined,
    );
    expect(res).toBeUndefined(); // TLS only
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpsGet(
        `${node.url}/containerLogs/default/web/app`,
        { ca: certs.caCert },
        (r) => {
          let text = '';
          r.on('data', (d: Buffer) => (text += d.toString()));
          r.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
    });
    expect(JSON.parse(body)).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
  });
});

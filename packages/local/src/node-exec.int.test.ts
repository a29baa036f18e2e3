// ADR 0037 end to end: the node agent with the in-sandbox daemon injected (as `up` runs it) and
// the streaming server's backend over it. Under runc, bubblewrap and gVisor an exec is a fork by
// the daemon: output, exit code and stdin as the runtime's exec gives them; from inside the
// exec'd process, namespaces, cgroup, seccomp mode, capability sets, user and cwd equal the
// container's primary process's (under bubblewrap the mount namespace is the nested bwrap's, as
// for its runtime exec). Kill the daemon and the runtime's exec answers the same. A hostile peer
// on the Pod's exec socket (garbage, an oversize frame, a bad exit code, silence) cannot crash
// the agent or hold an exec past the start deadline; another Pod does not see this Pod's socket.
// gVisor's --host-uds=open (ADR 0040) leaves no host socket but the exec socket in a sandbox's
// mounts, and a gVisor Pod with a hostPath volume keeps `runsc exec` and cannot reach a host
// socket there. Real kubectl through the API server: `exec -it` is a TTY session through the
// daemon (tty, stty size following a resize), and nodes/proxy/metrics counts the paths.
import { type KubeClient, PODS } from '@agent-sandbox/kube';
import type {
  EnvVar,
  KubeObject,
  Pod,
  PodSecurityContext,
  Volume,
  VolumeMount,
} from '@agent-sandbox/kube-types';
import {
  containerExec,
  ExecMetrics,
  type ExecProcess,
  type HostCommand,
  type NodeAgent,
  podContainersBackend,
  type ExecPath,
  type PodDaemon,
  type StreamingBackend,
} from '@agent-sandbox/kubelet';
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { spawn as spawnPty } from 'node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOXD_ANNOTATION } from './sandboxd-injection.ts';
import {
  INJECTED_AGENT_IMAGE,
  startInjectedAgent,
  type InjectedAgentWorld,
} from './testing/injected-agent.ts';

type PodObject = Pod & KubeObject;
const IMAGE = INJECTED_AGENT_IMAGE;

let world: InjectedAgentWorld;
let client: KubeClient;
let agent: NodeAgent;
let dir: string;
let daemon: PodDaemon;
let backend: StreamingBackend;
let lastPath: ExecPath | undefined;
const metrics = new ExecMetrics();

beforeAll(async () => {
  world = await startInjectedAgent('nexe', { streaming: true, allowHostPath: true });
  ({ client, agent } = world);
  ({ dir, daemon } = world);
  backend = podContainersBackend(agent, {
    onExec: (e) => {
      lastPath = e.path;
      metrics.observe(e);
    },
  });
}, 60_000);

afterAll(async () => {
  const leaks = world ? await world.stop() : [];
  expect(leaks).toEqual([]);
});

interface PodExtra {
  runtimeClassName?: string;
  annotations?: Record<string, string>;
  securityContext?: PodSecurityContext;
  workingDir?: string;
  env?: EnvVar[];
  volumes?: Volume[];
  volumeMounts?: VolumeMount[];
}

async function runningPod(name: string, extra: PodExtra = {}): Promise<PodObject> {
  const created = await client.create(PODS, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', annotations: extra.annotations ?? {} },
    spec: {
      terminationGracePeriodSeconds: 1,
      ...(extra.runtimeClassName ? { runtimeClassName: extra.runtimeClassName } : {}),
      ...(extra.securityContext ? { securityContext: extra.securityContext } : {}),
      ...(extra.volumes ? { volumes: extra.volumes } : {}),
      containers: [
        {
          name: 'main',
          image: IMAGE,
          command: ['sleep', '3600'],
          ...(extra.workingDir ? { workingDir: extra.workingDir } : {}),
          ...(extra.env ? { env: extra.env } : {}),
          ...(extra.volumeMounts ? { volumeMounts: extra.volumeMounts } : {}),
        },
      ],
    },
  } as PodObject);
  await until(
    async () => (await client.get<PodObject>(PODS, 'default', name)).status?.phase,
    'Running',
  );
  return created;
}

async function deletePod(name: string): Promise<void> {
  await client.delete(PODS, 'default', name, { gracePeriodSeconds: 0 }).catch(() => undefined);
}

function collect(r: Readable | null): Promise<string> {
  if (!r) return Promise.resolve('');
  return new Promise((resolve) => {
    let s = '';
    r.on('data', (c: Buffer) => (s += c.toString()));
    r.once('end', () => resolve(s));
  });
}

interface Result {
  path: ExecPath | undefined;
  out: string;
  err: string;
  exit: { exitCode: number } | { error: string };
}

/** One exec through the streaming server's backend, as `kubectl exec` drives it. */
async function exec(pod: string, argv: string[], stdin?: string): Promise<Result> {
  lastPath = undefined;
  const p = await backend.exec({ namespace: 'default', pod, container: 'main' }, argv, {
    stdin: stdin !== undefined,
    stdout: true,
    stderr: true,
    tty: false,
  });
  const path = lastPath;
  if (stdin !== undefined) p.stdin?.end(stdin);
  const [out, err, exit] = await Promise.all([collect(p.stdout), collect(p.stderr), p.exited]);
  return { path, out, err, exit };
}

/** One exec with the command's own cwd and env (`containerExec`, which the backend runs). */
async function execOwn(pod: string, argv: string[], own: ExecProcess): Promise<Result> {
  const target = { namespace: 'default', pod, container: 'main' };
  const streams = { stdin: false, stdout: true, stderr: true, tty: false };
  const { process: p, path } = await containerExec(agent, target, argv, streams, own);
  const [out, err, exit] = await Promise.all([collect(p.stdout), collect(p.stderr), p.exited]);
  return { path, out, err, exit };
}

/** Runs the runtime's exec command as the streaming server spawns it (no pty, no stdin). */
async function runHost(cmd: HostCommand): Promise<{ out: string; code: number | null }> {
  const child = spawn(cmd.file, cmd.args, { env: cmd.env, stdio: ['ignore', 'pipe', 'inherit'] });
  const [out, code] = await Promise.all([
    collect(child.stdout),
    new Promise<number | null>((r) => child.once('close', r)),
  ]);
  return { out, code };
}

/** The node's exec counter for one path and runtime handler. */
async function execCount(path: ExecPath, runtime: string): Promise<number> {
  const { values } = await metrics.execs.get();
  return values.find((v) => v.labels.path === path && v.labels.runtime === runtime)?.value ?? 0;
}

/** Polls `read` (every 100 ms, for up to 60 s: beforeAll hooks cannot use expect.poll). */
async function until<T>(read: () => Promise<T>, want: T): Promise<void> {
  const deadline = Date.now() + 60_000;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (last === want) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`still ${String(last)}, not ${String(want)}, after 60 s`);
}

/** Polls until an exec takes `want` (the daemon registers after the container runs). */
async function untilPath(pod: string, want: ExecPath): Promise<void> {
  await until(async () => (await exec(pod, ['true'])).path, want);
}

// What the isolation test reads of a process ($1: `self` or a pid): namespaces, cgroup, seccomp
// mode and capability sets.
const PROCESS_FACTS = `P=$1; for n in mnt pid net ipc uts user cgroup; do echo "$n $(readlink /proc/$P/ns/$n)"; done; cat /proc/$P/cgroup; grep -E '^(Seccomp|Cap(Inh|Prm|Eff|Bnd|Amb)):' /proc/$P/status`;
const PRIMARY = 'pidof sleep | tr " " "\\n" | head -n1';

async function isolationFacts(pod: string) {
  const self = await exec(pod, ['sh', '-c', PROCESS_FACTS, 'sh', 'self']);
  const primary = await exec(pod, [
    'sh',
    '-c',
    `${PROCESS_FACTS.replace('P=$1', `P=$(${PRIMARY})`)}`,
  ]);
  const who = await exec(pod, ['sh', '-c', 'id -u; id -g; pwd']);
  return { self, primary, who };
}

/** Kills the daemon from inside the container (its cmdline names sandboxd-boot.cjs, or
 * sandboxd.mjs without its code cache; the pattern is written so that this shell's own cmdline
 * does not match it). */
const KILL_DAEMON = [
  'sh',
  '-c',
  'for p in /proc/[0-9]*; do grep -q "sandboxd[.-]" $p/cmdline 2>/dev/null && kill -9 ${p#/proc/}; done; true',
];

describe.each([
  { runtime: 'runc', runtimeClassName: undefined, user: 1000 },
  // Non-root under bubblewrap: the image has no /run, and bwrap would make it 0700 for the
  // socket's mount point (unreachable by uid 1000) unless told 0755, as runc makes it.
  { runtime: 'bubblewrap', runtimeClassName: 'bubblewrap', user: 1000 },
  // gVisor: the Pod has no hostPath volume, so its sandbox gets --host-uds=open (ADR 0040).
  { runtime: 'runsc', runtimeClassName: 'gvisor', user: 1000 },
])('exec through the in-sandbox daemon under $runtime', ({ runtime, runtimeClassName, user }) => {
  const name = `nexe-${runtime}`;
  // Under bubblewrap every exec, the runtime's too, is a nested bwrap with a mount namespace
  // of its own (a copy of the container's): the daemon's forks share the one it started in.
  // gVisor's procfs numbers its namespace links afresh as they are looked up (and has no mnt
  // link): under runsc the kinds compare, and the exec'd process seeing the primary (PRIMARY)
  // shows it shares its pid namespace.
  const sameMnt = (out: string) =>
    runtime === 'bubblewrap'
      ? out.replace(/^mnt .*\n/, '')
      : runtime === 'runsc'
        ? out.replace(/:\[\d+\]/g, '')
        : out;
  beforeAll(async () => {
    await runningPod(name, {
      ...(runtimeClassName ? { runtimeClassName } : {}),
      ...(user ? { securityContext: { runAsUser: user, runAsGroup: user } } : {}),
      workingDir: '/tmp',
      env: [
        { name: 'POD_VAR', value: 'from-pod' },
        { name: 'KEEP', value: 'kept' },
      ],
    });
    await untilPath(name, 'daemon');
  }, 90_000);
  afterAll(() => deletePod(name));

  it('returns output, exit code and stdin', async () => {
    const r = await exec(name, ['sh', '-c', 'echo out; echo err >&2; exit 7']);
    expect(r).toEqual({ path: 'daemon', out: 'out\n', err: 'err\n', exit: { exitCode: 7 } });
    const cat = await exec(name, ['cat'], 'from stdin\n');
    expect(cat).toMatchObject({ path: 'daemon', out: 'from stdin\n', exit: { exitCode: 0 } });
    // Without stdin the process sees EOF at once (cat ends), as `runc exec` without -i.
    expect(await exec(name, ['cat'])).toMatchObject({ out: '', exit: { exitCode: 0 } });
  }, 60_000);

  it('counts its execs on the exec metric by path and runtime handler', async () => {
    const before = await execCount('daemon', runtime);
    const runtimeBefore = await execCount('runtime', runtime);
    for (let i = 0; i < 3; i++) expect((await exec(name, ['true'])).path).toBe('daemon');
    expect(await execCount('daemon', runtime)).toBe(before + 3);
    expect(await execCount('runtime', runtime)).toBe(runtimeBefore);
  }, 60_000);

  it("runs in the container's namespaces, cgroup, seccomp and capabilities, as its user and cwd", async () => {
    const { self, primary, who } = await isolationFacts(name);
    expect([self.path, primary.path, who.path]).toEqual(['daemon', 'daemon', 'daemon']);
    expect(self.exit).toEqual({ exitCode: 0 });
    // runsc filters the sandbox's own syscalls on the host; inside, as for its primary, mode 0.
    expect(self.out).toContain(runtime === 'runsc' ? 'Seccomp:\t0' : 'Seccomp:\t2');
    if (runtime !== 'runsc') expect(self.out).toMatch(/mnt mnt:\[\d+\]/);
    if (runtime === 'runsc') {
      // runsc exec (the daemon's start, as every runtime exec) gives a non-root process no
      // capabilities where the primary has the spec's: an exec has at most the primary's.
      const sets = /^Cap(Inh|Prm|Eff|Amb):.*\n/gm;
      expect(sameMnt(self.out).replace(sets, '')).toBe(sameMnt(primary.out).replace(sets, ''));
      const eff = (out: string) => BigInt(`0x${/^CapEff:\s*([0-9a-f]+)/m.exec(out)?.[1] ?? 'x'}`);
      expect(eff(self.out) & ~eff(primary.out)).toBe(0n);
    } else expect(sameMnt(self.out)).toBe(sameMnt(primary.out));
    expect(who.out).toBe(`${user}\n${user}\n/tmp\n`);
    // The socket's mount point is reachable by the container's user (not a 0700 /run).
    const run = await exec(name, ['stat', '-c', '%a %u', '/run']);
    expect(run.out).toBe('755 0\n');
  }, 60_000);

  it("gives an exec its own cwd and env over the container's, through the daemon and the runtime alike", async () => {
    const argv = ['sh', '-c', 'pwd; echo "$POD_VAR|$EXEC_VAR|$KEEP"'];
    const own = { cwd: '/etc', env: { POD_VAR: 'from-exec', EXEC_VAR: 'x y' } };
    const ref = { namespace: 'default', name };
    const container = { out: '/tmp\nfrom-pod||kept\n', exit: { exitCode: 0 } };
    const mine = { out: '/etc\nfrom-exec|x y|kept\n', exit: { exitCode: 0 } };
    expect(await execOwn(name, argv, {})).toMatchObject({ path: 'daemon', ...container });
    expect(await execOwn(name, argv, own)).toMatchObject({ path: 'daemon', ...mine });
    const runtimeExec = (o: ExecProcess) =>
      runHost(agent.execCommand(ref, 'main', argv, { tty: false, ...o }));
    expect(await runtimeExec({})).toEqual({ out: container.out, code: 0 });
    expect(await runtimeExec(own)).toEqual({ out: mine.out, code: 0 });
    // Malformed ones are refused on both paths before anything runs, naming the field.
    expect(() => agent.execCommand(ref, 'main', argv, { tty: false, cwd: 'etc' })).toThrow(
      'exec.cwd: must be an absolute path, not "etc"',
    );
    await expect(execOwn(name, argv, { env: { 'A=B': 'x' } })).rejects.toThrow(/^exec\.env: "A=B"/);
  }, 60_000);

  it('falls back to the runtime exec when the daemon is gone, with the same answers', async () => {
    const before = await isolationFacts(name);
    await exec(name, KILL_DAEMON);
    // The supervisor restarts the daemon after a back-off: in between, execs take the runtime.
    let fallback: Result | undefined;
    for (let i = 0; i < 200 && !fallback; i++) {
      const r = await exec(name, ['sh', '-c', 'echo out; exit 3']);
      if (r.path === 'runtime') fallback = r;
    }
    expect(fallback).toMatchObject({ out: 'out\n', exit: { exitCode: 3 } });
    const who = await exec(name, ['sh', '-c', 'id -u; id -g; pwd']);
    if (who.path === 'runtime') expect(who.out).toBe(before.who.out);
    // And the restarted daemon takes execs again.
    await untilPath(name, 'daemon');
    expect(sameMnt((await isolationFacts(name)).self.out)).toBe(sameMnt(before.self.out));
  }, 90_000);
});

describe('a hostile peer on the exec socket', () => {
  const name = 'nexe-hostile';
  let pod: PodObject;
  beforeAll(async () => {
    // No daemon here (opt-out): only the hostile peer dials the socket the agent mounts in.
    pod = await runningPod(name, { annotations: { [SANDBOXD_ANNOTATION]: 'disabled' } });
  }, 60_000);
  afterAll(() => deletePod(name));

  it('cannot crash the agent, fake an exit code out of range or hold an exec past the deadline', async () => {
    // The daemon's own launch (the Pod opts out: ask as for one that does not).
    const withDaemon = { ...pod, metadata: { ...pod.metadata, annotations: {} } };
    const node = (daemon.argv(withDaemon, { name: 'main', image: IMAGE }) ?? []).slice(0, 4);
    expect(node[3]).toBe('/.sbx/node');
    // Four connections, dialled one after the other (the agent takes idle ones in that order),
    // each answering its exec's start frame in its own bad way; 'ready' once all are connected.
    const peer = `
      const net = require('node:net');
      const frame = (t, p) => { const b = Buffer.from(p); const h = Buffer.alloc(5); h.writeUInt32BE(b.length); h[4] = t; return Buffer.concat([h, b]); };
      const modes = [
        (s) => s.write(Buffer.from('GET / HTTP/1.1\\r\\n\\r\\n')),
        (s) => { const h = Buffer.alloc(5); h.writeUInt32BE(0x7fffffff); h[4] = 16; s.write(h); },
        (s) => s.write(Buffer.concat([frame(16, '{"pid":1}'), frame(17, 'fake\\n'), frame(19, '{"exitCode":999}')])),
        () => undefined,
      ];
      let open = modes.length;
      const dial = (i) => {
        if (i >= modes.length) return console.log('ready');
        const s = net.connect('/run/agent-sandbox/exec.sock', () => dial(i + 1));
        s.on('error', () => undefined);
        s.once('data', () => modes[i](s));
        s.once('close', () => { if (--open === 0) { console.log('peer done'); process.exit(0); } });
      };
      dial(0);
      setTimeout(() => process.exit(1), 60000);
    `;
    const p = await backend.exec(
      { namespace: 'default', pod: name, container: 'main' },
      [...node, '-e', peer],
      {
        stdin: false,
        stdout: true,
        stderr: true,
        tty: false,
      },
    );
    let peerOut = '';
    const ready = new Promise<void>((resolve) =>
      p.stdout?.on('data', (c: Buffer) => {
        peerOut += c.toString();
        if (peerOut.includes('ready')) resolve();
      }),
    );
    const peerEnded = collect(p.stderr).then(async (err) => ({ err, exit: await p.exited }));
    await ready;
    const answers: Result[] = [];
    for (let i = 0; i < 4; i++) answers.push(await exec(name, ['sh', '-c', 'echo real; exit 4']));
    const real = { path: 'runtime', out: 'real\n', exit: { exitCode: 4 } };
    // Garbage and an oversize frame before the start ack: the runtime's exec answers.
    expect(answers[0]).toMatchObject(real);
    expect(answers[1]).toMatchObject(real);
    // After a start ack the peer owns that exec (it may lie about output), but an exit code out
    // of range is an error, not a number.
    expect(answers[2]?.path).toBe('daemon');
    expect(answers[2]?.exit).toMatchObject({ error: expect.stringMatching(/exitCode/) });
    // Silence: the start deadline passes and the runtime's exec answers.
    expect(answers[3]).toMatchObject(real);
    expect(await peerEnded).toMatchObject({ exit: { exitCode: 0 } });
    expect(peerOut).toContain('peer done');
    // The agent still serves this Pod.
    expect(await exec(name, ['sh', '-c', 'echo ok'])).toMatchObject({ out: 'ok\n' });
  }, 90_000);

  it("another Pod does not see this Pod's socket", async () => {
    await runningPod('nexe-other');
    const inode = (uid: string) =>
      String(statSync(join(dir, 'node', 'pods', uid, 'node-exec', 'exec.sock')).ino);
    const other = await client.get<PodObject>(PODS, 'default', 'nexe-other');
    const found = await exec('nexe-other', [
      'sh',
      '-c',
      'find / -xdev -name exec.sock 2>/dev/null; find /run -name exec.sock 2>/dev/null; stat -c %i /run/agent-sandbox/exec.sock',
    ]);
    const lines = found.out.trim().split('\n');
    expect(lines.filter((l) => l.endsWith('exec.sock'))).toEqual(['/run/agent-sandbox/exec.sock']);
    expect(lines.at(-1)).toBe(inode(other.metadata.uid ?? ''));
    expect(lines.at(-1)).not.toBe(inode(pod.metadata.uid ?? ''));
    await deletePod('nexe-other');
  }, 60_000);
});

describe('gVisor and host sockets (--host-uds=open, ADR 0040)', () => {
  let hostDir: string;
  let hostSocket: Server;
  let hostConnections = 0;
  beforeAll(async () => {
    // A host service's socket in a directory a hostPath volume can mount.
    hostDir = join(dir, 'host-dir');
    await mkdir(hostDir, { recursive: true });
    hostSocket = createServer((c) => {
      hostConnections++;
      c.end('host secret\n');
    });
    await new Promise<void>((r) => hostSocket.listen(join(hostDir, 'host.sock'), r));
  });
  afterAll(async () => {
    await new Promise((r) => hostSocket.close(r));
  });

  it('leaves no host socket in a sandbox on the daemon path but its exec socket', async () => {
    const name = 'nexe-gv-socks';
    await runningPod(name, {
      runtimeClassName: 'gvisor',
      volumes: [{ name: 'scratch', emptyDir: {} }],
      volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
    });
    await untilPath(name, 'daemon');
    // Every mount is the agent's own (root, emptyDir, pod files, the daemon's files, the socket
    // directory): the exec socket is the only socket file in the sandbox's tree.
    const found = await exec(name, ['sh', '-c', 'find / -type s 2>/dev/null | grep -v "^/proc/"']);
    expect(found.out.trim().split('\n')).toEqual(['/run/agent-sandbox/exec.sock']);
    await deletePod(name);
  }, 90_000);

  it('keeps runsc exec for a Pod with a hostPath volume, which cannot reach a host socket in it', async () => {
    const name = 'nexe-gv-host';
    const pod = await runningPod(name, {
      runtimeClassName: 'gvisor',
      volumes: [{ name: 'host', hostPath: { path: hostDir, type: 'Directory' } }],
      volumeMounts: [{ name: 'host', mountPath: '/host' }],
    });
    // The daemon runs, but its container has no exec socket: every exec is runsc exec.
    const before = await execCount('runtime', 'runsc');
    for (let i = 0; i < 3; i++)
      expect(await exec(name, ['sh', '-c', 'echo g'])).toMatchObject({
        path: 'runtime',
        out: 'g\n',
      });
    expect(await execCount('runtime', 'runsc')).toBe(before + 3);
    expect((await exec(name, ['ls', '/run/agent-sandbox'])).exit).not.toEqual({ exitCode: 0 });
    // Without --host-uds=open the host's socket in the volume is a file nobody answers on.
    const withDaemon = { ...pod, metadata: { ...pod.metadata, annotations: {} } };
    const node = (daemon.argv(withDaemon, { name: 'main', image: IMAGE }) ?? []).slice(0, 4);
    const dial = await exec(name, [
      ...node,
      '-e',
      `require('node:net').connect('/host/host.sock').on('connect', () => console.log('connected')).on('error', (e) => console.log(e.code))`,
    ]);
    expect(dial.out.trim()).toMatch(/^E[A-Z]+$/);
    expect(hostConnections).toBe(0);
    await deletePod(name);
  }, 90_000);
});

describe.each([
  { runtime: 'runc', runtimeClassName: undefined },
  { runtime: 'runsc', runtimeClassName: 'gvisor' },
])('real kubectl through the API server under $runtime', ({ runtime, runtimeClassName }) => {
  const name = `nexe-kubectl-${runtime}`;
  beforeAll(async () => {
    await runningPod(name, runtimeClassName ? { runtimeClassName } : {});
    await untilPath(name, 'daemon');
  }, 90_000);
  afterAll(() => deletePod(name));

  it('exec -it is a TTY session through the daemon: a tty whose size follows a resize', async () => {
    const before = await nodeExecCount('daemon', runtime);
    const pty = spawnPty('kubectl', ['exec', '-it', name, '--', 'sh'], {
      env: { ...process.env, KUBECONFIG: world.api.kubeconfigPath } as Record<string, string>,
      cols: 80,
      rows: 24,
    });
    let screen = '';
    pty.onData((d) => (screen += d));
    const exited = new Promise<number>((resolve) =>
      pty.onExit(({ exitCode }) => resolve(exitCode)),
    );
    await expect.poll(() => screen, { timeout: 15_000 }).toMatch(/# /);
    pty.write('tty; stty size\r');
    await expect.poll(() => screen, { timeout: 15_000 }).toMatch(/\/dev\/pts\/\d+\r?\n24 80/);
    // kubectl sees SIGWINCH and sends a resize; asked until the new size shows (it is async).
    pty.resize(100, 40);
    await expect
      .poll(
        () => {
          pty.write('stty size\r');
          return screen;
        },
        { timeout: 15_000, interval: 500 },
      )
      .toMatch(/40 100/);
    pty.write('exit 3\r');
    expect(await exited).toBe(3);
    expect(await nodeExecCount('daemon', runtime)).toBe(before + 1);
  }, 60_000);

  it('plain exec returns output, exit code and stdin', async () => {
    const r = await kubectl(
      ['exec', '-i', name, '--', 'sh', '-c', 'cat; echo err >&2; exit 4'],
      'in\n',
    );
    expect(r).toMatchObject({ stdout: 'in\n', code: 4 });
    expect(r.stderr).toMatch(/^err\n/);
  }, 60_000);
});

/** kubectl against the world's API server. */
function kubectl(
  args: string[],
  input?: string,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn('kubectl', args, {
      env: { ...process.env, KUBECONFIG: world.api.kubeconfigPath },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.end(input ?? '');
    child.once('close', (code) => resolve({ stdout, stderr, code }));
  });
}

/** The node streaming server's exec counter, read through nodes/proxy/metrics with kubectl. */
async function nodeExecCount(path: ExecPath, runtime: string): Promise<number> {
  const r = await kubectl(['get', '--raw', `/api/v1/nodes/${world.nodeName}/proxy/metrics`]);
  expect(r.code).toBe(0);
  const line = r.stdout
    .split('\n')
    .find((l) =>
      l.startsWith(`agent_sandbox_node_execs_total{path="${path}",runtime="${runtime}"} `),
    );
  return line ? Number(line.split(' ').at(-1)) : 0;
}

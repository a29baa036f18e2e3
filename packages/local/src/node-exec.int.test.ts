// ADR 0037 end to end: the node agent with the in-sandbox daemon injected (as `up` runs it) and
// the streaming server's backend over it. Under runc and bubblewrap an exec is a fork by the
// daemon: output, exit code and stdin as the runtime's exec gives them; from inside the exec'd
// process, namespaces, cgroup, seccomp mode, capability sets, user and cwd equal the container's
// primary process's (under bubblewrap the mount namespace is the nested bwrap's, as for its
// runtime exec). Kill the daemon and the runtime's exec answers the same. A hostile peer on
// the Pod's exec socket (garbage, an oversize frame, a bad exit code, silence) cannot crash the
// agent or hold an exec past the start deadline; another Pod does not see this Pod's socket.
// gVisor without --host-uds=open keeps `runsc exec`.
import { type KubeClient, PODS } from '@agent-sandbox/kube';
import type { KubeObject, Pod, PodSecurityContext } from '@agent-sandbox/kube-types';
import {
  ExecMetrics,
  type NodeAgent,
  podContainersBackend,
  type ExecPath,
  type PodDaemon,
  type StreamingBackend,
} from '@agent-sandbox/kubelet';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
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
/** Other suites run node agents at the same time: only these Pods' cgroups are ours to check. */
let podUids: string[] = [];

beforeAll(async () => {
  world = await startInjectedAgent('nexe');
  ({ client, agent, podUids } = world);
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
  expect(podUids.length).toBeGreaterThan(0);
  expect(leaks).toEqual([]);
});

interface PodExtra {
  runtimeClassName?: string;
  annotations?: Record<string, string>;
  securityContext?: PodSecurityContext;
  workingDir?: string;
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
      containers: [
        {
          name: 'main',
          image: IMAGE,
          command: ['sleep', '3600'],
          ...(extra.workingDir ? { workingDir: extra.workingDir } : {}),
        },
      ],
    },
  } as PodObject);
  podUids.push(created.metadata.uid ?? '');
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

/** Kills the daemon from inside the container (its cmdline names sandboxd.mjs; the pattern is
 * written so that this shell's own cmdline does not match it). */
const KILL_DAEMON = [
  'sh',
  '-c',
  'for p in /proc/[0-9]*; do grep -q "sandboxd[.]mjs" $p/cmdline 2>/dev/null && kill -9 ${p#/proc/}; done; true',
];

describe.each([
  { runtime: 'runc', runtimeClassName: undefined, user: 1000 },
  // Non-root under bubblewrap: the image has no /run, and bwrap would make it 0700 for the
  // socket's mount point (unreachable by uid 1000) unless told 0755, as runc makes it.
  { runtime: 'bubblewrap', runtimeClassName: 'bubblewrap', user: 1000 },
])('exec through the in-sandbox daemon under $runtime', ({ runtime, runtimeClassName, user }) => {
  const name = `nexe-${runtime}`;
  // Under bubblewrap every exec, the runtime's too, is a nested bwrap with a mount namespace
  // of its own (a copy of the container's): the daemon's forks share the one it started in.
  const sameMnt = (out: string) => (runtime === 'bubblewrap' ? out.replace(/^mnt .*\n/, '') : out);
  beforeAll(async () => {
    await runningPod(name, {
      ...(runtimeClassName ? { runtimeClassName } : {}),
      ...(user ? { securityContext: { runAsUser: user, runAsGroup: user } } : {}),
      workingDir: '/tmp',
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
    expect(self.out).toContain('Seccomp:\t2');
    expect(self.out).toMatch(/mnt mnt:\[\d+\]/);
    expect(sameMnt(self.out)).toBe(sameMnt(primary.out));
    expect(who.out).toBe(`${user}\n${user}\n/tmp\n`);
    // The socket's mount point is reachable by the container's user (not a 0700 /run).
    const run = await exec(name, ['stat', '-c', '%a %u', '/run']);
    expect(run.out).toBe('755 0\n');
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

describe('gVisor without --host-uds=open', () => {
  it('keeps runsc exec', async () => {
    await runningPod('nexe-gvisor', { runtimeClassName: 'gvisor' });
    // The daemon is up (it serves 8888) but has no socket to dial: every exec is runsc exec,
    // and the exec metric counts them as the runtime's.
    const before = await execCount('runtime', 'runsc');
    for (let i = 0; i < 3; i++)
      expect(await exec('nexe-gvisor', ['sh', '-c', 'echo g'])).toMatchObject({
        path: 'runtime',
        out: 'g\n',
      });
    expect(await execCount('runtime', 'runsc')).toBe(before + 3);
    expect(await execCount('daemon', 'runsc')).toBe(0);
    await deletePod('nexe-gvisor');
  }, 60_000);
});

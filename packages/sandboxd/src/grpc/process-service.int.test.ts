// process.v1.ProcessService against dataplane §4.2, driven by a real gRPC client generated from
// upstream's process.proto at test time; plus the re-attach extension.
import { access, mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFlags } from '../flags.ts';
import { withDefaults } from '../options.ts';
import { startTestDaemon, type TestDaemon } from '../testing/daemon.ts';
import { callUnary, collect, ourClient, upstreamProcessClient } from '../testing/grpc-clients.ts';

type Event = {
  event: string;
  init?: { process_id: number };
  stdout?: Buffer;
  stderr?: Buffer;
  exit?: { exit_code: number };
};
interface ExecRes {
  exit_code: number;
  stdout: Buffer;
  stderr: Buffer;
}

let d: TestDaemon;
let client: ReturnType<typeof upstreamProcessClient>;
const cfg = (command: string[], extra: object = {}) => ({ config: { command, ...extra } });
const sh = (script: string) => ['/bin/sh', '-c', script];
const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const text = (events: Event[], kind: 'stdout' | 'stderr') =>
  Buffer.concat(events.filter((e) => e[kind]).map((e) => e[kind]!)).toString();

beforeAll(async () => {
  d = await startTestDaemon({
    restPort: -1,
    legacyPort: -1,
    maxProcesses: 6,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', BASE: 'daemon' },
  });
  client = upstreamProcessClient(d.grpcAddress!);
  await mkdir(path.join(d.root, 'work'));
  await symlink(d.base, path.join(d.root, 'out'));
});
afterAll(async () => {
  client.close();
  await d.stop();
});

describe('Execute', () => {
  it('runs argv directly, buffers output, reports non-zero exits as results', async () => {
    const r = await callUnary<ExecRes>(
      client,
      'Execute',
      cfg(sh('echo out; echo err >&2; exit 7')),
    );
    expect([r.exit_code, r.stdout.toString(), r.stderr.toString()]).toEqual([7, 'out\n', 'err\n']);
  });
  it('uses the root as cwd, a confined cwd when given, and request env over the daemon env', async () => {
    const r = await callUnary<ExecRes>(
      client,
      'Execute',
      cfg(sh('pwd; echo $BASE $X'), { cwd: 'work', env_vars: { X: 'req', BASE: 'override' } }),
    );
    expect(r.stdout.toString()).toBe(`${path.join(d.root, 'work')}\noverride req\n`);
    const inherit = await callUnary<ExecRes>(client, 'Execute', cfg(sh('pwd; echo $BASE')));
    expect(inherit.stdout.toString()).toBe(`${d.root}\ndaemon\n`);
  });
  it('-1 for a signal-killed child', async () => {
    expect((await callUnary<ExecRes>(client, 'Execute', cfg(sh('kill -9 $$')))).exit_code).toBe(-1);
  });
  it.each([
    [[], grpc.status.INVALID_ARGUMENT, 'command is required'],
    [
      ['no-such-binary-q'],
      grpc.status.NOT_FOUND,
      'failed to execute command: command or path not found: no-such-binary-q',
    ],
  ])('refuses %j', async (command, code, details) => {
    await expect(callUnary(client, 'Execute', cfg(command))).rejects.toMatchObject({
      code,
      details,
    });
  });
  it('PERMISSION_DENIED for a cwd that escapes (.. or symlink)', async () => {
    for (const cwd of ['..', 'out']) {
      await expect(callUnary(client, 'Execute', cfg(['pwd'], { cwd }))).rejects.toMatchObject({
        code: grpc.status.PERMISSION_DENIED,
        details: 'cwd: path traversal outside sandbox root is forbidden',
      });
    }
  });
  it('a deadline kills the whole process tree', async () => {
    const marker = path.join(d.base, 'exec-marker');
    await expect(
      callUnary(client, 'Execute', cfg(sh(`(sleep 1.5; touch ${marker}) & sleep 5`)), {
        deadlineMs: 400,
      }),
    ).rejects.toMatchObject({ code: grpc.status.DEADLINE_EXCEEDED });
    await sleep(2000);
    expect(await exists(marker)).toBe(false);
  });
});

describe('the warm-up Start at daemon start', () => {
  it('leaves no trace: a fresh daemon lists no process and its first Start is process 1', async () => {
    const logged: string[] = [];
    const fresh = await startTestDaemon({
      restPort: -1,
      legacyPort: -1,
      log: (msg) => logged.push(msg),
    });
    const c = upstreamProcessClient(fresh.grpcAddress!);
    const session = ourClient(fresh.grpcAddress!, 'agentsandbox.sandboxd.v1.ProcessSessionService');
    try {
      await fresh.warmedUp;
      expect(logged).toEqual([]); // the warm-up Start succeeded
      const before = await callUnary<{ processes: unknown[] }>(session, 'List', {});
      expect(before.processes).toEqual([]);
      const first = await collect<Event>(
        c.Start(cfg(['true'])) as grpc.ClientReadableStream<Event>,
      );
      expect(first.events[0]!.init!.process_id).toBe(1);
      // The marker only ever counts once: a client sending it gets an ordinary, listed process.
      const md = new grpc.Metadata();
      md.set('x-sandboxd-warm-up', 'true');
      const marked = await collect<Event>(
        c.Start(cfg(['true']), md) as grpc.ClientReadableStream<Event>,
      );
      expect(marked.events[0]!.init!.process_id).toBe(2);
      const after = await callUnary<{ processes: { process_id: number }[] }>(session, 'List', {});
      expect(after.processes.map((p) => p.process_id).sort()).toEqual([1, 2]);
      expect(logged).toEqual([]); // an info daemon logs no Start timeline (--log-level debug)
    } finally {
      c.close();
      session.close();
      await fresh.stop();
    }
  });
});

describe("--log-level debug: each Start's timeline", () => {
  it('logs the Start received, then spawned and init sent with the process id, in ms', async () => {
    const lines: { msg: string; fields: Record<string, unknown> }[] = [];
    const debug = await startTestDaemon({
      restPort: -1,
      legacyPort: -1,
      logLevel: 'debug',
      log: (msg, fields) => lines.push({ msg, fields }),
    });
    const c = upstreamProcessClient(debug.grpcAddress!);
    try {
      await debug.warmedUp;
      const ran = await collect<Event>(c.Start(cfg(['true'])) as grpc.ClientReadableStream<Event>);
      const id = ran.events[0]!.init!.process_id;
      const mine = lines.filter((l) => l.fields['warmUp'] === undefined);
      expect(mine.map((l) => l.msg)).toEqual(['Start received', 'Start init sent']);
      expect(mine[0]!.fields).toEqual({ level: 'debug', call: 2, argv0: 'true' });
      const sent = mine[1]!.fields;
      expect(sent).toMatchObject({ level: 'debug', call: 2, process_id: id });
      expect(sent['spawnedMs']).toBeGreaterThanOrEqual(0);
      expect(sent['endedMs']).toBeGreaterThanOrEqual(sent['spawnedMs'] as number);
      // The warm-up Start is call 1, marked as such.
      expect(lines.filter((l) => l.fields['warmUp'] === true).map((l) => l.msg)).toEqual([
        'Start received',
        'Start init sent',
      ]);
    } finally {
      c.close();
      await debug.stop();
    }
  });

  it('logs an event loop held past 1 s with how late it was, and nothing at info', async () => {
    const lines: { msg: string; fields: Record<string, unknown> }[] = [];
    const quiet: string[] = [];
    const debug = await startTestDaemon({
      restPort: -1,
      legacyPort: -1,
      logLevel: 'debug',
      log: (msg, fields) => lines.push({ msg, fields }),
    });
    const info = await startTestDaemon({
      restPort: -1,
      legacyPort: -1,
      log: (msg) => quiet.push(msg),
    });
    try {
      const until = Date.now() + 1500;
      while (Date.now() < until); // the daemons' loop (this process's) is held
      await new Promise((r) => setTimeout(r, 600));
      const stalls = lines.filter((l) => l.msg === 'event loop stalled');
      expect(stalls.length).toBeGreaterThanOrEqual(1);
      expect(stalls[0]!.fields).toMatchObject({ level: 'debug' });
      expect(stalls[0]!.fields['lateMs']).toBeGreaterThanOrEqual(1000);
      expect(Date.parse(String(stalls[0]!.fields['since']))).toBeLessThan(until - 1000);
      expect(quiet).not.toContain('event loop stalled');
    } finally {
      await debug.stop();
      await info.stop();
    }
  });

  it('refuses another level, naming the flag', () => {
    expect(parseFlags(['--log-level', 'debug'])).toEqual({ logLevel: 'debug' });
    expect(() => withDefaults(parseFlags(['--log-level=trace']))).toThrow(
      'log level trace must be info or debug (--log-level)',
    );
  });
});

describe('Start', () => {
  it('streams init first, then output, then exit', async () => {
    const { events, error } = await collect<Event>(
      client.Start(cfg(sh('echo a; echo b >&2; exit 4'))) as grpc.ClientReadableStream<Event>,
    );
    expect(error).toBeUndefined();
    expect(events[0]!.event).toBe('init');
    expect(events[0]!.init!.process_id).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ event: 'exit', exit: { exit_code: 4 } });
    expect([text(events, 'stdout'), text(events, 'stderr')]).toEqual(['a\n', 'b\n']);
  });
  it('allocates increasing virtual ids and fails like Execute when the command cannot start', async () => {
    const a = await collect<Event>(client.Start(cfg(['true'])) as grpc.ClientReadableStream<Event>);
    const b = await collect<Event>(client.Start(cfg(['true'])) as grpc.ClientReadableStream<Event>);
    expect(b.events[0]!.init!.process_id).toBe(a.events[0]!.init!.process_id + 1);
    const bad = await collect<Event>(
      client.Start(cfg(['no-such-binary-q'])) as grpc.ClientReadableStream<Event>,
    );
    expect(bad.events).toEqual([]);
    expect(bad.error).toMatchObject({
      code: grpc.status.NOT_FOUND,
      details: 'failed to start command: command or path not found: no-such-binary-q',
    });
  });
  it('takes stdin through WriteStdin and closes it on eof', async () => {
    const stream = client.Start(cfg(['cat'])) as grpc.ClientReadableStream<Event>;
    const done = collect<Event>(stream);
    const id = await new Promise<number>((r) =>
      stream.once('data', (e: Event) => r(e.init!.process_id)),
    );
    await callUnary(client, 'WriteStdin', { process_id: id, input: Buffer.from('hello ') });
    await callUnary(client, 'WriteStdin', { process_id: id, input: Buffer.from('') });
    await callUnary(client, 'WriteStdin', { process_id: id, input: Buffer.from('world') });
    await callUnary(client, 'WriteStdin', { process_id: id, eof: {} });
    const { events } = await done;
    expect(text(events, 'stdout')).toBe('hello world');
    expect(events.at(-1)!.exit!.exit_code).toBe(0);
    await expect(
      callUnary(client, 'WriteStdin', { process_id: id, input: Buffer.from('x') }),
    ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND, details: `process ${id} not found` });
  });
  it('SendSignal reaches the process group; only INT, TERM and KILL are accepted', async () => {
    const marker = path.join(d.base, 'signal-marker');
    const stream = client.Start(
      cfg(sh(`(sleep 1.5; touch ${marker}) & sleep 30`)),
    ) as grpc.ClientReadableStream<Event>;
    const done = collect<Event>(stream);
    const id = await new Promise<number>((r) =>
      stream.once('data', (e: Event) => r(e.init!.process_id)),
    );
    await expect(
      callUnary(client, 'SendSignal', { process_id: id, signal: 1 }),
    ).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'unsupported or unspecified signal',
    });
    await expect(
      callUnary(client, 'SendSignal', { process_id: id, signal: 0 }),
    ).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    await callUnary(client, 'SendSignal', { process_id: id, signal: 15 });
    expect((await done).events.at(-1)!.exit!.exit_code).toBe(-1);
    await sleep(1800);
    expect(await exists(marker)).toBe(false);
    await callUnary(client, 'SendSignal', { process_id: id, signal: 9 }); // ended: a no-op
    await expect(
      callUnary(client, 'SendSignal', { process_id: 99999, signal: 9 }),
    ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });
  it('a cancelled Start kills the process group', async () => {
    const marker = path.join(d.base, 'cancel-marker');
    const stream = client.Start(
      cfg(sh(`sleep 1; touch ${marker}`)),
    ) as grpc.ClientReadableStream<Event>;
    const done = collect<Event>(stream);
    await new Promise((r) => stream.once('data', r));
    stream.cancel();
    expect((await done).error?.code).toBe(grpc.status.CANCELLED);
    await sleep(1500);
    expect(await exists(marker)).toBe(false);
  });
  it('refuses a flood of processes with RESOURCE_EXHAUSTED and serves again afterwards', async () => {
    const streams = Array.from(
      { length: 6 },
      () => client.Start(cfg(['sleep', '30'])) as grpc.ClientReadableStream<Event>,
    );
    const ends = streams.map((s) => collect<Event>(s));
    await Promise.all(streams.map((s) => new Promise((r) => s.once('data', r))));
    await expect(callUnary(client, 'Execute', cfg(['true']))).rejects.toMatchObject({
      code: grpc.status.RESOURCE_EXHAUSTED,
      details: expect.stringContaining('too many running processes (limit 6'),
    });
    const over = await collect<Event>(
      client.Start(cfg(['true'])) as grpc.ClientReadableStream<Event>,
    );
    expect(over.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    streams.forEach((s) => s.cancel());
    await Promise.all(ends);
    await sleep(300);
    expect((await callUnary<ExecRes>(client, 'Execute', cfg(['true']))).exit_code).toBe(0);
  });
});

describe('PTY', () => {
  it('gives the command a terminal of the requested size; ResizeTTY changes it', async () => {
    const stream = client.Start({
      ...cfg(sh('tty; stty size; read x; stty size')),
      pty: { cols: 100, rows: 30 },
    }) as grpc.ClientReadableStream<Event>;
    const done = collect<Event>(stream);
    const id = await new Promise<number>((r) =>
      stream.once('data', (e: Event) => r(e.init!.process_id)),
    );
    await sleep(300);
    await callUnary(client, 'ResizeTTY', { process_id: id, cols: 120, rows: 40 });
    await callUnary(client, 'WriteStdin', { process_id: id, input: Buffer.from('\n') });
    const { events } = await done;
    const out = text(events, 'stdout');
    expect(out).toMatch(/\/dev\/pts\/\d+\r\n30 100\r\n/);
    expect(out).toMatch(/40 120\r\n$/);
    expect(text(events, 'stderr')).toBe('');
    expect(events.at(-1)!.exit!.exit_code).toBe(0);
  });
  it('ResizeTTY: FAILED_PRECONDITION without a PTY, NOT_FOUND for unknown ids', async () => {
    const stream = client.Start(cfg(['sleep', '5'])) as grpc.ClientReadableStream<Event>;
    const done = collect<Event>(stream);
    const id = await new Promise<number>((r) =>
      stream.once('data', (e: Event) => r(e.init!.process_id)),
    );
    await expect(
      callUnary(client, 'ResizeTTY', { process_id: id, cols: 1, rows: 1 }),
    ).rejects.toMatchObject({
      code: grpc.status.FAILED_PRECONDITION,
      details: expect.stringMatching(/^failed to resize TTY: /),
    });
    await expect(
      callUnary(client, 'ResizeTTY', { process_id: 424242, cols: 1, rows: 1 }),
    ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    stream.cancel();
    await done;
  });
});

describe('beyond upstream: detach, re-attach, output after the end', () => {
  it('a detached Start survives the client; Attach replays from an offset; Inspect reads the end', async () => {
    const meta = new grpc.Metadata();
    meta.set('x-sandboxd-detach', 'true');
    const stream = client.Start(
      cfg(sh('echo first; sleep 0.6; echo second; exit 3')),
      meta,
    ) as grpc.ClientReadableStream<Event>;
    const seen: Event[] = [];
    const done = collect<Event>(stream);
    stream.on('data', (e: Event) => seen.push(e));
    await sleep(300);
    stream.cancel();
    await done;
    const id = seen[0]!.init!.process_id;
    expect(text(seen, 'stdout')).toBe('first\n');
    const session = ourClient(d.grpcAddress!, 'agentsandbox.sandboxd.v1.ProcessSessionService');
    const attached = await collect<Event>(
      session.Attach({
        process_id: id,
        stdout_offset: 6,
        stderr_offset: 0,
      }) as grpc.ClientReadableStream<Event>,
    );
    expect(text(attached.events, 'stdout')).toBe('second\n');
    expect(attached.events.at(-1)!.exit!.exit_code).toBe(3);
    const info = await callUnary<{
      running: boolean;
      exit_code: number;
      stdout: Buffer;
      command: string[];
    }>(session, 'Inspect', { process_id: id });
    expect([info.running, info.exit_code, info.stdout.toString()]).toEqual([
      false,
      3,
      'first\nsecond\n',
    ]);
    const again = await collect<Event>(
      session.Attach({
        process_id: id,
        stdout_offset: 0,
        stderr_offset: 0,
      }) as grpc.ClientReadableStream<Event>,
    );
    expect(text(again.events, 'stdout')).toBe('first\nsecond\n');
    const list = await callUnary<{ processes: { process_id: number }[] }>(session, 'List', {});
    expect(list.processes.map((p) => p.process_id)).toContain(id);
    await expect(callUnary(session, 'Inspect', { process_id: 777777 })).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
    });
    session.close();
  });
});

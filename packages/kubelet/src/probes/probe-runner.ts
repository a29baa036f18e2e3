// One probe attempt (kubelet-and-oci §2.4): exec inside the container, a TCP connect, or an HTTP
// GET (200–399 passes). With no `host` and no pod IP (the loopback network) the connection is
// made to 127.0.0.1 inside the pod's network namespace, which is where the pod IP would lead.
import type { ContainerPort, Probe } from '@agent-sandbox/kube-types';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { HostCommand } from '../runtime/container-runtime.ts';
import { dialInNetns } from '../streaming/netns-dial.ts';

export interface ProbeTarget {
  /** The host command running argv in the container (runtime.execCommand). */
  exec(argv: readonly string[]): HostCommand;
  podIP: string;
  netnsPath: string;
  ports: readonly ContainerPort[];
}

export interface ProbeOutcome {
  ok: boolean;
  message: string;
}

function resolvePort(port: number | string, ports: readonly ContainerPort[]): number {
  if (typeof port === 'number') return port;
  const named = ports.find((p) => p.name === port)?.containerPort;
  if (named !== undefined) return named;
  if (/^\d+$/.test(port)) return Number(port);
  throw new Error(`port "${port}" names no containerPort of this container`);
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<T>(
      (_, reject) =>
        (t = setTimeout(() => reject(new Error(`${what}: timeout after ${ms}ms`)), ms)),
    ),
  ]).finally(() => clearTimeout(t));
}

/**
 * How long the netns relay (a Node process) may take to start before its connect is timed: the
 * probe's timeout is the connection's, as kubelet's is, not our helper's start on a loaded machine.
 */
const RELAY_START_MS = 10_000;

function connectTo(
  host: string | undefined,
  port: number,
  t: ProbeTarget,
  ms: number,
): Promise<Duplex> {
  const to = host ?? t.podIP;
  if (!to) return dialInNetns(t.netnsPath, port, { connectTimeoutMs: ms });
  return new Promise<Socket>((resolve, reject) => {
    const s = connect({ host: to, port });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

/**
 * A connection within `ms`; one that lands later is closed. Errors after connecting (a destroyed
 * relay reports AbortError) are the caller's through its own listeners, never uncaught.
 */
async function dial(
  host: string | undefined,
  port: number,
  t: ProbeTarget,
  ms: number,
): Promise<Duplex> {
  let late = false;
  const relayed = !(host ?? t.podIP);
  const pending = connectTo(host, port, t, ms).then((s) => {
    s.on('error', () => undefined);
    if (late) s.destroy();
    return s;
  });
  try {
    return await withTimeout(pending, relayed ? ms + RELAY_START_MS : ms, 'connect');
  } catch (e) {
    late = true;
    throw e;
  }
}

function runExec(cmd: HostCommand, timeoutMs: number): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const child = spawn(cmd.file, cmd.args, { env: cmd.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const keep = (b: Buffer) => (out = (out + b.toString()).slice(-1024));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (e) => resolve({ ok: false, message: e.message }));
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        ok: code === 0,
        message: signal
          ? `command timed out after ${timeoutMs}ms`
          : `exit code ${code}: ${out.trim()}`,
      });
    });
  });
}

async function runHttp(
  p: NonNullable<Probe['httpGet']>,
  t: ProbeTarget,
  timeoutMs: number,
): Promise<ProbeOutcome> {
  const port = resolvePort(p.port, t.ports);
  if ((p.scheme ?? 'HTTP').toUpperCase() !== 'HTTP')
    return {
      ok: false,
      message: `httpGet.scheme ${p.scheme}: only HTTP is supported by this node`,
    };
  const socket = await dial(p.host, port, t, timeoutMs);
  const headers: Record<string, string> = { 'User-Agent': 'kube-probe/1.30', Accept: '*/*' };
  for (const h of p.httpHeaders ?? []) headers[h.name] = h.value;
  const status = await withTimeout(
    new Promise<number>((resolve, reject) => {
      const req = request(
        {
          path: p.path || '/',
          headers,
          host: p.host ?? (t.podIP || '127.0.0.1'),
          port,
          createConnection: () => socket as Socket,
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.once('error', reject);
      req.end();
    }),
    timeoutMs,
    'GET',
  ).finally(() => socket.destroy());
  return { ok: status >= 200 && status < 400, message: `HTTP probe returned ${status}` };
}

/** Runs the probe once; never throws (errors are failed outcomes with the reason). */
export async function runProbe(p: Probe, timeoutMs: number, t: ProbeTarget): Promise<ProbeOutcome> {
  try {
    if (p.exec) return await runExec(t.exec(p.exec.command ?? []), timeoutMs);
    if (p.httpGet) return await runHttp(p.httpGet, t, timeoutMs);
    if (p.tcpSocket) {
      const s = await dial(p.tcpSocket.host, resolvePort(p.tcpSocket.port, t.ports), t, timeoutMs);
      s.destroy();
      return { ok: true, message: 'connected' };
    }
    return { ok: false, message: 'probe has no handler' };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

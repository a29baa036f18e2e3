// Parses the node streaming server's URLs and query parameters (pure). Paths are the kubelet's:
// /exec|/attach/{ns}/{pod}[/{uid}]/{container}, /portForward/{ns}/{pod}[/{uid}],
// /containerLogs/{ns}/{pod}/{container}. Query names follow the kubelet (`input`, `output`,
// `error`, `tty`) and also accept the API server's names (`stdin`, `stdout`, `stderr`).
import { KubeletError } from '../errors.ts';
import type { ContainerTarget, PodTarget, StreamSelection } from './backend.ts';

export type StreamingRoute =
  | { kind: 'exec'; target: ContainerTarget; command: string[]; streams: StreamSelection }
  | { kind: 'attach'; target: ContainerTarget; streams: StreamSelection }
  | { kind: 'portForward'; target: PodTarget; ports: number[] }
  | { kind: 'containerLogs'; target: ContainerTarget; log: LogOptions };

export interface LogOptions {
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines?: number;
  limitBytes?: number;
  /** Lines older than this (ms since the epoch) are dropped; from sinceSeconds or sinceTime. */
  sinceMs?: number;
}

/** Kube's query booleans: absent, `0` or `false` (any case) are false; anything else is true. */
export function queryBool(query: URLSearchParams, ...names: string[]): boolean {
  for (const name of names) {
    const v = query.get(name);
    if (v !== null) return !/^(0|false)$/i.test(v);
  }
  return false;
}

function segments(pathname: string): string[] {
  return pathname
    .split('/')
    .filter((s) => s !== '')
    .map((s) => decodeURIComponent(s));
}

function streamSelection(query: URLSearchParams): StreamSelection {
  const tty = queryBool(query, 'tty');
  const selection = {
    stdin: queryBool(query, 'input', 'stdin'),
    stdout: queryBool(query, 'output', 'stdout'),
    // A terminal merges stderr into stdout (kubelet's remotecommand options).
    stderr: !tty && queryBool(query, 'error', 'stderr'),
    tty,
  };
  if (!selection.stdin && !selection.stdout && !queryBool(query, 'error', 'stderr'))
    throw new KubeletError(
      'InvalidArgument',
      'you must specify at least 1 of stdin, stdout, stderr',
    );
  return selection;
}

function containerTarget(parts: string[], path: string): ContainerTarget {
  // {ns}/{pod}/{container} or {ns}/{pod}/{uid}/{container}
  if (parts.length !== 3 && parts.length !== 4)
    throw new KubeletError('NotFound', `no streaming endpoint at ${path}`);
  const [namespace, pod] = parts as [string, string];
  const container = parts[parts.length - 1] as string;
  return parts.length === 4
    ? { namespace, pod, uid: parts[2] as string, container }
    : { namespace, pod, container };
}

function integer(query: URLSearchParams, name: string, min: number): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n))
    throw new KubeletError(
      'InvalidArgument',
      `${name}: invalid value "${raw}": must be an integer`,
    );
  if (n < min)
    throw new KubeletError(
      'InvalidArgument',
      `${name}: Invalid value: ${n}: must be greater than ${min === 0 ? 'or equal to 0' : min - 1}`,
    );
  return n;
}

/** Parses the log query parameters with the API's PodLogOptions validation. */
export function parseLogOptions(query: URLSearchParams, nowMs: number): LogOptions {
  const options: LogOptions = {
    follow: queryBool(query, 'follow'),
    previous: queryBool(query, 'previous'),
    timestamps: queryBool(query, 'timestamps'),
  };
  const tailLines = integer(query, 'tailLines', 0);
  const limitBytes = integer(query, 'limitBytes', 1);
  const sinceSeconds = integer(query, 'sinceSeconds', 1);
  const sinceTime = query.get('sinceTime');
  if (sinceSeconds !== undefined && sinceTime !== null && sinceTime !== '')
    throw new KubeletError(
      'InvalidArgument',
      'at most one of `sinceTime` or `sinceSeconds` may be specified',
    );
  if (tailLines !== undefined) options.tailLines = tailLines;
  if (limitBytes !== undefined) options.limitBytes = limitBytes;
  if (sinceSeconds !== undefined) options.sinceMs = nowMs - sinceSeconds * 1000;
  if (sinceTime !== null && sinceTime !== '') {
    const t = Date.parse(sinceTime);
    if (Number.isNaN(t))
      throw new KubeletError(
        'InvalidArgument',
        `sinceTime: invalid value "${sinceTime}": must be an RFC 3339 time`,
      );
    options.sinceMs = t;
  }
  return options;
}

function ports(query: URLSearchParams): number[] {
  // `ports` may repeat or be a comma list (PodPortForwardOptions); used only by the WebSocket protocol.
  const values = query.getAll('ports').flatMap((v) => v.split(','));
  return values
    .filter((v) => v.trim() !== '')
    .map((v) => {
      const n = Number(v.trim());
      if (!Number.isInteger(n) || n < 1 || n > 65535)
        throw new KubeletError(
          'InvalidArgument',
          `invalid port "${v}": must be an integer between 1 and 65535`,
        );
      return n;
    });
}

/** Maps a streaming URL to what it asks for; throws KubeletError BadRequest/NotFound. */
export function parseStreamingRoute(url: URL, nowMs: number): StreamingRoute {
  const [kind, ...rest] = segments(url.pathname);
  const q = url.searchParams;
  switch (kind) {
    case 'exec': {
      const target = containerTarget(rest, url.pathname);
      const command = q.getAll('command');
      if (command.length === 0)
        throw new KubeletError(
          'InvalidArgument',
          'you must specify at least one command for the container',
        );
      return { kind, target, command, streams: streamSelection(q) };
    }
    case 'attach':
      return { kind, target: containerTarget(rest, url.pathname), streams: streamSelection(q) };
    case 'portForward': {
      if (rest.length !== 2 && rest.length !== 3)
        throw new KubeletError('NotFound', `no streaming endpoint at ${url.pathname}`);
      const [namespace, pod, uid] = rest as [string, string, string | undefined];
      const target: PodTarget = uid === undefined ? { namespace, pod } : { namespace, pod, uid };
      return { kind, target, ports: ports(q) };
    }
    case 'containerLogs': {
      if (rest.length !== 3)
        throw new KubeletError('NotFound', `no streaming endpoint at ${url.pathname}`);
      return { kind, target: containerTarget(rest, url.pathname), log: parseLogOptions(q, nowMs) };
    }
    default:
      throw new KubeletError('NotFound', `no streaming endpoint at ${url.pathname}`);
  }
}

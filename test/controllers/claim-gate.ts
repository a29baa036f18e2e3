// A gate between the manager child process and the API server that lets a test force the
// interleavings a claim storm only finds by luck: it can hold one write (the manager is SIGKILLed
// while its request is in flight; the test lets the request land later, as a dead process's write
// does, or another writer gets in first and the held write is answered late with its 409), fail
// one write the way an overloaded server does (503, never sent on), pause watch streams right
// after a chosen event (the manager's caches lag its own writes), and it logs every write with
// the server's answer.
import type { KubeConfig } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, listenWithKubeconfig, upstreamRequest } from './namespace-proxy.ts';

export interface GateWrite {
  method: string;
  path: string;
  /** metadata.name of the request body, when it has one. */
  name?: string;
  /** The server's status code (0 while unanswered). */
  status: number;
  /** The request body, when it is a JSON object. */
  body?: KubeObject;
  /** The request body byte for byte (what a raw-patch test compares). */
  raw: string;
  /** The request's Content-Type header. */
  contentType?: string;
}

export interface HoldOptions {
  /** Only a request whose raw body matches is held. */
  body?: RegExp;
  /**
   * Pass the server's answer back to the manager on release (a slow request, not a dead
   * process's): the manager sees the outcome, a 409 included, and carries on.
   */
  answer?: boolean;
}

export interface HeldRequest {
  /** Resolves once a matching request arrived; it is held, not sent. */
  readonly arrived: Promise<GateWrite>;
  /** Sends the held request; resolves with the server's status code. */
  release(): Promise<number>;
}

export interface FailOptions {
  /** Only a request whose raw body matches fails. */
  body?: RegExp;
  /** The HTTP status of the answer. @default 503 */
  code?: number;
}

export interface FailedRequest {
  /** Resolves with the request once it was answered with the failure (never sent upstream). */
  readonly failed: Promise<GateWrite>;
}

export interface WatchPause {
  /** Resolves once the trigger event went through and matching watches stopped delivering. */
  readonly paused: Promise<void>;
  /** Delivers what was held back and lets events flow again. */
  resume(): void;
}

export interface ClaimGate {
  kubeconfigPath: string;
  readonly writes: readonly GateWrite[];
  /** Holds the next request of `method` whose path (and body, see HoldOptions) matches. */
  holdNext(method: string, path: RegExp, options?: HoldOptions): HeldRequest;
  /**
   * Answers the next matching request with a Status failure without sending it on: the API
   * server's transient failures (an etcd timeout, an overloaded server) on one chosen write.
   */
  failNext(method: string, path: RegExp, options?: FailOptions): FailedRequest;
  /** After `trigger` matches an event of a watch whose path matches, pauses all such watches. */
  pauseWatchesAfter(path: RegExp, trigger: (event: WatchLine) => boolean): WatchPause;
  /** Pauses every watch whose path matches from now on (the trigger is the call itself). */
  pauseWatches(path: RegExp): WatchPause;
  close(): Promise<void>;
}

export interface WatchLine {
  type: string;
  object: KubeObject;
}

interface Hold extends HoldOptions {
  method: string;
  path: RegExp;
  taken: boolean;
  arrive: (w: GateWrite) => void;
  send?: () => Promise<number>;
  sent?: (send: () => Promise<number>) => void;
}

interface Failure extends FailOptions {
  method: string;
  path: RegExp;
  taken: boolean;
  fail: (w: GateWrite) => void;
}

interface Pause {
  path: RegExp;
  trigger: (event: WatchLine) => boolean;
  state: 'armed' | 'paused' | 'resumed';
  onPaused: () => void;
  held: { res: ServerResponse; line: string }[];
}

export async function startClaimGate(
  upstream: KubeConfig,
  namespace: string,
  dir: string,
): Promise<ClaimGate> {
  const writes: GateWrite[] = [];
  const holds: Hold[] = [];
  const failures: Failure[] = [];
  const pauses: Pause[] = [];

  const deliver = (path: string, res: ServerResponse, line: string): void => {
    const mine = pauses.filter((p) => p.state !== 'resumed' && p.path.test(path));
    if (mine.some((p) => p.state === 'paused')) {
      mine.find((p) => p.state === 'paused')?.held.push({ res, line });
      return;
    }
    res.write(line);
    let event: WatchLine | undefined;
    try {
      event = JSON.parse(line) as WatchLine;
    } catch {
      return;
    }
    for (const p of mine) {
      if (p.state === 'armed' && p.trigger(event)) {
        p.state = 'paused';
        p.onPaused();
      }
    }
  };

  const pipeWatch = (path: string, answer: IncomingMessage, res: ServerResponse): void => {
    let partial = '';
    answer.setEncoding('utf8');
    answer.on('data', (chunk: string) => {
      partial += chunk;
      for (let nl = partial.indexOf('\n'); nl >= 0; nl = partial.indexOf('\n')) {
        deliver(path, res, partial.slice(0, nl + 1));
        partial = partial.slice(nl + 1);
      }
    });
    answer.on('end', () => res.end(partial));
  };

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer[]): void => {
    const path = req.url ?? '/';
    const watch = req.method === 'GET' && /[?&]watch=(1|true)/.test(path);
    if (watch) delete req.headers['accept-encoding'];
    const write = req.method === 'GET' ? undefined : logWrite(req, body);
    const out = upstreamRequest(upstream, req, path, (answer) => {
      if (write !== undefined) write.status = answer.statusCode ?? 0;
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (watch) pipeWatch(path, answer, res);
      else answer.pipe(res);
    });
    res.on('close', () => out.destroy());
    out.on('error', () => res.destroy());
    out.end(Buffer.concat(body));
  };

  const logWrite = (req: IncomingMessage, body: Buffer[]): GateWrite => {
    const raw = Buffer.concat(body).toString();
    const write: GateWrite = { method: req.method ?? '', path: req.url ?? '/', status: 0, raw };
    const contentType = req.headers['content-type'];
    if (contentType !== undefined) write.contentType = contentType;
    try {
      const parsed = JSON.parse(raw) as KubeObject;
      write.body = parsed;
      const name = parsed.metadata?.name;
      if (name !== undefined) write.name = name;
    } catch {
      // not a JSON object body (a delete, a patch list)
    }
    writes.push(write);
    return write;
  };

  const hold = (h: Hold, req: IncomingMessage, res: ServerResponse, body: Buffer[]): void => {
    h.taken = true;
    const write = logWrite(req, body);
    // Sent on release even when the manager is long dead: nothing ties it to the client socket.
    h.send = () =>
      new Promise<number>((resolve, reject) => {
        const out = upstreamRequest(upstream, req, write.path, (answer) => {
          write.status = answer.statusCode ?? 0;
          if (h.answer === true && !res.destroyed) {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          } else {
            answer.resume();
          }
          resolve(write.status);
        });
        out.on('error', reject);
        out.end(Buffer.concat(body));
      });
    h.sent?.(h.send);
    h.arrive(write);
  };

  const fail = (f: Failure, req: IncomingMessage, res: ServerResponse, body: Buffer[]): void => {
    f.taken = true;
    const write = logWrite(req, body);
    write.status = f.code ?? 503;
    res.writeHead(write.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(failureStatus(write.status)));
    f.fail(write);
  };

  const server = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(body).toString();
      const matches = (x: { taken: boolean; method: string; path: RegExp; body?: RegExp }) =>
        !x.taken &&
        x.method === req.method &&
        x.path.test(req.url ?? '/') &&
        (x.body === undefined || x.body.test(raw));
      const f = failures.find(matches);
      const h = f === undefined ? holds.find(matches) : undefined;
      if (f !== undefined) fail(f, req, res, body);
      else if (h !== undefined) hold(h, req, res, body);
      else forward(req, res, body);
    });
  });
  const kubeconfigPath = await listenWithKubeconfig(server, dir, 'claim-gate', namespace);
  return {
    kubeconfigPath,
    writes,
    holdNext: (method, path, options = {}) => {
      let arrive!: (w: GateWrite) => void;
      const arrived = new Promise<GateWrite>((r) => (arrive = r));
      const h: Hold = { ...options, method, path, taken: false, arrive };
      const sendable = new Promise<() => Promise<number>>((r) => (h.sent = r));
      holds.push(h);
      return { arrived, release: async () => (await sendable)() };
    },
    failNext: (method, path, options = {}) => {
      let fail!: (w: GateWrite) => void;
      const failed = new Promise<GateWrite>((r) => (fail = r));
      failures.push({ ...options, method, path, taken: false, fail });
      return { failed };
    },
    pauseWatchesAfter: (path, trigger) => addPause(pauses, path, trigger, 'armed'),
    pauseWatches: (path) => addPause(pauses, path, () => false, 'paused'),
    close: () => closeServer(server),
  };
}

/** What kube-apiserver answers when etcd does not (the shape every client decodes). */
function failureStatus(code: number): KubeObject & Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Status',
    metadata: {},
    status: 'Failure',
    message: 'etcdserver: request timed out',
    reason: code === 503 ? 'ServiceUnavailable' : 'InternalError',
    code,
  };
}

function addPause(
  pauses: Pause[],
  path: RegExp,
  trigger: (event: WatchLine) => boolean,
  state: 'armed' | 'paused',
): WatchPause {
  let onPaused!: () => void;
  const paused = new Promise<void>((r) => (onPaused = r));
  const p: Pause = { path, trigger, state, onPaused, held: [] };
  pauses.push(p);
  if (state === 'paused') onPaused();
  return {
    paused,
    resume: () => {
      p.state = 'resumed';
      for (const { res, line } of p.held.splice(0)) if (!res.writableEnded) res.write(line);
    },
  };
}

// The namespace gateway's part for a manager that sees several namespaces (claim-namespaces.ts):
// kube-apiserver has no multi-namespace list or watch, so one cluster-wide GET becomes one per
// namespace. A list reads the first namespace, then the others at exactly its resourceVersion
// (one consistent snapshot, one page); a watch interleaves the namespaces' streams line by line
// and drops bookmarks (one stream's bookmark could carry the informer past another's events).
// The merged watch ends when every stream ended (the informer gives them all one timeoutSeconds,
// so they end together; ending at the first would cut events the others were still sending),
// or at the first error, which it says: a refused watch (410, 403) is the whole answer, and a
// stream broken after the start ends the merged one with an ERROR event naming the namespace.
// Either end is 410 Expired instead when a namespace's stream is behind the last event written
// (MergedWatch): watching again from that event would skip the namespace's events in between.
// Our API server sends no bookmark before a watch's timeout, so after a timeout with events in
// one namespace later than the other's last, the informer lists again (cheap, and never wrong).
import type { KubeConfig } from '@agent-sandbox/kube';
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import { scopePath, upstreamRequest } from './namespace-proxy.ts';

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** The request's headers, without compression (the gateway reads the bodies). */
const plain = (req: IncomingMessage): Pick<IncomingMessage, 'headers' | 'method'> => ({
  method: 'GET',
  headers: { ...req.headers, 'accept-encoding': 'identity' },
});

function get(upstream: KubeConfig, req: IncomingMessage, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const out = upstreamRequest(upstream, plain(req), path, (answer) => {
      let body = '';
      answer.setEncoding('utf8');
      answer.on('data', (d: string) => (body += d));
      answer.on('end', () =>
        resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body }),
      );
      answer.on('error', reject);
    });
    out.on('error', reject);
    out.end();
  });
}

/** `path` scoped to `ns`, its paging removed and `extra` query parameters set. */
function scoped(path: string, ns: string, extra: Record<string, string> = {}): string {
  const url = new URL(scopePath(path, ns), 'http://gateway');
  url.searchParams.delete('limit');
  url.searchParams.delete('continue');
  for (const [k, v] of Object.entries(extra)) url.searchParams.set(k, v);
  return `${url.pathname}${url.search}`;
}

function send(res: ServerResponse, a: Answer): void {
  res.writeHead(a.status, { 'content-type': a.headers['content-type'] ?? 'application/json' });
  res.end(a.body);
}

async function list(
  upstream: KubeConfig,
  req: IncomingMessage,
  res: ServerResponse,
  namespaces: readonly string[],
): Promise<void> {
  const [first, ...rest] = namespaces;
  const head = await get(upstream, req, scoped(req.url ?? '/', first ?? ''));
  if (head.status !== 200) return send(res, head);
  const merged = JSON.parse(head.body) as {
    metadata: { resourceVersion: string };
    items: unknown[];
  };
  const at = { resourceVersion: merged.metadata.resourceVersion, resourceVersionMatch: 'Exact' };
  for (const ns of rest) {
    const page = await get(upstream, req, scoped(req.url ?? '/', ns, at));
    if (page.status !== 200) return send(res, page);
    merged.items.push(...(JSON.parse(page.body) as { items: unknown[] }).items);
  }
  send(res, { ...head, body: JSON.stringify(merged) });
}

/** One namespace's stream of a merged watch: its name and its scoped request path. */
export interface WatchPart {
  namespace: string;
  path: string;
}

/** A kube Status line of `code` and `reason` for `message`. */
function status(code: number, reason: string, message: string): string {
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    message,
    reason,
    code,
  });
}

/** A kube Status (500, as kube-apiserver ends a watch it cannot go on with) for `message`. */
const failure = (message: string): string => status(500, 'InternalError', message);

/** A watch line's type and resourceVersion; an empty object for one that does not parse. */
function lineFacts(line: string): { type?: unknown; rv?: unknown } {
  try {
    const ev = JSON.parse(line) as {
      type?: unknown;
      object?: { metadata?: { resourceVersion?: unknown } };
    };
    return { type: ev.type, rv: ev.object?.metadata?.resourceVersion };
  } catch {
    return {};
  }
}

/**
 * A resourceVersion as a number to compare: both servers this gateway fronts (kube-apiserver on
 * etcd, our SQLite store) give one decimal revision counter for every namespace. Anything else
 * (or "0") is undefined: no order is known, and an end after such an event checks nothing.
 */
function revision(rv: unknown): bigint | undefined {
  return typeof rv === 'string' && /^[1-9]\d*$/.test(rv) ? BigInt(rv) : undefined;
}

/**
 * Serves one watch over `parts` (each a namespace's watch on the upstream): once every part
 * answered 200, their complete lines in arrival order, bookmarks dropped; see the header for
 * how it ends.
 */
export function mergeWatch(
  upstream: KubeConfig,
  req: IncomingMessage,
  res: ServerResponse,
  parts: readonly WatchPart[],
): void {
  new MergedWatch(res, parts, new URL(req.url ?? '/', 'http://gateway')).open(upstream, req);
}

/**
 * The state of one merged watch. The client watches again from the resourceVersion of the last
 * event it got, as if that were one stream's; but the parts' streams only each run in order: an
 * event of namespace A can still be to come (A's stream ended or lags) when B's later one was
 * written. So each part's progress (its last event or bookmark) is kept, and a merged watch that
 * ends with a part behind the last event written ends with 410 Expired: the client lists again
 * instead of watching on past A's event (which it would never see).
 */
class MergedWatch {
  readonly #res: ServerResponse;
  readonly #parts: readonly WatchPart[];
  readonly #outs: ClientRequest[] = [];
  readonly #answers: [IncomingMessage, WatchPart][] = [];
  /** Per namespace: the resourceVersion its stream has sent everything up to. */
  readonly #progress = new Map<string, bigint | undefined>();
  /** The last event's resourceVersion: where the client watches again from. */
  #resume: bigint | undefined;
  #open: number;
  #done = false;

  constructor(res: ServerResponse, parts: readonly WatchPart[], url: URL) {
    this.#res = res;
    this.#parts = parts;
    this.#open = parts.length;
    const from = revision(url.searchParams.get('resourceVersion'));
    for (const p of parts) this.#progress.set(p.namespace, from);
    this.#resume = from;
  }

  open(upstream: KubeConfig, req: IncomingMessage): void {
    for (const part of this.#parts) {
      const out = upstreamRequest(upstream, plain(req), part.path, (a) => this.#answered(a, part));
      out.on('error', (e) =>
        this.#fail(500, failure(`watch of namespace ${part.namespace}: ${e.message}`)),
      );
      out.end();
      this.#outs.push(out);
    }
    this.#res.on('close', () => {
      this.#done = true;
      for (const o of this.#outs) o.destroy();
    });
  }

  /** The first part behind the client's resume point, if any. */
  #behind(): string | undefined {
    const resume = this.#resume;
    if (resume === undefined) return undefined;
    for (const [ns, at] of this.#progress) if (at === undefined || at < resume) return ns;
    return undefined;
  }

  #finish(last?: string): void {
    if (this.#done) return;
    this.#done = true;
    const behind = this.#res.headersSent ? this.#behind() : undefined;
    const line =
      behind === undefined
        ? last
        : `{"type":"ERROR","object":${status(410, 'Expired', `the merged watch went past namespace ${behind}'s stream: list again`)}}`;
    if (line !== undefined) this.#res.write(`${line}\n`);
    this.#res.end();
    for (const o of this.#outs) o.destroy();
  }

  /** A part broke or was refused: its answer when nothing was sent yet, else an ERROR event. */
  #fail(code: number, body: string): void {
    if (this.#done) return;
    if (this.#res.headersSent) return this.#finish(`{"type":"ERROR","object":${body}}`);
    this.#res.writeHead(code, { 'content-type': 'application/json' });
    this.#finish(body);
  }

  #emit(line: string, part: WatchPart): void {
    if (this.#done || line.trim() === '') return;
    const { type, rv } = lineFacts(line);
    if (type === 'ERROR') return this.#finish(line); // the upstream's own error ends the watch
    const at = revision(rv);
    if (at !== undefined) this.#progress.set(part.namespace, at);
    if (type === 'BOOKMARK') return;
    this.#resume = at;
    this.#res.write(`${line}\n`);
  }

  #stream(answer: IncomingMessage, part: WatchPart): void {
    let partial = '';
    answer.setEncoding('utf8');
    answer.on('data', (d: string) => {
      const lines = (partial + d).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) this.#emit(line, part);
    });
    answer.on('end', () => {
      this.#emit(partial, part);
      if (--this.#open === 0) this.#finish();
    });
    answer.on('error', (e) =>
      this.#fail(500, failure(`watch of namespace ${part.namespace} broke: ${e.message}`)),
    );
  }

  #answered(answer: IncomingMessage, part: WatchPart): void {
    // Refused (410 Gone, 403): the upstream's Status, which names the namespace, is the answer.
    if (answer.statusCode !== 200) {
      let body = '';
      answer.setEncoding('utf8');
      answer.on('data', (d: string) => (body += d));
      answer.on('end', () => this.#fail(answer.statusCode ?? 502, body));
      return;
    }
    this.#answers.push([answer, part]);
    if (this.#answers.length < this.#parts.length || this.#done) return;
    const type = answer.headers['content-type'] ?? 'application/json';
    this.#res.writeHead(200, { 'content-type': type });
    this.#res.flushHeaders(); // a watch client waits for the head, not for the first event
    for (const [a, p] of this.#answers) this.#stream(a, p);
  }
}

/** Serves a cluster-wide GET of a collection the manager caches, over every namespace. */
export function fanOut(
  upstream: KubeConfig,
  req: IncomingMessage,
  res: ServerResponse,
  namespaces: readonly string[],
): void {
  const query = new URL(req.url ?? '/', 'http://gateway').searchParams;
  if (query.get('watch') === 'true' || query.get('watch') === '1')
    return mergeWatch(
      upstream,
      req,
      res,
      namespaces.map((namespace) => ({ namespace, path: scoped(req.url ?? '/', namespace) })),
    );
  list(upstream, req, res, namespaces).catch(() => res.destroy());
}

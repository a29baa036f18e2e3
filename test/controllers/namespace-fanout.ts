// The namespace gateway's part for a manager that sees several namespaces (claim-namespaces.ts):
// kube-apiserver has no multi-namespace list or watch, so one cluster-wide GET becomes one per
// namespace. A list reads the first namespace, then the others at exactly its resourceVersion
// (one consistent snapshot, one page); a watch interleaves the namespaces' streams line by line
// and drops bookmarks (one stream's bookmark could carry the informer past another's events).
// The merged watch ends when every stream ended (the informer gives them all one timeoutSeconds,
// so they end together; ending at the first would cut events the others were still sending),
// or at the first error, which it says: a refused watch (410, 403) is the whole answer, and a
// stream broken after the start ends the merged one with an ERROR event naming the namespace.
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

/** A kube Status (500, as kube-apiserver ends a watch it cannot go on with) for `message`. */
function failure(message: string): string {
  const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', message };
  return JSON.stringify({ ...status, reason: 'InternalError', code: 500 });
}

/** The watch event type of a line (a JSON object), undefined for one that does not parse. */
function eventType(line: string): unknown {
  try {
    return (JSON.parse(line) as { type?: unknown }).type;
  } catch {
    return undefined;
  }
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
  const outs: ClientRequest[] = [];
  const answers: [IncomingMessage, WatchPart][] = [];
  let open = parts.length;
  let done = false;
  const finish = (last?: string): void => {
    if (done) return;
    done = true;
    if (last !== undefined) res.write(`${last}\n`);
    res.end();
    for (const o of outs) o.destroy();
  };
  /** A part broke or was refused: its answer when nothing was sent yet, else an ERROR event. */
  const fail = (code: number, status: string): void => {
    if (done) return;
    if (res.headersSent) return finish(`{"type":"ERROR","object":${status}}`);
    res.writeHead(code, { 'content-type': 'application/json' });
    finish(status);
  };
  const stream = (answer: IncomingMessage, part: WatchPart): void => {
    let partial = '';
    const emit = (line: string): void => {
      if (done || line.trim() === '') return;
      const type = eventType(line);
      if (type === 'ERROR') return finish(line); // the upstream's own error ends the watch
      if (type !== 'BOOKMARK') res.write(`${line}\n`);
    };
    answer.setEncoding('utf8');
    answer.on('data', (d: string) => {
      const lines = (partial + d).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) emit(line);
    });
    answer.on('end', () => {
      emit(partial);
      if (--open === 0) finish();
    });
    answer.on('error', (e) =>
      fail(500, failure(`watch of namespace ${part.namespace} broke: ${e.message}`)),
    );
  };
  const answered = (answer: IncomingMessage, part: WatchPart): void => {
    // Refused (410 Gone, 403): the upstream's Status, which names the namespace, is the answer.
    if (answer.statusCode !== 200) {
      let body = '';
      answer.setEncoding('utf8');
      answer.on('data', (d: string) => (body += d));
      answer.on('end', () => fail(answer.statusCode ?? 502, body));
      return;
    }
    answers.push([answer, part]);
    if (answers.length < parts.length || done) return;
    res.writeHead(200, { 'content-type': answer.headers['content-type'] ?? 'application/json' });
    res.flushHeaders(); // a watch client waits for the head, not for the first event
    for (const [a, p] of answers) stream(a, p);
  };
  for (const part of parts) {
    const out = upstreamRequest(upstream, plain(req), part.path, (a) => answered(a, part));
    out.on('error', (e) =>
      fail(500, failure(`watch of namespace ${part.namespace}: ${e.message}`)),
    );
    out.end();
    outs.push(out);
  }
  res.on('close', () => {
    done = true;
    for (const o of outs) o.destroy();
  });
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

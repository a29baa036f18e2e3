// The namespace gateway's part for a manager that sees several namespaces (claim-namespaces.ts):
// kube-apiserver has no multi-namespace list or watch, so one cluster-wide GET becomes one per
// namespace. A list reads the first namespace, then the others at exactly its resourceVersion
// (one consistent snapshot, one page); a watch interleaves the namespaces' streams line by line
// and drops bookmarks (one stream's bookmark could carry the informer past another's events).
import type { KubeConfig } from '@agent-sandbox/kube';
import type { IncomingMessage, ServerResponse } from 'node:http';
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

function watch(
  upstream: KubeConfig,
  req: IncomingMessage,
  res: ServerResponse,
  namespaces: readonly string[],
): void {
  let started = false;
  const outs = namespaces.map((ns) => {
    let partial = '';
    const out = upstreamRequest(upstream, plain(req), scoped(req.url ?? '/', ns), (answer) => {
      if (answer.statusCode !== 200) {
        // One namespace refused (410 Gone, 403): that answer is the whole watch's.
        if (!started) res.writeHead(answer.statusCode ?? 502, answer.headers);
        started = true;
        answer.pipe(res);
        for (const o of outs) if (o !== out) o.destroy();
        return;
      }
      if (!started) res.writeHead(200, { 'content-type': answer.headers['content-type'] ?? '' });
      started = true;
      answer.setEncoding('utf8');
      answer.on('data', (d: string) => {
        const lines = (partial + d).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines)
          if (line.trim() !== '' && !line.includes('"type":"BOOKMARK"')) res.write(`${line}\n`);
      });
      // The first stream to end ends the watch; the informer re-watches them all.
      answer.on('end', () => res.end());
    });
    out.on('error', () => res.destroy());
    out.end();
    return out;
  });
  res.on('close', () => {
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
    return watch(upstream, req, res, namespaces);
  list(upstream, req, res, namespaces).catch(() => res.destroy());
}

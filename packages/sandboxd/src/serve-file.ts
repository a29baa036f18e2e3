// GET/HEAD of a regular file with the parts of Go's http.ServeContent the SDKs and browsers use
// (dataplane §4.3): Content-Length, Last-Modified, If-Modified-Since → 304, Accept-Ranges and a
// single `bytes=` range (206, or 416 when it cannot be satisfied).
import { createReadStream, type Stats } from 'node:fs';
import { Readable } from 'node:stream';

export interface ByteRange {
  start: number;
  end: number;
}

/** Parses one `bytes=a-b` / `bytes=a-` / `bytes=-n` range; 'invalid' when unsatisfiable. */
export function parseRange(header: string, size: number): ByteRange | 'invalid' | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return header.startsWith('bytes=') && !header.includes(',') ? 'invalid' : undefined;
  const [, a = '', b = ''] = m;
  if (a === '' && b === '') return 'invalid';
  if (a === '') {
    const n = Number(b);
    if (n === 0) return 'invalid';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(a);
  if (start >= size) return 'invalid';
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  return end < start ? 'invalid' : { start, end };
}

function body(file: string, range?: ByteRange): ReadableStream<Uint8Array> {
  const stream = createReadStream(file, range ? { start: range.start, end: range.end } : {});
  return Readable.toWeb(stream) as ReadableStream<Uint8Array>;
}

export function serveFile(
  file: string,
  st: Stats,
  req: Request,
  extra: Record<string, string> = {},
): Response {
  const lastModified = new Date(Math.floor(st.mtimeMs / 1000) * 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/octet-stream',
    'last-modified': lastModified.toUTCString(),
    'accept-ranges': 'bytes',
    ...extra,
  };
  const since = req.headers.get('if-modified-since');
  if (since && !req.headers.has('range')) {
    const t = Date.parse(since);
    if (!Number.isNaN(t) && lastModified.getTime() <= t) {
      return new Response(null, {
        status: 304,
        headers: { 'last-modified': headers['last-modified'] ?? '' },
      });
    }
  }
  const rangeHeader = req.headers.get('range');
  const range = rangeHeader ? parseRange(rangeHeader, st.size) : undefined;
  if (range === 'invalid') {
    return new Response('invalid range: failed to overlap\n', {
      status: 416,
      headers: {
        'content-type': 'text/plain; charset=utf-8',
        'content-range': `bytes */${st.size}`,
      },
    });
  }
  const head = req.method === 'HEAD';
  if (range) {
    headers['content-range'] = `bytes ${range.start}-${range.end}/${st.size}`;
    headers['content-length'] = String(range.end - range.start + 1);
    return new Response(head ? null : body(file, range), { status: 206, headers });
  }
  headers['content-length'] = String(st.size);
  return new Response(head || st.size === 0 ? null : body(file), { status: 200, headers });
}

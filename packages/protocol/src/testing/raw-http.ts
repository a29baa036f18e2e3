// Test helper: one exchange of raw bytes with an HTTP/1.1 listener, for input a client library
// refuses to send (TRACE, `FOO`, CR in a header, lying Content-Length, bad chunk sizes). Reads
// until the server closes the connection (or half-closes it), or `timeoutMs` passes.
import { connect } from 'node:net';

export interface RawExchange {
  /** 0 when no status line came back. */
  status: number;
  /** Header names lower-cased; the last value wins. */
  headers: Record<string, string>;
  /** Everything after the head; a chunked body is joined (what follows it is kept as is). */
  body: string;
  /** The server closed the connection (false: `timeoutMs` passed first). */
  closed: boolean;
}

export interface RawExchangeOptions {
  /** Half-close after writing (a client that stops sending). @default false */
  endAfterWrite?: boolean;
  /** @default 5_000 */
  timeoutMs?: number;
}

/** Joins a chunked body; whatever follows its last chunk is appended unchanged. */
function unchunk(body: string, encoding: string | undefined): string {
  if (encoding?.toLowerCase() !== 'chunked') return body;
  let out = '';
  let at = 0;
  for (;;) {
    const nl = body.indexOf('\r\n', at);
    const size = nl < 0 ? NaN : Number.parseInt(body.slice(at, nl), 16);
    if (!Number.isFinite(size)) return out + body.slice(at);
    at = nl + 2;
    if (size === 0) return out + body.slice(body.indexOf('\r\n', at) + 2);
    out += body.slice(at, at + size);
    at += size + 2;
  }
}

/** Writes `bytes` to `url`'s host:port and collects what comes back. */
export function exchange(
  url: string,
  bytes: string | Buffer,
  options: RawExchangeOptions = {},
): Promise<RawExchange> {
  const u = new URL(url.includes('://') ? url : `http://${url}`);
  const socket = connect(Number(u.port), u.hostname.replace(/^\[|\]$/g, ''));
  const chunks: Buffer[] = [];
  return new Promise((resolve) => {
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = (split < 0 ? text : text.slice(0, split)).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0),
        headers,
        body: Buffer.from(
          split < 0 ? '' : unchunk(text.slice(split + 4), headers['transfer-encoding']),
          'latin1',
        ).toString('utf8'),
        closed,
      });
    };
    const timer = setTimeout(() => finish(false), options.timeoutMs ?? 5_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.write(bytes, () => options.endAfterWrite && socket.end());
  });
}

/** A request head with `Host` and `Connection: close`, so the answer ends with the connection. */
export function head(method: string, target: string, headers: Record<string, string> = {}): string {
  const lines = Object.entries({ Host: 'sandbox', Connection: 'close', ...headers }).map(
    ([k, v]) => `${k}: ${v}\r\n`,
  );
  return `${method} ${target} HTTP/1.1\r\n${lines.join('')}\r\n`;
}

/** Every method token worth sending: the standard ones, WebDAV's, fetch's forbidden ones, junk. */
export const HOSTILE_METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'OPTIONS',
  'PATCH',
  'TRACE',
  'TRACK',
  'CONNECT',
  'PROPFIND',
  'MKCOL',
  'FOO',
  'get',
  'G\u00c9T',
] as const;

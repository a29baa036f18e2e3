// rawRequest(): one HTTP/1.1 request written byte for byte on a TCP (or TLS) socket, for inputs
// an HTTP client library refuses to send (TRACE, CONNECT, custom method tokens, malformed Host
// headers, invalid UTF-8, truncated bodies). The response is read until the server closes the
// connection or `timeoutMs` passes.
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';

export interface RawResponse {
  /** 0 when the server closed the connection without a status line. */
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawRequestOptions {
  /** @default 10_000 */
  timeoutMs?: number;
}

/** Parses the bytes of an HTTP/1.1 response (chunked bodies are joined). */
export function parseRawResponse(bytes: Buffer): RawResponse {
  const text = bytes.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = end < 0 ? Buffer.alloc(0) : bytes.subarray(Buffer.byteLength(head, 'latin1') + 4);
  if (headers['transfer-encoding'] === 'chunked') body = unchunk(body);
  return { status, headers, body: body.toString('utf8') };
}

function unchunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const nl = body.indexOf('\r\n', at);
    if (nl < 0) break;
    const size = Number.parseInt(body.subarray(at, nl).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(body.subarray(nl + 2, nl + 2 + size));
    at = nl + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Opens a socket to `url`'s host and port (TLS without verification for https). */
export function openSocket(url: string): Socket {
  const u = new URL(url);
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return u.protocol === 'https:'
    ? connectTls({ host, port, rejectUnauthorized: false })
    : connectTcp({ host, port });
}

/** Writes `request` (the whole request, head and body) and collects the response. */
export function rawRequest(
  url: string,
  request: string | Buffer,
  options: RawRequestOptions = {},
): Promise<RawResponse> {
  return new Promise((resolve) => {
    const socket = openSocket(url);
    const chunks: Buffer[] = [];
    const finish = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseRawResponse(Buffer.concat(chunks)));
    };
    const timer = setTimeout(finish, options.timeoutMs ?? 10_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', finish);
    socket.write(request);
  });
}

/** A request head (`Connection: close`, so the response ends with the connection). */
export function requestHead(
  method: string,
  target: string,
  headers: Record<string, string> = {},
): string {
  const all: Record<string, string> = { Host: '127.0.0.1', Connection: 'close', ...headers };
  const lines = Object.entries(all).map(([k, v]) => `${k}: ${v}`);
  return `${method} ${target} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

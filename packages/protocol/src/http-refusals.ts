// What the data plane's HTTP servers (sandboxd's REST and legacy ports, the router) answer to a
// request Node's parser or fetch's Request cannot carry. Pure: each server shapes the body in its
// own error vocabulary, so the statuses and messages stay the same across the three listeners.

/** A refusal decided before any handler ran; `message` names the problem. */
export interface HttpRefusal {
  status: number;
  /** Stable, for the server's error code (`code` / `detail`). */
  reason: 'MethodNotAllowed' | 'HeadersTooLarge' | 'Timeout' | 'Malformed';
  message: string;
}

/** Methods fetch's Request refuses (CONNECT, TRACE, TRACK): answered 405, never handled. */
export const FETCH_FORBIDDEN_METHODS: ReadonlySet<string> = new Set(['CONNECT', 'TRACE', 'TRACK']);

export const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
};

export const methodRefusal = (method: string): HttpRefusal => ({
  status: 405,
  reason: 'MethodNotAllowed',
  message: `method ${JSON.stringify(method)} is not supported by this server`,
});

/**
 * The method token of the request the parser refused, printable and short, for the message.
 * `rawPacket` is the whole chunk read (it may hold an earlier request): the token starts at the
 * line the error offset `bytesParsed` falls in.
 */
function methodToken(rawPacket: unknown, bytesParsed: unknown): string {
  if (!(rawPacket instanceof Uint8Array)) return '';
  const at = typeof bytesParsed === 'number' ? Math.min(bytesParsed, rawPacket.length) : 0;
  const start = rawPacket.subarray(0, at).lastIndexOf(0x0a) + 1;
  const line = String.fromCharCode(...rawPacket.subarray(start, start + 33));
  return /^[\x21-\x7e]{1,32}/.exec(line)?.[0] ?? '';
}

/**
 * A Node `clientError` → the answer, or undefined when the connection is gone (reset, or
 * nothing a peer could read). `maxHeaderSize` is the server's limit, named in the 431 message.
 */
export function clientErrorRefusal(
  err: Error & { code?: string; reason?: string; rawPacket?: unknown; bytesParsed?: unknown },
  maxHeaderSize: number,
): HttpRefusal | undefined {
  switch (err.code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return undefined;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: 'Timeout', message: 'request headers did not arrive in time' };
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'HeadersTooLarge',
        message: `request line and headers exceed ${maxHeaderSize} bytes`,
      };
    case 'HPE_INVALID_METHOD':
      return methodRefusal(methodToken(err.rawPacket, err.bytesParsed));
    default:
      return {
        status: 400,
        reason: 'Malformed',
        message: `malformed HTTP request (${err.code ?? 'parse error'}): ${err.reason ?? err.message}`,
      };
  }
}

/** A refusal for a request the parser accepted but no server should act on; else undefined. */
export function requestRefusal(
  method: string,
  rawHeaders: readonly string[],
): HttpRefusal | undefined {
  if (FETCH_FORBIDDEN_METHODS.has(method.toUpperCase())) return methodRefusal(method);
  let hosts = 0;
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (rawHeaders[i]?.toLowerCase() === 'host') hosts++;
  // RFC 9112 §3.2: a request with more than one Host field gets a 400 (Go answers the same).
  if (hosts > 1)
    return { status: 400, reason: 'Malformed', message: 'request has more than one Host header' };
  return undefined;
}

/** The bytes of a complete `Connection: close` response, for writing straight to a socket. */
export function rawHttpResponse(status: number, contentType: string, body: string): string {
  return (
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nContent-Type: ${contentType}\r\n` +
    `Connection: close\r\nContent-Length: ${new TextEncoder().encode(body).length}\r\n\r\n${body}`
  );
}

/**
 * The origin-form (`/path?query`) of a request-target. Servers must accept the absolute-form
 * (`http://host/path`, RFC 9112 §3.2.2) and route it by its path, as Go's server does.
 */
export function originForm(target: string): string {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (!absolute) return target;
  const rest = target.slice(absolute[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

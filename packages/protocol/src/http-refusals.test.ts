import { describe, expect, it } from 'vitest';
import {
  clientErrorRefusal,
  originForm,
  rawHttpResponse,
  requestRefusal,
} from './http-refusals.ts';

const parseError = (code: string, reason: string, raw = '', bytesParsed = 0) =>
  Object.assign(new Error(`Parse Error: ${reason}`), {
    code,
    reason,
    rawPacket: Buffer.from(raw, 'latin1'),
    bytesParsed,
  });

describe('clientErrorRefusal', () => {
  it('names the method token of the refused request, not of an earlier one in the chunk', () => {
    const raw = 'GET / HTTP/1.1\r\nHost: a\r\n\r\nFOO / HTTP/1.1\r\n';
    expect(
      clientErrorRefusal(parseError('HPE_INVALID_METHOD', 'x', raw, raw.indexOf('FOO') + 1), 16384),
    ).toEqual({
      status: 405,
      reason: 'MethodNotAllowed',
      message: 'method "FOO" is not supported by this server',
    });
  });

  it('maps overflow, timeouts and other parse errors; a reset is not answered', () => {
    expect(
      clientErrorRefusal(parseError('HPE_HEADER_OVERFLOW', 'Header overflow'), 8192)?.message,
    ).toBe('request line and headers exceed 8192 bytes');
    expect(
      clientErrorRefusal(Object.assign(new Error('t'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), 1)
        ?.status,
    ).toBe(408);
    expect(
      clientErrorRefusal(
        parseError('HPE_INVALID_CHUNK_SIZE', 'Invalid character in chunk size'),
        1,
      ),
    ).toEqual({
      status: 400,
      reason: 'Malformed',
      message: 'malformed HTTP request (HPE_INVALID_CHUNK_SIZE): Invalid character in chunk size',
    });
    expect(
      clientErrorRefusal(Object.assign(new Error('r'), { code: 'ECONNRESET' }), 1),
    ).toBeUndefined();
  });
});

describe('requestRefusal', () => {
  it('refuses fetch-forbidden methods and a second Host, accepts the rest', () => {
    expect(requestRefusal('TRACE', ['Host', 'a'])?.status).toBe(405);
    expect(requestRefusal('GET', ['Host', 'a', 'host', 'b'])?.message).toBe(
      'request has more than one Host header',
    );
    expect(requestRefusal('PROPFIND', ['Host', 'a'])).toBeUndefined();
  });
});

describe('originForm and rawHttpResponse', () => {
  it('routes absolute-form by its path and leaves origin-form alone', () => {
    expect(originForm('http://evil.example:81/v1/health?x=1')).toBe('/v1/health?x=1');
    expect(originForm('https://evil.example')).toBe('/');
    expect(originForm('/a/http://b')).toBe('/a/http://b');
  });

  it('sizes the body in bytes', () => {
    expect(rawHttpResponse(400, 'application/json', 'é')).toContain('Content-Length: 2\r\n\r\né');
  });
});

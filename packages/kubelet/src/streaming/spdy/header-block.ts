// SPDY/3 header compression: one zlib stream per direction for the whole connection (never
// reset), primed with the SPDY/3 dictionary and flushed with Z_SYNC_FLUSH after each block.
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';

/** Header names the dictionary lists as length-prefixed words (SPDY/3 §2.6.10.1). */
const DICTIONARY_WORDS = (
  'options|head|post|put|delete|trace|accept|accept-charset|accept-encoding|' +
  'accept-language|accept-ranges|age|allow|authorization|cache-control|connection|' +
  'content-base|content-encoding|content-language|content-length|content-location|' +
  'content-md5|content-range|content-type|date|etag|expect|expires|from|host|' +
  'if-match|if-modified-since|if-none-match|if-range|if-unmodified-since|' +
  'last-modified|location|max-forwards|pragma|proxy-authenticate|' +
  'proxy-authorization|range|referer|retry-after|server|te|trailer|' +
  'transfer-encoding|upgrade|user-agent|vary|via|warning|www-authenticate|method|' +
  'get|status|200 OK|version|HTTP/1.1|url|public|set-cookie|keep-alive|origin'
).split('|');

/** The dictionary's tail: status codes, status lines, dates and common values, unprefixed. */
const DICTIONARY_TAIL =
  '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505' +
  '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized' +
  '403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable' +
  'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT' +
  'chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,' +
  'text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';

function buildDictionary(): Buffer {
  const parts: Buffer[] = [];
  for (const word of DICTIONARY_WORDS) {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(word.length);
    parts.push(len, Buffer.from(word, 'latin1'));
  }
  parts.push(Buffer.from(DICTIONARY_TAIL, 'latin1'));
  return Buffer.concat(parts);
}

/** The SPDY/3 zlib dictionary (1423 bytes). */
export const SPDY3_DICTIONARY: Buffer = buildDictionary();

/** Runs one block through a zlib stream and collects what a sync flush yields. */
function flushThrough(stream: Deflate | Inflate, input: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const onData = (c: Buffer): void => {
      chunks.push(c);
    };
    const onError = (err: Error): void => {
      stream.off('data', onData);
      reject(err);
    };
    stream.on('data', onData);
    stream.once('error', onError);
    stream.write(input);
    stream.flush(constants.Z_SYNC_FLUSH, () => {
      stream.off('data', onData);
      stream.off('error', onError);
      resolve(Buffer.concat(chunks));
    });
  });
}

/**
 * The compression state of one connection. Calls must be serialised per direction (each block
 * continues the previous one's zlib stream); the connection does so by awaiting each call.
 */
export class HeaderCodec {
  readonly #deflate = createDeflate({ dictionary: SPDY3_DICTIONARY });
  readonly #inflate = createInflate({ dictionary: SPDY3_DICTIONARY });
  #deflateQueue: Promise<unknown> = Promise.resolve();
  #inflateQueue: Promise<unknown> = Promise.resolve();

  compress(block: Buffer): Promise<Buffer> {
    const next = this.#deflateQueue.then(() => flushThrough(this.#deflate, block));
    this.#deflateQueue = next.catch(() => undefined);
    return next;
  }

  decompress(block: Buffer): Promise<Buffer> {
    const next = this.#inflateQueue.then(() => flushThrough(this.#inflate, block));
    this.#inflateQueue = next.catch(() => undefined);
    return next;
  }

  close(): void {
    this.#deflate.close();
    this.#inflate.close();
  }
}

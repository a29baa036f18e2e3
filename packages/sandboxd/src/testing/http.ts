// A raw HTTP client for tests: sends the request-target exactly as given (fetch would normalise
// `%2E%2E` and `..` away), and returns status, headers and the whole body.
import { request } from 'node:http';
import type { Readable } from 'node:stream';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  json<T = unknown>(): T;
}

export interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | Readable;
}

export function raw(baseUrl: string, target: string, init: RawRequest = {}): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: init.method ?? 'GET',
        path: target,
        headers: init.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const text = body.toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            text,
            json: <T>() => JSON.parse(text) as T,
          });
        });
      },
    );
    req.on('error', reject);
    const body = init.body;
    if (body === undefined) req.end();
    else if (typeof body === 'string' || Buffer.isBuffer(body)) req.end(body);
    else body.pipe(req);
  });
}

/** A multipart/form-data body with one file part (and optional extra fields). */
export function multipart(
  filename: string | undefined,
  content: Buffer | string,
  field = 'file',
): { body: Buffer; contentType: string } {
  const boundary = '----sandboxdtest7d1f';
  const disposition =
    filename === undefined
      ? `form-data; name="${field}"`
      : `form-data; name="${field}"; filename="${filename}"`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`),
    Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

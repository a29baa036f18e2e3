// List continue tokens (semantics doc §3.4): unpadded base64url of
// {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key after prefix>\u0000"}, as the real server makes them.
import { badRequest, type ApiError } from '../../errors.ts';

export interface ContinuePosition {
  revision: number;
  /** The last key returned, relative to the list prefix. */
  after: string;
}

export function encodeContinue(revision: number, lastKeyAfterPrefix: string): string {
  const json = JSON.stringify({
    v: 'meta.k8s.io/v1',
    rv: revision,
    start: `${lastKeyAfterPrefix}\u0000`,
  });
  return Buffer.from(json).toString('base64url');
}

const BASE64URL = /^[A-Za-z0-9_-]$/;

/** Go's base64.RawURLEncoding.DecodeString error position, or -1 when `token` decodes. */
function base64Error(token: string): number {
  for (let i = 0; i < token.length; i++) if (!BASE64URL.test(token[i] as string)) return i;
  return token.length % 4 === 1 ? token.length - 1 : -1;
}

/**
 * Go's encoding/json message for the common case of a token that is not JSON at all (its first
 * byte cannot start a value); other syntax errors keep the parser's own words.
 */
function jsonError(bytes: Buffer, err: unknown): string {
  const first = bytes.toString('latin1').trimStart()[0];
  if (first !== undefined && !/[[{"tfn\d-]/.test(first)) {
    const code = first.charCodeAt(0);
    const shown = code >= 0x20 && code < 0x7f ? first : `\\u${code.toString(16).padStart(4, '0')}`;
    return `invalid character '${shown}' looking for beginning of value`;
  }
  return err instanceof Error ? err.message : String(err);
}

export function decodeContinue(token: string): ContinuePosition {
  const bad = base64Error(token);
  if (bad >= 0)
    throw badRequest(
      `invalid continue token: continue key is not valid: illegal base64 data at input byte ${bad}`,
    );
  const bytes = Buffer.from(token, 'base64url');
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (err: unknown) {
    throw badRequest(`invalid continue token: continue key is not valid: ${jsonError(bytes, err)}`);
  }
  const p = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  const invalid = (why: string): ApiError =>
    badRequest(`invalid continue token: continue key is not valid: ${why}`);
  if (p.v !== 'meta.k8s.io/v1')
    throw invalid(
      `server does not recognize this encoded version ${JSON.stringify(typeof p.v === 'string' ? p.v : '')}`,
    );
  if (p.rv === 0 || p.rv === undefined)
    throw invalid('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (p.start === '' || p.start === undefined)
    throw invalid('encoded start key empty (version meta.k8s.io/v1)');
  if (typeof p.rv !== 'number' || typeof p.start !== 'string' || !p.start.endsWith('\u0000')) {
    throw badRequest('invalid continue token: continue key is not valid');
  }
  return { revision: p.rv, after: p.start.slice(0, -1) };
}

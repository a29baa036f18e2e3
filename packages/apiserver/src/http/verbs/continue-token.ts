// List continue tokens (semantics doc §3.4): unpadded base64url of
// {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key after prefix>\u0000"}, as the real server makes them.
import { badRequest } from '../../errors.ts';

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

export function decodeContinue(token: string): ContinuePosition {
  const bad = base64Error(token);
  if (bad >= 0)
    throw badRequest(
      `invalid continue token: continue key is not valid: illegal base64 data at input byte ${bad}`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch (err: unknown) {
    throw badRequest(`invalid continue token: ${err instanceof Error ? err.message : String(err)}`);
  }
  const p = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (p.v !== 'meta.k8s.io/v1')
    throw badRequest('invalid continue token: unsupported continue version');
  if (typeof p.rv !== 'number' || typeof p.start !== 'string' || !p.start.endsWith('\u0000')) {
    throw badRequest('invalid continue token: continue key is not valid');
  }
  return { revision: p.rv, after: p.start.slice(0, -1) };
}

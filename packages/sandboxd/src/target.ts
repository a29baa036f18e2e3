// Splits a raw request-target into path and query and says whether Go's ServeMux would redirect
// it: literal `.`/`..` segments and repeated slashes are cleaned with a 301 (dataplane §4.3).
// Percent-encoded `%2E`/`%2F` are left alone; that is how clients pass such names through.
import path from 'node:path';

export interface Target {
  rawPath: string;
  /** Including the leading `?`, or ''. */
  rawQuery: string;
  /** Set when the mux would answer 301 with this Location. */
  redirect?: string;
}

export function splitTarget(rawTarget: string): Target {
  const q = rawTarget.indexOf('?');
  const rawPath = q === -1 ? rawTarget : rawTarget.slice(0, q);
  const rawQuery = q === -1 ? '' : rawTarget.slice(q);
  if (!rawPath.startsWith('/')) return { rawPath: `/${rawPath}`, rawQuery };
  let cleaned = path.posix.normalize(rawPath);
  if (rawPath.endsWith('/') && !cleaned.endsWith('/')) cleaned += '/';
  if (cleaned !== rawPath) return { rawPath, rawQuery, redirect: `${cleaned}${rawQuery}` };
  return { rawPath, rawQuery };
}

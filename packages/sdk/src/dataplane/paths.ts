// Path encoding for `/v1/files/<path>` as upstream's Go SDK does it (dataplane §8.5): every byte
// but A-Z a-z 0-9 - _ . ~ percent-encoded in upper-case hex (so `/` is %2F), and the whole paths
// `.` and `..` as %2E and %2E%2E, which a router or the daemon would otherwise clean away.
import { InvalidArgumentError } from '../errors.ts';

export function encodeFilePath(path: string): string {
  if (path === '') throw new InvalidArgumentError('path must not be empty; use "." for the root');
  if (path === '.') return '%2E';
  if (path === '..') return '%2E%2E';
  let out = '';
  for (const byte of Buffer.from(path, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

// The request target's path as the client sent it. A fetch Request's URL (WHATWG) resolves dot
// segments — `…/configmaps/..` becomes the namespace itself — where kube-apiserver (Go's
// net/http, no path cleaning on its API routes) routes them as sent: a name `..` it refuses, a
// resource `.` it does not know. The Node server records the raw path of each request that has
// a dot segment; requests built in-process have only their URL's.
const rawPaths = new WeakMap<Request, string>();

const DOT_SEGMENT = /(^|\/)(\.|%2e){1,2}(\/|$)/i;

/** Keeps `target`'s path (origin-form; the part before `?`) for `request` when it has a dot segment. */
export function recordRawPath(request: Request, target: string): void {
  if (!target.startsWith('/')) return;
  const path = target.split(/[?#]/, 1)[0] ?? target;
  if (DOT_SEGMENT.test(path)) rawPaths.set(request, path);
}

/** The path to route and authorize `request` by: its raw path when recorded, else `url`'s. */
export function requestPath(request: Request, url: URL): string {
  return rawPaths.get(request) ?? url.pathname;
}

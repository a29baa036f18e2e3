import { isValidPathSegmentName } from '@agent-sandbox/crd-schema';
import { badRequest } from '../errors.ts';

// Parses a resource URL into group, version, namespace, resource, name, subresource and verb,
// the way k8s.io/apiserver's RequestInfoFactory does (including `namespaces/<n>/status` and the
// legacy `/watch/` prefix).
export type RequestVerb =
  'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface ResourceRequest {
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
  /** The rest of a `proxy` subresource's path (`nodes/<n>/proxy/metrics` → `metrics`). */
  proxyPath?: string;
  verb: RequestVerb;
}

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

function isTrue(v: string | null): boolean {
  return v !== null && !['0', 'false'].includes(v.toLowerCase());
}

/** The %-decoded path; one whose escapes are not UTF-8 (`%FF`) stays as sent. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Returns undefined for paths that are not resource requests (discovery, openapi, 404). */
export function parseResourceRequest(
  method: string,
  url: URL,
  path: string = url.pathname,
): ResourceRequest | undefined {
  // Like Go's mux, route on the decoded path: `a%2Fb` is two segments. Only the ends are
  // trimmed: no route of kube's matches an empty segment inside (`/api//v1` is its 404).
  const parts = decodeSegment(path)
    .replace(/^\/+|\/+$/g, '')
    .split('/');
  if (parts.includes('')) return undefined;
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1] as string;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1] as string;
    version = parts[2] as string;
    rest = parts.slice(3);
  } else return undefined;

  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1];
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2] as string)) rest = rest.slice(2);
  }
  const [resource, name, subresource, ...extra] = rest;
  // Only a proxy subresource has a path after it (kube's RequestInfoFactory keeps it in Parts).
  if (resource === undefined || (extra.length > 0 && subresource !== 'proxy')) return undefined;
  // `namespaces/<n>` names the namespace itself, not a namespace scope.
  if (resource === 'namespaces') namespace = undefined;

  const watch = legacyWatch || isTrue(url.searchParams.get('watch'));
  let verb: RequestVerb;
  switch (method) {
    case 'GET':
    case 'HEAD':
      verb = name === undefined ? (watch ? 'watch' : 'list') : watch ? 'watch' : 'get';
      break;
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = name === undefined ? 'deletecollection' : 'delete';
      break;
    default:
      return undefined;
  }
  const out: ResourceRequest = { group, version, resource, verb };
  if (namespace !== undefined) out.namespace = namespace;
  if (name !== undefined) out.name = name;
  if (subresource !== undefined) out.subresource = subresource;
  if (subresource === 'proxy') out.proxyPath = extra.join('/');
  return out;
}

export { isTrue as isTrueParam };

/**
 * kube's path.IsValidPathSegmentName as its storage key function applies it to the name in a
 * request's path: `.` and `..` are no names, `/` and `%` are not allowed in one. 400 with kube's
 * message (an ApiError from errors.ts).
 */
export function checkPathSegmentName(name: string): void {
  const problems = isValidPathSegmentName(name);
  if (problems.length > 0)
    throw badRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${problems.join(';')}`);
}

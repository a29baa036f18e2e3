// What a request asks for, in the authorizer's terms (k8s.io/apiserver's RequestInfo): a
// resource request (the namespace of `namespaces/<n>` is n; a list or watch with
// `fieldSelector=metadata.name=x` names x) or a non-resource URL with the lower-cased method as
// verb; and kube's 403 for a denial.
import type { Status } from '@agent-sandbox/kube-types';
import { ApiError } from '../errors.ts';
import type { ResourceRequest } from '../http/request-info.ts';
import type { Attributes, UserInfo } from './policy.ts';

const NAME_SELECTOR = /^metadata\.name(==?)([^,!=]+)$/;

function selectedName(url: URL): string | undefined {
  const selector = url.searchParams.get('fieldSelector');
  const m = selector === null ? null : NAME_SELECTOR.exec(selector.trim());
  const name = m?.[2];
  return name !== undefined && name !== '.' && name !== '..' && !/[/%]/.test(name)
    ? name
    : undefined;
}

export function requestAttributes(
  user: UserInfo,
  method: string,
  url: URL,
  req: ResourceRequest | undefined,
  path: string = url.pathname,
): Attributes {
  if (!req) return { user, resourceRequest: false, verb: method.toLowerCase(), path };
  let name = req.name;
  if (name === undefined && (req.verb === 'list' || req.verb === 'watch')) name = selectedName(url);
  const namespace = req.group === '' && req.resource === 'namespaces' ? req.name : req.namespace;
  return {
    user,
    resourceRequest: true,
    verb: req.verb,
    apiGroup: req.group,
    apiVersion: req.version,
    resource: req.resource,
    ...(req.subresource !== undefined ? { subresource: req.subresource } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
  };
}

/** The body kube-apiserver answers a denied request with (responsewriters.Forbidden). */
export function forbiddenError(a: Attributes, reason: string): ApiError {
  const user = JSON.stringify(a.user.username);
  let what: string;
  let status: Status;
  if (!a.resourceRequest) {
    what = `User ${user} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
    status = failure(`forbidden: ${withReason(what, reason)}`, {});
  } else {
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    const scope = a.namespace
      ? `in the namespace ${JSON.stringify(a.namespace)}`
      : 'at the cluster scope';
    what = `User ${user} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} ${scope}`;
    const qualified = a.apiGroup === '' ? a.resource : `${a.resource}.${a.apiGroup}`;
    const subject = a.name ? `${qualified} ${JSON.stringify(a.name)}` : qualified;
    status = failure(`${subject} is forbidden: ${withReason(what, reason)}`, {
      ...(a.name ? { name: a.name } : {}),
      ...(a.apiGroup ? { group: a.apiGroup } : {}),
      kind: a.resource,
    });
  }
  return new ApiError(status);
}

function withReason(message: string, reason: string): string {
  return reason === '' ? message : `${message}: ${reason}`;
}

function failure(message: string, details: NonNullable<Status['details']>): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: 'Forbidden',
    details,
    code: 403,
  };
}

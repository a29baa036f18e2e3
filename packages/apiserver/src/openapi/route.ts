// One documented HTTP operation (a route) and the naming rules kube-apiserver uses for them:
// operation ids and tags (k8s.io/apiserver/pkg/endpoints/openapi GetOperationIDAndTags), media
// types, and the group-version discovery route. resource-routes.ts builds a resource's routes;
// the v3 and v2 documents both render from the same list.
import { groupVersion } from '../resources/resource.ts';
import {
  API_RESOURCE_LIST,
  toValidOperationId,
  type GroupVersionKind,
  type OptionsKind,
} from './definitions.ts';
export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';
export type Action =
  'list' | 'post' | 'deletecollection' | 'get' | 'put' | 'patch' | 'delete' | 'watch' | 'watchlist';

export interface RouteResponse {
  code: string;
  description: string;
  /** Definition name of the response body. */
  schema?: string;
}

export interface Route {
  path: string;
  method: HttpMethod;
  operationId: string;
  description: string;
  tag: string;
  /** Absent only on the group-version's own discovery route. */
  action?: Action;
  gvk?: GroupVersionKind;
  pathParameters: { name: string; description: string }[];
  /** The option struct whose fields are the operation's query parameters. */
  options?: OptionsKind;
  /** Request media types; empty when the operation takes no body. */
  consumes: string[];
  body?: { schema: string; required: boolean };
  produces: string[];
  responses: RouteResponse[];
}

export const JSON_YAML = ['application/json', 'application/yaml'];
export const BUILTIN_LIST_PRODUCES = [
  'application/json',
  'application/json;stream=watch',
  'application/yaml',
];
/** What PATCH accepts: JSON patch, merge patch and apply for everything; strategic merge for built-ins only. */
export const CRD_PATCH_TYPES = [
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
];
export const BUILTIN_PATCH_TYPES = [...CRD_PATCH_TYPES, 'application/strategic-merge-patch+json'];
export const UNAUTHORIZED: RouteResponse = { code: '401', description: 'Unauthorized' };

const RESPONSE_DESCRIPTIONS = { '200': 'OK', '201': 'Created', '202': 'Accepted' } as const;

/** A success response with the body's definition, when known. */
export function response(code: keyof typeof RESPONSE_DESCRIPTIONS, schema?: string): RouteResponse {
  return { code, description: RESPONSE_DESCRIPTIONS[code], ...(schema ? { schema } : {}) };
}

/** `CoreV1`, `NetworkingV1`, `AgentsXK8sIoV1beta1`: the group-version part of operation ids. */
export function groupVersionPart(group: string, version: string): string {
  const g = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '');
  return toValidOperationId(g, true) + toValidOperationId(version, true);
}

export function groupVersionTag(group: string, version: string): string {
  const g = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '');
  return `${toValidOperationId(g, false)}_${toValidOperationId(version, false)}`;
}

export function groupVersionRoot(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${groupVersion(group, version)}`;
}

/** GetArticleForNoun: plurals (but not `...ss`) get none. */
export function article(noun: string): string {
  if (noun.endsWith('s') && !noun.endsWith('ss')) return ' ';
  return /^[aeiouAEIOU]/.test(noun) ? ' an ' : ' a ';
}

/** The discovery route every group-version document starts with. */
export function apiResourcesRoute(group: string, version: string): Route {
  return {
    path: `${groupVersionRoot(group, version)}/`,
    method: 'get',
    operationId: `get${groupVersionPart(group, version)}APIResources`,
    description: 'get available resources',
    tag: groupVersionTag(group, version),
    pathParameters: [],
    consumes: JSON_YAML,
    produces: JSON_YAML,
    responses: [{ code: '200', description: 'OK', schema: API_RESOURCE_LIST }, UNAUTHORIZED],
  };
}

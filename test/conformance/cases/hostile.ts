// Hostile requests (issue 15): methods kube routes nowhere, malformed parameters, oversized
// bodies and names. Both servers must answer the same status, reason and message; none may crash
// or answer a 5xx where kube answers a 4xx. Only requests that change nothing outside the case's
// namespace are sent: the cluster is shared.
import { observe, type ConformanceCase } from '../case.ts';
import type { HttpResult } from '../target.ts';

/** A Status answer in full; a success by its code alone (documents differ between servers). */
export function brief(res: HttpResult): unknown {
  const seen = observe(res) as { body?: unknown };
  if (res.status < 300 && seen.body !== undefined) return { status: res.status };
  return seen;
}

/** Methods kube-apiserver's router does not serve, on paths of each kind of handler. */
const METHOD_PATHS = (ns: string): string[] => [
  '/version',
  '/api',
  '/api/v1',
  '/apis',
  '/apis/coordination.k8s.io',
  '/apis/coordination.k8s.io/v1',
  '/healthz',
  '/readyz',
  `/api/v1/namespaces/${ns}/configmaps`,
  `/api/v1/namespaces/${ns}/configmaps/x`,
  `/api/v1/namespaces/${ns}/configmaps/x/status`,
  '/api/v1/nosuch',
  '/apis/nosuch.example.com/v1/things',
];

const UNROUTED_METHODS = ['TRACE', 'OPTIONS', 'HEAD', 'PROPFIND', 'MKCOL', 'PURGE'];

export const HOSTILE_CASES: ConformanceCase[] = [
  {
    name: 'hostile: methods kube routes nowhere answer 405 on known paths, 404 elsewhere',
    async run(t, ns, record) {
      for (const method of UNROUTED_METHODS)
        for (const path of METHOD_PATHS(ns))
          record(`${method} ${path}`, brief(await t.requestOnce(method, path)));
    },
  },
  {
    name: 'hostile: POST, PUT, PATCH and DELETE on discovery and version paths',
    async run(t, _ns, record) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'])
        for (const path of [
          '/version',
          '/api',
          '/api/v1',
          '/apis',
          '/apis/coordination.k8s.io/v1',
          '/livez',
        ])
          record(`${method} ${path}`, brief(await t.requestOnce(method, path, { body: {} })));
    },
  },
];
